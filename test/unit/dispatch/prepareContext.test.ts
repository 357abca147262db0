import {
	googleAdapter,
	metaAdapter,
	microsoftAdapter,
	pinterestAdapter,
	tiktokAdapter,
	Transport,
	type PlatformAdapter,
} from '../../../shared';
import { planRun } from '../../../shared/dispatch/plan';
import { prepareEvent } from '../../../shared/dispatch/prepare';
import { startRun } from '../../../shared/dispatch/runState';
import { googleDataManagerAdapter } from '../../../shared/platforms/google';
import type { LeadRecord } from '../../../shared/types';

/**
 * A lead record that logs every property read (dotted path), the way a builder re-reading the
 * raw record would show up. The record is a plain object behind a Proxy: nothing of ours is
 * replaced, the real prepare stage and the real builders run.
 */
function watched(record: LeadRecord): { record: LeadRecord; reads: string[] } {
	const reads: string[] = [];
	const wrap = (target: object, path: string): object =>
		new Proxy(target, {
			get(obj, key, receiver) {
				const value = Reflect.get(obj, key, receiver);
				if (typeof key !== 'string') return value;
				const at = path ? `${path}.${key}` : key;
				reads.push(at);
				return value !== null && typeof value === 'object' ? wrap(value, at) : value;
			},
		});
	return { record: wrap(record, '') as LeadRecord, reads };
}

const lead = (id: string): LeadRecord => ({
	record_id: id,
	occurred_at: new Date().toISOString(),
	contact: { email: `${id}@example.com`, phone: '+1 650 555 1212', country: 'US', region: 'CA' },
	client: { ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' },
	click: { gclid: 'Cj0KCQ-test', msclkid: 'b1e6a4f3c2d54b0e9a7f1c2d3e4f5a6b', ttclid: 'E.C.P.x' },
	consent: { ad_user_data: 'granted', ad_personalization: 'granted', limited_data_use: 'no' },
	value: { amount: 120, currency: 'USD' },
	source: { page_url: 'https://example.com/pricing', referrer: 'https://www.bing.com/' },
});

// The five platforms of a fan-out (Google through either API), each with a working config.
const FAN_OUT: Array<[string, PlatformAdapter<any, unknown>, unknown, string]> = [
	[
		'Meta',
		metaAdapter,
		{ pixelId: '42', accessToken: 't', actionSource: 'auto', limitedDataUse: 'auto' },
		'Lead',
	],
	[
		'Pinterest',
		pinterestAdapter,
		{
			adAccountId: '549755885175',
			accessToken: 't',
			actionSource: 'auto',
			limitedDataProcessing: 'auto',
		},
		'lead',
	],
	[
		'TikTok',
		tiktokAdapter,
		{ pixelCode: 'PX', accessToken: 't', eventSource: 'web', limitedDataUse: 'auto' },
		'SubmitForm',
	],
	[
		'Microsoft',
		microsoftAdapter,
		{ uetTagId: '187072955', apiToken: 't', eventType: 'custom' },
		'lead',
	],
	[
		'Google Ads',
		googleAdapter,
		{
			developerToken: 't',
			customerId: '1234567890',
			conversionAction: 'customers/1234567890/conversionActions/1',
			timeZone: 'UTC',
		},
		'lead',
	],
	[
		'Google Data Manager',
		googleDataManagerAdapter,
		{ operatingAccountId: '1234567890', conversionActionId: '987654321' },
		'lead',
	],
];

/**
 * Context fields whose every read is counted (inside readValue the amount is looked at several
 * times while it is parsed; `value` itself is fetched once per reading).
 */
const CONTEXT_PATHS = [
	'consent',
	'consent.ad_user_data',
	'consent.ad_personalization',
	'consent.limited_data_use',
	'value',
	'source.referrer',
];

function prepareWatched(
	adapter: PlatformAdapter<any, unknown>,
	config: unknown,
	eventName: string,
	ids: string[],
) {
	const run = startRun({ adapter, config, transport: new Transport(), store: null }, ids.length);
	const records = ids.map((id) => watched(lead(id)));
	const { candidates } = planRun(
		run,
		records.map(({ record }) => ({ record, eventName })),
	);
	for (const { reads } of records) reads.length = 0;
	const payloads = candidates.map((c) => prepareEvent(run, c));
	return { run, payloads, records };
}

describe('prepare: the event context is read once per lead, never by the builders', () => {
	it.each(FAN_OUT)(
		'%s: each context field of each lead is read exactly once',
		(_name, adapter, config, eventName) => {
			const { run, payloads, records } = prepareWatched(adapter, config, eventName, ['a', 'b']);
			expect(run.results.map((r) => r.error)).toEqual([undefined, undefined]);
			expect(payloads.every((p) => p !== null)).toBe(true);
			for (const { reads } of records) {
				const counts = CONTEXT_PATHS.map((path) => [path, reads.filter((r) => r === path).length]);
				expect(counts).toEqual(CONTEXT_PATHS.map((path) => [path, 1]));
			}
		},
	);

	it('a five-platform fan-out of one lead reads its consent and value once per platform run, all in prepare', () => {
		const reads: string[] = [];
		for (const [, adapter, config, eventName] of FAN_OUT) {
			reads.push(...prepareWatched(adapter, config, eventName, ['fan'])[`records`][0].reads);
		}
		expect(reads.filter((r) => r === 'consent')).toHaveLength(FAN_OUT.length);
		expect(reads.filter((r) => r === 'value')).toHaveLength(FAN_OUT.length);
	});
});
