import fc from 'fast-check';
import { dispatch, normalizeIdentity, parseTimeMs, Transport, type ItemResult } from '../../shared';
import { hashSha256 as sha256 } from '../../shared/identity';
import { PLATFORM_ADAPTERS } from '../../shared/platforms';
import { LEAD_RECORD_FIELDS } from '../../shared/record';
import { LEAD_STATES, PLATFORMS, type LeadRecord, type Platform } from '../../shared/types';
import {
	checkProperty,
	hashedValueDetector,
	hostileString,
	hostileFieldValue,
	must,
	mustNotEchoEmailOrPhone,
	rawTexts,
} from '../support/hostile';

/**
 * Whole lead records, every section hostile, through each platform's real path (normalize,
 * render, build: dispatch in dry-run mode, no store, nothing sent): nothing throws, one result
 * per item, and in every payload built every field the platform takes hashed passes the
 * raw-value detector (never the hash of ""), no value is "", and no secret of the configuration
 * shows anywhere in the result.
 */

const NOW = Date.parse('2026-03-02T10:00:00Z');
const SECRETS = {
	meta: 'meta-token-PROPERTY-1b2c3d',
	metaAppSecret: 'meta-app-secret-PROPERTY-4e5f',
	pinterest: 'pinterest-token-PROPERTY-6a7b',
	tiktok: 'tiktok-token-PROPERTY-8c9d',
	google: 'google-dev-token-PROPERTY-0e1f',
	microsoft: 'microsoft-token-PROPERTY-2a3b',
};

const CONFIGS: Record<Platform, unknown> = {
	meta: {
		pixelId: '42',
		accessToken: SECRETS.meta,
		appSecret: SECRETS.metaAppSecret,
		actionSource: 'auto',
		limitedDataUse: 'auto',
	},
	pinterest: {
		adAccountId: '549755885175',
		accessToken: SECRETS.pinterest,
		actionSource: 'auto',
		limitedDataProcessing: 'auto',
	},
	tiktok: {
		pixelCode: 'CPIXEL',
		accessToken: SECRETS.tiktok,
		eventSource: 'web',
		limitedDataUse: 'auto',
	},
	google: {
		developerToken: SECRETS.google,
		customerId: '1234567890',
		conversionAction: 'customers/1234567890/conversionActions/987',
		timeZone: 'UTC',
	},
	microsoft: { uetTagId: '343210', apiToken: SECRETS.microsoft, eventType: 'custom' },
};

type Hashed = Array<[string, unknown]>;
const listed = (key: string, value: unknown): Hashed =>
	(Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => [key, v]);
const pick = (data: unknown, keys: readonly string[]): Hashed =>
	keys.flatMap((key) => listed(key, (data as Record<string, unknown> | undefined)?.[key]));

/**
 * Where each platform's request carries hashed customer information: the keys its stand-in
 * (test/standins, written from platforms.md) requires as SHA-256, and Google's identifiers.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const HASHED_KEYS: Record<Exclude<Platform, 'google'>, string[]> = {
	meta: require('../standins/meta.js').HASHED_KEYS,
	pinterest: require('../standins/pinterest.js').HASHED_KEYS,
	tiktok: require('../standins/tiktok.js').HASHED_KEYS,
	microsoft: require('../standins/microsoft.js').HASHED_KEYS,
};
/* eslint-enable @typescript-eslint/no-require-imports */
const HASHED_IN_PAYLOAD: Record<Platform, (payload: Record<string, unknown>) => Hashed> = {
	meta: (p) => pick(p.user_data, HASHED_KEYS.meta),
	pinterest: (p) => pick(p.user_data, HASHED_KEYS.pinterest),
	tiktok: (p) => pick(p.user, HASHED_KEYS.tiktok),
	google: (p) =>
		((p.userIdentifiers as unknown[]) ?? []).flatMap((entry) =>
			pick(entry, ['hashedEmail', 'hashedPhoneNumber']),
		),
	microsoft: (p) => pick(p.userData, HASHED_KEYS.microsoft),
};

/** Every string in a value, with its path. */
function strings(value: unknown, path = '', depth = 0): Array<[string, string]> {
	if (typeof value === 'string') return [[path, value]];
	if (depth > 8 || value === null || typeof value !== 'object') return [];
	return Object.entries(value).flatMap(([key, inner]) =>
		strings(inner, `${path}.${key}`, depth + 1),
	);
}

const fields = (keys: readonly string[]) =>
	fc.oneof(
		{
			weight: 9,
			arbitrary: fc.record(Object.fromEntries(keys.map((key) => [key, hostileFieldValue])), {
				requiredKeys: [],
			}),
		},
		{ weight: 1, arbitrary: hostileFieldValue },
	);

const recentIso = fc
	.integer({ min: 60, max: 6 * 24 * 3600 })
	.map((s) => new Date(NOW - s * 1000).toISOString());
