import {
	DEFAULT_COMMITTED_TTL_MS,
	metaAdapter,
	microsoftAdapter,
	pinterestAdapter,
	tiktokAdapter,
	type DispatchItem,
	type ItemResult,
	type PlatformAdapter,
} from '../../shared';
import { crmLead, webLead } from '../support/leads';
import { leadItems, senderHarness } from '../support/senderHarness';
/* eslint-disable @typescript-eslint/no-require-imports */
const { startMetaStandIn } = require('../standins/meta.js');
const { startPinterestStandIn } = require('../standins/pinterest.js');
const { startMicrosoftStandIn } = require('../standins/microsoft.js');
const { startTiktokStandIn } = require('../standins/tiktok.js');
/* eslint-enable @typescript-eslint/no-require-imports */

/** What each stand-in shares: its log, its fault queue. */
interface StandIn {
	url: string;
	received: Array<{ event: Record<string, unknown> }>;
	requests: unknown[];
	queueFaults(faults: Array<{ kind: string }>): void;
	pendingFaults(): number;
	reset(): void;
	close(): Promise<void>;
}

/** A platform as the tests drive it: its stand-in, its adapter and config, its event-id field. */
interface Case {
	name: string;
	start: () => Promise<StandIn>;
	adapter: PlatformAdapter<unknown, unknown>;
	config: (url: string) => unknown;
	idOf: (event: Record<string, unknown>) => string;
	items: (n: number) => DispatchItem[];
}

const META_TOKEN = 'meta-access-token-unknown-0123456789';
const PIN_TOKEN = 'pina_conversion-token-0123456789';
const MS_TOKEN = 'uet-capi-auth-key-0123456789abcdef';
const TT_TOKEN = 'tt-events-api-token-0123456789abcdef';

const HOLDING: Case[] = [
	{
		name: 'Meta',
		start: () => startMetaStandIn({ accessToken: META_TOKEN }),
		adapter: metaAdapter as PlatformAdapter<unknown, unknown>,
		config: (url) => ({
			pixelId: '700000000000011',
			accessToken: META_TOKEN,
			baseUrl: url,
			actionSource: 'auto',
			limitedDataUse: 'auto',
		}),
		idOf: (e) => String(e.event_id),
		items: (n) => leadItems(n, crmLead, 'Lead'),
	},
	{
		name: 'Pinterest',
		start: () => startPinterestStandIn({ accessToken: PIN_TOKEN, adAccountIds: ['549755885175'] }),
		adapter: pinterestAdapter as PlatformAdapter<unknown, unknown>,
		config: (url) => ({
			adAccountId: '549755885175',
			accessToken: PIN_TOKEN,
			baseUrl: url,
			actionSource: 'auto',
			limitedDataProcessing: 'auto',
		}),
		idOf: (e) => String(e.event_id),
		items: (n) => leadItems(n, webLead, 'lead'),
	},
	{
		name: 'Microsoft',
		start: () => startMicrosoftStandIn({ apiToken: MS_TOKEN, uetTagId: '187072955' }),
		adapter: microsoftAdapter as PlatformAdapter<unknown, unknown>,
		config: (url) => ({
			uetTagId: '187072955',
			apiToken: MS_TOKEN,
			baseUrl: url,
			eventType: 'custom',
		}),
		idOf: (e) => String(e.eventId),
		items: (n) => leadItems(n, webLead, 'lead'),
	},
];

const TIKTOK: Case = {
	name: 'TikTok',
	start: () => startTiktokStandIn({ accessToken: TT_TOKEN, pixelCode: 'C4TESTPIXEL0009' }),
	adapter: tiktokAdapter as PlatformAdapter<unknown, unknown>,
	config: (url) => ({
		pixelCode: 'C4TESTPIXEL0009',
		accessToken: TT_TOKEN,
		baseUrl: url,
		eventSource: 'web',
		limitedDataUse: 'auto',
	}),
	idOf: (e) => String(e.event_id),
	items: (n) => leadItems(n, webLead, 'SubmitForm'),
};

function countBy(values: string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
	return counts;
}

