import type { SendOutcome } from './types';

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

/**
 * For platforms that reject a whole batch for one invalid event (Meta, TikTok): send, and on a
 * rejection split the chunk in halves and resend until the bad events stand alone. The valid
 * events land; each bad one ends with the platform's own message for it. About 2·log2(n)
 * extra requests per bad event.
 */
export async function sendIsolating<Event>(
	events: Event[],
	attempt: (chunk: Event[]) => Promise<ChunkAttempt>,
): Promise<SendOutcome[]> {
	const result = await attempt(events);
	if (result.kind === 'ok') return result.outcomes;
	if (result.kind === 'reject' && events.length > 1) {
		const middle = Math.ceil(events.length / 2);
		const left = await sendIsolating(events.slice(0, middle), attempt);
		const right = await sendIsolating(events.slice(middle), attempt);
		return [...left, ...right];
	}
	return events.map(() => result.outcome);
}
