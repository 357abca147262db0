import { IDENTITY_PROFILES } from '../../../shared/platforms';
import {
	meta,
	MemoryDedupStore,
	Transport,
	type DispatchOptions,
	type PlatformAdapter,
	type SendOutcome,
} from '../../../shared';
import { startRun } from '../../../shared/dispatch/runState';

/**
 * A platform of the tests' own making (not a mock of the core): events are their event ids,
 * an event without identity cannot be built, and sending answers with scripted outcomes.
 */
export function testPlatform(
	answer: (payloads: string[]) => SendOutcome[] = (p) => p.map(() => ({ status: 'sent' })),
) {
	const sent: string[][] = [];
	const adapter: PlatformAdapter<{ destination: string }, string> = {
		platform: 'meta',
		identity: IDENTITY_PROFILES.meta,
		eventNameByState: {
			partial: 'P',
			lead: 'Lead',
			contact: 'C',
			schedule: 'S',
			registration: 'R',
			purchase: 'B',
		},
		maxBatchSize: 3,
		eventTimeWindow: { platform: 'Test', seconds: 7 * 86400, basis: 'documented' },
		resendDedup: meta.META_RESEND_DEDUP,
		destinationId: (c) => c.destination,
		userData: (user) => ({ data: user.values, matchKeys: user.matchKeys }),
		buildEvent: (ctx) =>
			ctx.user.matchKeys.length
				? { ok: true, payload: ctx.eventId, matchKeys: ctx.user.matchKeys, warnings: [] }
				: { ok: false, status: 'failed', reason: 'no identity', matchKeys: [], warnings: [] },
		sendChunk: async (payloads) => {
			sent.push(payloads);
			return answer(payloads);
		},
		previewRequest: (payloads) => ({ data: payloads }),
	};
	return { adapter, sent };
}

export const lead = (id: string, extra: Record<string, unknown> = {}) => ({
	record: {
		record_id: id,
		occurred_at: new Date().toISOString(),
		contact: { email: `${id}@example.com` },
		...extra,
	},
	eventName: 'Lead',
});

/** A run state as dispatch() starts it, with a memory store unless told otherwise. */
export function testRun(
	overrides: Partial<DispatchOptions<{ destination: string }, string>> = {},
	itemCount = 0,
) {
	const { adapter, sent } = testPlatform();
	const options: DispatchOptions<{ destination: string }, string> = {
		adapter,
		config: { destination: 'd1' },
		transport: new Transport(),
		store: new MemoryDedupStore(),
		...overrides,
	};
	return { run: startRun(options, itemCount), sent };
}