/** A platform stand-in that accepts the request and then drops the connection before answering. */
function withStandIn(c: Case) {
	const h = senderHarness(`unknown-${c.name.toLowerCase()}`);
	let standIn: StandIn;
	beforeAll(async () => {
		standIn = await c.start();
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());
	const run = (items: DispatchItem[], overrides = {}): Promise<ItemResult[]> =>
		h.runner(c.adapter, () => c.config(standIn.url))(items, overrides);
	const deliveries = () => countBy(standIn.received.map((r) => c.idOf(r.event)));
	return { h, run, deliveries, standIn: () => standIn };
}

describe.each(HOLDING)(
	'$name (does not document dropping a resend of the same id): accepted, connection dropped before the answer',
	(c) => {
		const { h, run, deliveries, standIn } = withStandIn(c);

		it('delivered once, not resent; items outcome_unknown and held; the re-run sends nothing and says held', async () => {
			const items = c.items(5);
			standIn().queueFaults([{ kind: 'accept-reset' }]);
			const first = await run(items);
			expect(first.map((r) => [r.status, r.dedup, r.outcome_unknown, r.retryable])).toEqual(
				items.map(() => ['failed', 'held', true, false]),
			);
			expect(first[0].error).toMatch(/\(not resent: the request may have reached the platform\)$/);
			expect(first[0].warnings.join(' ')).toMatch(
				/outcome unknown: .* It is held, not resent .*check the platform's events manager.*Resend.*UNCONFIRMED/,
			);
			// One request; each event reached the platform exactly once.
			expect(standIn().requests).toHaveLength(1);
			expect([...deliveries().values()]).toEqual(items.map(() => 1));
			expect([...deliveries().keys()].sort()).toEqual(first.map((r) => r.event_id).sort());

			// The held marker lives as long as a sent marker.
			const key = (await h.admin.keys(`${h.prefix}:*`)).find((k) => !k.includes(':stats:'))!;
			expect(await h.admin.get(key)).toBe('u');
			expect(await h.admin.pttl(key)).toBeGreaterThan(DEFAULT_COMMITTED_TTL_MS - 60_000);

			const rerun = await run(items);
			expect(standIn().requests).toHaveLength(1);
			expect(rerun.map((r) => [r.status, r.dedup, r.outcome_unknown])).toEqual(
				items.map(() => ['skipped', 'held', true]),
			);
			expect(rerun[0].error).toMatch(/^not sent: an earlier run sent this event and got no answer/);

			// After checking the events manager, the user resends: the same ids, once more.
			const resent = await run(items, { afterUnknownOutcome: 'resend' });
			expect(resent.map((r) => r.status)).toEqual(items.map(() => 'sent'));
			expect([...deliveries().values()]).toEqual(items.map(() => 2));
			expect((await run(items)).map((r) => r.dedup)).toEqual(items.map(() => 'sent_before'));
		});
	},
);

describe('TikTok (drops a resend of the same event_id within 48 h): accepted, connection dropped before the answer', () => {
	const { run, deliveries, standIn } = withStandIn(TIKTOK);

	it('resent in the run with the same event ids, acknowledged, recorded once', async () => {
		const items = TIKTOK.items(5);
		standIn().queueFaults([{ kind: 'accept-reset' }]);
		const first = await run(items);
		expect(first.map((r) => r.status)).toEqual(items.map(() => 'sent'));
		expect(standIn().requests).toHaveLength(2);
		expect([...deliveries().values()]).toEqual(items.map(() => 2));
		expect([...deliveries().keys()].sort()).toEqual(first.map((r) => r.event_id).sort());
		expect((await run(items)).map((r) => r.dedup)).toEqual(items.map(() => 'sent_before'));
	});

	it('dropped on every attempt: outcome_unknown, released, says a resend is safe; the re-run resends the same ids', async () => {
		const items = TIKTOK.items(3);
		standIn().queueFaults(Array.from({ length: 4 }, () => ({ kind: 'accept-reset' })));
		const first = await run(items);
		expect(first.map((r) => [r.status, r.dedup, r.outcome_unknown, r.retryable])).toEqual(
			items.map(() => ['failed', 'released', true, true]),
		);
		expect(first[0].warnings.join(' ')).toMatch(
			/A retry resends it with the same event id, which is safe: TikTok drops/,
		);
		const rerun = await run(items);
		expect(rerun.map((r) => r.status)).toEqual(items.map(() => 'sent'));
		expect(rerun.map((r) => r.event_id)).toEqual(first.map((r) => r.event_id));
		expect([...deliveries().values()]).toEqual(items.map(() => 5));
		expect(standIn().pendingFaults()).toBe(0);
	});

	it('Hold (the sender option) holds it on TikTok too', async () => {
		const items = TIKTOK.items(2);
		standIn().queueFaults([{ kind: 'accept-reset' }]);
		const first = await run(items, { afterUnknownOutcome: 'hold' });
		expect(first.map((r) => r.dedup)).toEqual(['held', 'held']);
		expect((await run(items)).map((r) => r.status)).toEqual(['sent', 'sent']);
	});
});
