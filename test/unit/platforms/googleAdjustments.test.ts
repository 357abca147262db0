import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { readEventContext } from '../../../shared/events/context';
import type { BuildContext, ItemResult } from '../../../shared/dispatch/types';
import { normalizeIdentity, renderIdentity } from '../../../shared/identity';
import {
	adjustmentEventName,
	classifyAdjustmentRowError,
	dataManagerRequestStats,
	dataManagerRestatementAdapter,
	dataManagerStatusStats,
	googleAdjustmentAdapter,
	googleDataManagerAdapter,
	readUploadOutcomes,
	ADJUSTMENT_UPLOAD_READING,
	statusDestinationId,
	type GoogleAdsConfig,
	type GoogleDataManagerConfig,
} from '../../../shared/platforms/google';
import { summarizeStats } from '../../../shared/stats';
import type { LeadRecord } from '../../../shared/types';
import { crmLead as germanCrmLead } from '../../support/leads';

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });


const ACTION = 'customers/1234567890/conversionActions/987654321';
const DAY = 86_400;
const NOW_MS = 1_796_000_000_000; // 2026-11-30T00:53:20Z
const NOW = NOW_MS / 1000;
// python3 -c "import hashlib;print(hashlib.sha256(b'customers/1234567890/conversionActions/987654321|lead|deal-4').hexdigest())"
const ORDER_ID_DEAL_4 = '12b2a840a2a7478a59ff5570630e420fcf1b17ec1fc289861f91c5ea39539603';

const adsConfig: GoogleAdsConfig = {
	developerToken: 'dev-token-123456',
	customerId: '1234567890',
	conversionAction: ACTION,
	timeZone: 'America/New_York',
};
const dmConfig: GoogleDataManagerConfig = {
	operatingAccountId: '1234567890',
	conversionActionId: '987654321',
};

function context(
	record: LeadRecord,
	eventTime: number,
	eventName = 'retraction:lead',
): BuildContext {
	const identity = normalizeIdentity(record, { eventTimeMs: eventTime * 1000 });
	return {
		record,
		eventName,
		eventId: 'e'.repeat(64),
		eventTime,
		identity,
		user: renderIdentity(identity, IDENTITY_PROFILES['google']),
		event: readEventContext(record, { identity }),
	};
}

