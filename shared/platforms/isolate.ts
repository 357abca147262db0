import type { SendHooks, SendOutcome } from './contract';

/**
 * What one request for a chunk gave:
 *  - `ok`: per-event outcomes, in order;
 *  - `reject`: the platform refused the whole request because of something in its events
 *    (an invalid parameter): a chunk of several events is split to find the bad ones;
 *  - `fail`: a failure no split can help (token, permissions, a transient error that outlived
 *    its retries): every event of the chunk gets `outcome`.
 */
export type ChunkAttempt =
	| { kind: 'ok'; outcomes: SendOutcome[] }
	| { kind: 'reject'; outcome: SendOutcome }
	| { kind: 'fail'; outcome: SendOutcome };

/** The outcome of an event its run withheld (hooks.admit): never sent, see the run's result. */
export const WITHHELD: SendOutcome = {
	status: 'failed',
	error: 'not sent: this run no longer holds its claim',
	retryable: true,
};

/**
 * For platforms that reject a whole batch for one invalid event (Meta, TikTok, Microsoft): send,
 * and on a rejection split the chunk in halves and resend until the bad events stand alone. The
 * valid events land; each bad one ends with the platform's own message for it. About
 * 2·log2(n) extra requests per bad event.
 *
 * A split takes one request at a time, so it can take long: before each request `hooks.admit`
 * says which events the run may still send (its claims still held), and each part the platform
 * accepts is reported at once through `hooks.partAccepted`, so the run records it as sent
 * without waiting for the rest of the split.
 */
export async function sendIsolating<Event>(
	events: Event[],
	attempt: (chunk: Event[]) => Promise<ChunkAttempt>,
	hooks: SendHooks = {},
): Promise<SendOutcome[]> {
	const outcomes = new Array<SendOutcome>(events.length);
	const all = events.map((_, i) => i);
	await isolate(events, all, attempt, hooks, outcomes, false);
	return outcomes;
}

async function isolate<Event>(
	events: Event[],
	indices: number[],
	attempt: (chunk: Event[]) => Promise<ChunkAttempt>,
	hooks: SendHooks,
	outcomes: SendOutcome[],
	part: boolean,
): Promise<void> {
	const admitted = part && hooks.admit ? await hooks.admit(indices) : indices;
	if (admitted !== indices) {
		const allowed = new Set(admitted);
		for (const i of indices) if (!allowed.has(i)) outcomes[i] = WITHHELD;
	}
	if (admitted.length === 0) return;
	const result = await attempt(admitted.map((i) => events[i]));
	if (result.kind === 'ok') {
		admitted.forEach((i, k) => (outcomes[i] = result.outcomes[k]));
		if (part && hooks.partAccepted) await hooks.partAccepted(admitted, result.outcomes);
		return;
	}
	if (result.kind === 'reject' && admitted.length > 1) {
		const middle = Math.ceil(admitted.length / 2);
		await isolate(events, admitted.slice(0, middle), attempt, hooks, outcomes, true);
		await isolate(events, admitted.slice(middle), attempt, hooks, outcomes, true);
		return;
	}
	for (const i of admitted) outcomes[i] = result.outcome;
}