/** The record's sections and their fields, as the canonical record defines them. */
const SECTIONS = new Map<string, string[]>();
for (const path of LEAD_RECORD_FIELDS) {
	const [section, field] = path.split('.');
	if (field !== undefined) SECTIONS.set(section, [...(SECTIONS.get(section) ?? []), field]);
}

const record: fc.Arbitrary<LeadRecord> = fc.record(
	{
		record_id: fc.oneof(
			{ weight: 4, arbitrary: fc.constantFrom('rec-1', 'crm-42') },
			{ weight: 1, arbitrary: hostileFieldValue },
		),
		state: fc.oneof(fc.constantFrom(...LEAD_STATES), hostileString),
		occurred_at: fc.oneof(
			{ weight: 4, arbitrary: recentIso },
			{ weight: 1, arbitrary: hostileFieldValue },
		),
		...Object.fromEntries([...SECTIONS].map(([section, keys]) => [section, fields(keys)])),
		attributes: fc.oneof(
			fc.object({ maxDepth: 2 }),
			fields(['utm_source', 'uetvid', 'tiktok_lead_id', 'transaction_id']),
		),
	},
	{ requiredKeys: [] },
) as fc.Arbitrary<LeadRecord>;

function mustBeSafeResult(
	platform: Platform,
	result: ItemResult,
	raws: readonly string[],
	piiRaws: readonly string[],
): void {
	must(
		['sent', 'duplicate', 'skipped', 'failed'].includes(result.status),
		() => `status ${result.status}`,
	);
	const text = JSON.stringify(result);
	for (const secret of Object.values(SECRETS))
		must(!text.includes(secret), () => `${platform}: a secret in the result`);
	mustNotEchoEmailOrPhone([...result.warnings, result.error ?? ''], piiRaws);
	if (result.payload === undefined) return;
	const payload = result.payload as Record<string, unknown>;
	const rawIn = hashedValueDetector(raws);
	for (const [key, value] of HASHED_IN_PAYLOAD[platform](payload)) {
		const problem = rawIn(value);
		must(problem === null, () => `${platform} payload ${key}: ${problem}`);
	}
	for (const [path, value] of strings(payload)) {
		must(value !== '', () => `${platform} payload ${path} is ""`);
	}
}

/**
 * Issue 13.7, per platform: Pinterest's zp is the hash of a digits-only code; an event time is
 * never rewritten into the past (outside a window the item is skipped, under the default policy).
 */
function mustFollowPlatformDocuments(
	platform: Platform,
	lead: LeadRecord,
	result: ItemResult,
	defaultCountry: string | undefined,
): void {
	const payload = result.payload as { user_data?: { zp?: string[] } } | undefined;
	if (platform === 'pinterest' && payload?.user_data?.zp) {
		const codes = normalizeIdentity(lead, { defaultCountry }).values.postal_code ?? [];
		// A value that arrived hashed passes through: its clear form is not ours to check.
		const allowed = codes.map((c) => (/^[0-9a-f]{64}$/.test(c) ? c : /^\d+$/.test(c) ? sha256(c) : null));
		for (const zp of payload.user_data.zp) {
			must(allowed.includes(zp), () => 'pinterest zp is not the hash of a digits-only postal code');
		}
	}
	const occurred = parseTimeMs(lead.occurred_at);
	if (result.event_time !== undefined && occurred !== null && occurred <= NOW) {
		must(
			result.event_time === Math.floor(occurred / 1000),
			() => `${platform}: event_time ${result.event_time} rewritten from ${occurred}`,
		);
	}
}

const PII_KEYS = ['email', 'phone', 'first_name', 'last_name', 'date_of_birth', 'external_id'];

describe('every platform adapter under 10,000 hostile lead records', () => {
	it('builds only safe payloads: hashed fields pass the raw-value detector, no "", no secret anywhere', async () => {
		const transport = new Transport();
		await checkProperty(
			fc.asyncProperty(
				record,
				fc.constantFrom(undefined, 'US', 'Germany'),
				async (lead, defaultCountry) => {
					const raws = rawTexts(lead);
					const contact = lead.contact;
					const piiRaws =
						typeof contact === 'object' && contact !== null && !Array.isArray(contact)
							? PII_KEYS.flatMap((key) => rawTexts((contact as Record<string, unknown>)[key]))
							: [];
					for (const platform of PLATFORMS) {
						const adapter = PLATFORM_ADAPTERS[platform];
						const results = await dispatch(
							[{ record: lead, eventName: adapter.eventNameByState.lead }],
							{
								adapter,
								config: CONFIGS[platform],
								transport,
								store: null,
								mode: { kind: 'dryRun' },
								defaultCountry,
								clock: () => NOW,
							},
						);
						must(results.length === 1, () => `${platform}: ${results.length} results for one item`);
						mustBeSafeResult(platform, results[0], raws, piiRaws);
						mustFollowPlatformDocuments(platform, lead, results[0], defaultCountry);
					}
				},
			),
		);
	});
});