describe('Google Ads API conversion adjustments: payload, window, event names', () => {
	const lead = crmLead(4);

	it("a retraction names the original's order id, the action and a later adjustment time in the account's zone", () => {
		const built = googleAdjustmentAdapter('retraction', 'lead', () => NOW_MS).buildEvent(
			context(lead, NOW - 3 * DAY),
			adsConfig,
		);
		expect(built).toEqual({
			ok: true,
			payload: {
				conversionAction: ACTION,
				orderId: ORDER_ID_DEAL_4,
				adjustmentType: 'RETRACTION',
				// TZ=America/New_York date -d @1796000000 '+%F %T%:z'
				adjustmentDateTime: '2026-11-29 19:53:20-05:00',
			},
			matchKeys: ['orderId'],
			warnings: [],
		});
	});

	it('a restatement carries the new value; without one it is skipped with the reason', () => {
		const adapter = googleAdjustmentAdapter('restatement', 'lead', () => NOW_MS);
		const won = { ...lead, value: { amount: '1,200.50', currency: 'usd' } };
		const built = adapter.buildEvent(context(won, NOW - DAY), adsConfig);
		expect(built.ok && built.payload.restatementValue).toEqual({
			adjustedValue: 1200.5,
			currencyCode: 'USD',
		});
		expect(built.ok && built.payload.adjustmentType).toBe('RESTATEMENT');
		expect(adapter.buildEvent(context(lead, NOW - DAY), adsConfig)).toMatchObject({
			ok: false,
			status: 'skipped',
			reason:
				'a restatement without value.amount and value.currency: it needs value.amount and value.currency (the new value of the conversion)',
		});
	});

	it('is refused past 54 days after the conversion, on both APIs, and taken at 54', () => {
		const ads = googleAdjustmentAdapter('retraction', 'lead', () => NOW_MS);
		const dm = dataManagerRestatementAdapter(googleDataManagerAdapter, 'lead', () => NOW_MS);
		const won = { ...lead, value: { amount: 10, currency: 'EUR' } };
		expect(ads.buildEvent(context(lead, NOW - 54 * DAY), adsConfig).ok).toBe(true);
		expect(dm.buildEvent(context(won, NOW - 54 * DAY), dmConfig).ok).toBe(true);
		const tooOld =
			/^the conversion is 54 days old: Google takes adjustments only up to 54 days after the conversion \(CONVERSION_EXPIRED\)/;
		expect(ads.buildEvent(context(lead, NOW - 54 * DAY - 1), adsConfig)).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(tooOld),
		});
		expect(dm.buildEvent(context(won, NOW - 54 * DAY - 1), dmConfig)).toMatchObject({
			ok: false,
			status: 'skipped',
			reason: expect.stringMatching(tooOld),
		});
	});

	it('the adjustment time is always after the conversion time (moving forward only)', () => {
		const built = googleAdjustmentAdapter('retraction', 'lead', () => NOW_MS).buildEvent(
			context(lead, NOW),
			adsConfig,
		);
		expect(built.ok && built.payload.adjustmentDateTime).toBe('2026-11-29 19:53:21-05:00');
	});

	it('dedups a retraction once per lead and original event, a restatement per value', () => {
		expect(adjustmentEventName('retraction', 'lead', { amount: 5, currency: 'USD' })).toBe(
			'retraction:lead',
		);
		expect(adjustmentEventName('restatement', 'lead', { amount: 5, currency: 'usd' })).toBe(
			'restatement:lead:5:USD',
		);
		expect(adjustmentEventName('restatement', 'purchase', undefined)).toBe(
			'restatement:purchase:none',
		);
	});

	it('the dispatcher never clamps the conversion time into a window (the refusal reports the true age)', () => {
		expect(googleAdjustmentAdapter('retraction', 'lead').eventTimeWindow.seconds).toBeGreaterThan(
			100 * 365 * DAY,
		);
		expect(
			dataManagerRestatementAdapter(googleDataManagerAdapter, 'lead').eventTimeWindow.seconds,
		).toBeGreaterThan(100 * 365 * DAY);
	});
});

describe('Google Ads API adjustment answers', () => {
	const error = (
		code: string,
		index: number | undefined,
		fieldName = 'conversion_adjustments',
	) => ({
		errorCode: { conversionAdjustmentUploadError: code },
		message: `message of ${code}`,
		location: { fieldPathElements: [{ fieldName, ...(index === undefined ? {} : { index }) }] },
	});

	it('"already adjusted" counts as done, too-recent is retried later, the rest fails the row', () => {
		const verdict = (code: string) => classifyAdjustmentRowError(error(code, 0));
		expect(
			[
				'CONVERSION_ALREADY_RETRACTED',
				'RESTATEMENT_ALREADY_EXISTS',
				'MORE_RECENT_RESTATEMENT_FOUND',
			].map(verdict),
		).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(
			[
				'TOO_RECENT_CONVERSION',
				'TOO_RECENT_CONVERSION_ACTION',
				'DUPLICATE_ADJUSTMENT_IN_REQUEST',
			].map(verdict),
		).toEqual(['retry_later', 'retry_later', 'retry_later']);
		expect(
			['CONVERSION_NOT_FOUND', 'CONVERSION_EXPIRED', 'ADJUSTMENT_PRECEDES_CONVERSION'].map(verdict),
		).toEqual(['failed', 'failed', 'failed']);
		// A click-upload code of the same name is not an adjustment answer.
		expect(
			classifyAdjustmentRowError({
				errorCode: { conversionUploadError: 'CONVERSION_ALREADY_RETRACTED' },
			}),
		).toBe('failed');
	});

	it('maps row errors by conversion_adjustments[i] (snake or camel case; index 0 may be left out)', () => {
		const data = {
			results: [{}, { orderId: 'b' }, {}],
			partialFailureError: {
				code: 3,
				details: [
					{
						'@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
						errors: [
							error('CONVERSION_NOT_FOUND', undefined),
							error('CONVERSION_ALREADY_RETRACTED', 2, 'conversionAdjustments'),
						],
						requestId: 'req-1',
					},
				],
			},
		};
		const outcomes = readUploadOutcomes(data, 3, false, ADJUSTMENT_UPLOAD_READING);
		expect(outcomes.map((o) => o.status)).toEqual(['failed', 'sent', 'duplicate']);
		expect(outcomes[0]).toMatchObject({
			error:
				'Google Ads: message of CONVERSION_NOT_FOUND [conversionAdjustmentUploadError: CONVERSION_NOT_FOUND, request_id req-1]',
			retryable: false,
		});
		expect(outcomes[2]).toMatchObject({
			warning: expect.stringMatching(
				/^Google already has this adjustment \(or a later one\) for this conversion: /,
			),
		});
	});
});

describe('Data Manager requests in the health report', () => {
	const sent = (
		request_id: string | undefined,
		status: ItemResult['status'] = 'sent',
	): ItemResult => ({
		status,
		platform: 'google',
		destination: ACTION,
		event_name: 'lead',
		match_keys: [],
		warnings: [],
		response: request_id ? { request_id } : undefined,
	});

	it('counts the events each request carried, per destination, and lists the newest first with their status', () => {
		const t0 = NOW_MS;
		const first = dataManagerRequestStats(
			[sent('req-a'), sent('req-a'), sent('req-b'), sent(undefined), sent('req-x', 'failed')],
			'p',
			t0,
		);
		expect(first).toEqual([
			{
				key: `p:stats:google:${ACTION}:2026113000`,
				platform: 'google',
				destination: ACTION,
				increments: { [`req:${NOW}:req-a`]: 2, [`req:${NOW}:req-b`]: 1 },
				ttlMs: 49 * 3_600_000,
			},
		]);
		const later = dataManagerRequestStats([sent('req-c')], 'p', t0 + 60_000)[0];
		const bucket: Record<string, string> = { _platform: 'google', _destination: ACTION, sent: '4' };
		for (const increments of [
			first[0].increments,
			later.increments,
			dataManagerStatusStats(ACTION, 'req-a', 'PROCESSING', 'p', t0).increments,
			dataManagerStatusStats(ACTION, 'req-a', 'SUCCESS', 'p', t0).increments,
		])
			for (const [field, n] of Object.entries(increments))
				bucket[field] = String(Number(bucket[field] ?? 0) + n);
		const [report] = summarizeStats([bucket], 24);
		expect(report.sent).toBe(4);
		expect(report.requests).toEqual([
			{ request_id: 'req-c', sent_at: '2026-11-30T00:54:20.000Z', events: 1, status: 'ACCEPTED' },
			{ request_id: 'req-a', sent_at: '2026-11-30T00:53:20.000Z', events: 2, status: 'SUCCESS' },
			{ request_id: 'req-b', sent_at: '2026-11-30T00:53:20.000Z', events: 1, status: 'ACCEPTED' },
		]);
		expect(JSON.stringify(report)).not.toMatch(/@|deal-/);
	});

	it('a final status is never replaced by an earlier PROCESSING read; the report keeps the last 5 requests', () => {
		const bucket: Record<string, string> = { _platform: 'google', _destination: ACTION };
		for (let i = 0; i < 7; i++) bucket[`req:${NOW + i}:r${i}`] = '1';
		bucket['req_status:r6:FAILED'] = '1';
		bucket['req_status:r6:PROCESSING'] = '3';
		const [report] = summarizeStats([bucket], 24);
		expect(report.requests!.map((r) => `${r.request_id}:${r.status}`)).toEqual([
			'r6:FAILED',
			'r5:ACCEPTED',
			'r4:ACCEPTED',
			'r3:ACCEPTED',
			'r2:ACCEPTED',
		]);
		expect(
			summarizeStats([{ _platform: 'meta', _destination: 'px', sent: '1' }], 24)[0].requests,
		).toBeUndefined();
	});

	it('reads the destination of a status Google echoes', () => {
		expect(
			statusDestinationId({
				operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
				productDestinationId: '987654321',
			}),
		).toBe(ACTION);
		expect(statusDestinationId({})).toBeUndefined();
	});
});
