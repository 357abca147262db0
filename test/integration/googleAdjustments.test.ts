import { createHash } from 'node:crypto';
import axios from 'axios';
import { ledgerKey, NO_ORIGINAL_IN_LEDGER, originalFromLedger, type HttpExecutor } from '../../shared';
import {
	adjustmentEventName,
	googleAdapter,
	googleAdjustmentAdapter,
	type GoogleAdjustment,
	type GoogleAdsConfig,
} from '../../shared/platforms/google';
import { crmLead as germanCrmLead } from '../support/leads';
import { fastTransport, senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleStandIn } = require('../standins/google.js');

/**
 * A CRM lead in Germany that agreed to ad data use: Google's EU user consent policy withholds the
 * email and phone of EEA leads without a consent signal (issue 13.7), which these tests are not about.
 */
const crmLead: typeof germanCrmLead = (i, overrides = {}) =>
	germanCrmLead(i, { consent: { ad_user_data: 'granted' }, ...overrides });


const DEVELOPER_TOKEN = 'dev-token-adjust-0123456789abcdef';
const CUSTOMER = '1234567890';
const ACTION = `customers/${CUSTOMER}/conversionActions/987654321`;
const DAY = 86_400_000;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const orderIdOf = (recordId: string, eventName = 'lead') =>
	sha(`${ACTION}|${eventName}|${recordId}`);

type StandIn = Awaited<ReturnType<typeof startGoogleStandIn>>;

function bearerExecutor(token: () => string): HttpExecutor {
	return async (request) => {
		const res = await axios.request({
			method: request.method,
			url: request.url,
			headers: {
				'content-type': 'application/json',
				...request.headers,
				authorization: `Bearer ${token()}`,
			},
			data: request.body === undefined ? undefined : JSON.stringify(request.body),
			timeout: request.timeoutMs,
			validateStatus: () => true,
			proxy: false,
		});
		const headers: Record<string, string> = {};
		for (const [k, v] of Object.entries(res.headers))
			if (v !== undefined) headers[k.toLowerCase()] = String(v);
		return { status: res.status, headers, data: res.data };
	};
}

describe('Google Ads API conversion adjustments through dispatch, against the loopback Google Ads and a real Redis', () => {
	const h = senderHarness('google-adjust');
	let standIn: StandIn;
	const config = (): GoogleAdsConfig => ({
		developerToken: DEVELOPER_TOKEN,
		customerId: CUSTOMER,
		conversionAction: ACTION,
		timeZone: 'America/Chicago',
		apiVersion: 'v26',
		baseUrl: standIn.url,
	});
	const transport = () => fastTransport({ executor: bearerExecutor(() => standIn.accessToken()) });
	const send = h.runner(googleAdapter, config, transport);
	const adjust = (adjustment: GoogleAdjustment) =>
		h.runner(googleAdjustmentAdapter(adjustment, 'lead'), config, transport);
	/** Dispatch items for an adjustment of these leads. */
	const items = (adjustment: GoogleAdjustment, leads: ReturnType<typeof crmLead>[]) =>
		leads.map((record) => ({
			record,
			eventName: adjustmentEventName(adjustment, 'lead', record.value),
		}));
	const uploads = () =>
		standIn.requests.filter((r: { path: string }) =>
			r.path.endsWith(':uploadConversionAdjustments'),
		);

	beforeAll(async () => {
		standIn = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			timeZone: 'America/Chicago',
		});
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it("a lost lead is retracted once by the original's order id; a re-run sends nothing", async () => {
		const leads = [0, 1, 2].map((i) => crmLead(i));
		expect(
			(await send(leads.map((record) => ({ record, eventName: 'lead' })))).map((r) => r.status),
		).toEqual(['sent', 'sent', 'sent']);
		const lost = leads
			.slice(0, 2)
			.map((l) => ({ ...l, occurred_at: new Date(Date.now() - DAY).toISOString() }));
		const first = await adjust('retraction')(items('retraction', lost));
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent']);
		expect(first[0]).toMatchObject({ event_name: 'retraction:lead', match_keys: ['orderId'] });
		expect(standIn.adjustments.map((a: { adjustment: unknown }) => a.adjustment)).toEqual([
			{
				conversionAction: ACTION,
				orderId: orderIdOf('deal-0'),
				adjustmentType: 'RETRACTION',
				adjustmentDateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}-0[56]:00$/),
			},
			expect.objectContaining({ orderId: orderIdOf('deal-1'), adjustmentType: 'RETRACTION' }),
		]);
		expect(uploads()).toHaveLength(1);
		expect(uploads()[0]).toMatchObject({ partialFailure: true, conversions: 2 });

		const again = await adjust('retraction')(items('retraction', lost));
		expect(again.map((r) => [r.status, r.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
		]);
		expect(uploads()).toHaveLength(1);
		expect(standIn.adjustments).toHaveLength(2);
	});

	it('a won lead is restated once per value; a new value is a new restatement, moving forward in time', async () => {
		const lead = crmLead(7);
		await send([{ record: lead, eventName: 'lead' }]);
		let clock = Date.now();
		const wonFor = (amount: number) => ({ ...lead, value: { amount, currency: 'usd' } });
		const run = (amount: number) =>
			h.runner(
				googleAdjustmentAdapter('restatement', 'lead', () => clock),
				config,
				transport,
			)(items('restatement', [wonFor(amount)]));
		expect((await run(1200))[0]).toMatchObject({
			status: 'sent',
			event_name: 'restatement:lead:1200:USD',
		});
		expect((await run(1200))[0]).toMatchObject({ status: 'duplicate', dedup: 'sent_before' });
		clock += 60_000;
		expect((await run(1500))[0]).toMatchObject({
			status: 'sent',
			event_name: 'restatement:lead:1500:USD',
		});
		const sent = standIn.adjustments.map(
			(a: { adjustment: { restatementValue: unknown; adjustmentDateTime: string } }) =>
				a.adjustment,
		);
		expect(sent.map((a: { restatementValue: unknown }) => a.restatementValue)).toEqual([
			{ adjustedValue: 1200, currencyCode: 'USD' },
			{ adjustedValue: 1500, currencyCode: 'USD' },
		]);
		expect(sent[1].adjustmentDateTime > sent[0].adjustmentDateTime).toBe(true);
		expect(uploads()).toHaveLength(2);
	});

	it('two new values of one lead in one batch: the first restates now, the second in the next run (later time, its value wins)', async () => {
		const lead = crmLead(8);
		await send([{ record: lead, eventName: 'lead' }]);
		let clock = Date.now();
		const wonFor = (amount: number) => ({ ...lead, value: { amount, currency: 'USD' } });
		const batch = items('restatement', [wonFor(1200), wonFor(1500)]);
		const restate = () =>
			h.runner(
				googleAdjustmentAdapter('restatement', 'lead', () => clock),
				config,
				transport,
			)(batch);
		const first = await restate();
		expect(first.map((r) => r.status)).toEqual(['sent', 'skipped']);
		expect(first[1]).toMatchObject({
			retryable: true,
			error: expect.stringMatching(/DUPLICATE_ADJUSTMENT_IN_REQUEST.*a later run sends it/),
		});
		clock += 5_000;
		const second = await restate();
		expect(second.map((r) => r.status)).toEqual(['duplicate', 'sent']);
		expect(
			standIn.adjustments.map(
				(a: { adjustment: { restatementValue: { adjustedValue: number } } }) =>
					a.adjustment.restatementValue.adjustedValue,
			),
		).toEqual([1200, 1500]);
	});

	it('one bad adjustment never sinks the batch; "already retracted" counts as done', async () => {
		const leads = [0, 1, 2, 3].map((i) => crmLead(i));
		// deal-1 was never uploaded (CONVERSION_NOT_FOUND); deal-2 was retracted in Google Ads already.
		await send([leads[0], leads[2], leads[3]].map((record) => ({ record, eventName: 'lead' })));
		await adjust('retraction')(items('retraction', [leads[2]]), {}, null);
		const results = await adjust('retraction')(items('retraction', leads));
		expect(results.map((r) => r.status)).toEqual(['sent', 'failed', 'duplicate', 'sent']);
		expect(results[1].error).toMatch(/conversion .* can't be found.*CONVERSION_NOT_FOUND/);
		expect(results[1].retryable).toBe(false);
		expect(results[2].warnings.join(' ')).toMatch(
			/already has this adjustment.*CONVERSION_ALREADY_RETRACTED/,
		);
		expect(uploads()).toHaveLength(2);
		// The failed one was released: once its conversion exists, a re-run retracts it and only it.
		standIn.seedConversions([
			{
				conversionAction: ACTION,
				orderId: orderIdOf('deal-1'),
				conversionDateTime: '2026-11-01 10:00:00-05:00',
			},
		]);
		const rerun = await adjust('retraction')(items('retraction', leads));
		expect(rerun.map((r) => r.status)).toEqual(['duplicate', 'sent', 'duplicate', 'duplicate']);
		expect(uploads()[2]).toMatchObject({ conversions: 1 });
	});

	it('refuses adjustments past the 54-day window locally, with the reason, and sends the rest', async () => {
		const fresh = crmLead(1);
		await send([{ record: fresh, eventName: 'lead' }]);
		const old = crmLead(2, { occurred_at: new Date(Date.now() - 60 * DAY).toISOString() });
		standIn.seedConversions([
			{
				conversionAction: ACTION,
				orderId: orderIdOf('deal-2'),
				conversionDateTime: '2026-01-01 10:00:00-06:00',
			},
		]);
		const results = await adjust('retraction')(items('retraction', [fresh, old]));
		expect(results.map((r) => r.status)).toEqual(['sent', 'skipped']);
		expect(results[1].error).toBe(
			'the conversion is 60 days old: Google takes adjustments only up to 54 days after the conversion (CONVERSION_EXPIRED); adjust it in Google Ads instead',
		);
		expect(
			standIn.adjustments.map((a: { adjustment: { orderId: string } }) => a.adjustment.orderId),
		).toEqual([orderIdOf('deal-1')]);
	});

	it('a restatement without a new value is skipped with the reason; validate only records nothing', async () => {
		const lead = crmLead(3);
		await send([{ record: lead, eventName: 'lead' }]);
		const results = await adjust('restatement')(items('restatement', [lead]));
		expect(results[0]).toMatchObject({
			status: 'skipped',
			error:
				'a restatement without value.amount and value.currency: it needs value.amount and value.currency (the new value of the conversion)',
		});
		const won = { ...lead, value: { amount: 90, currency: 'EUR' } };
		const validated = await h.runner(
			googleAdjustmentAdapter('restatement', 'lead'),
			() => ({ ...config(), validateOnly: true }),
			transport,
		)(items('restatement', [won]));
		expect(validated[0]).toMatchObject({
			status: 'skipped',
			error: expect.stringMatching(/^validate only/),
		});
		expect(uploads()[0]).toMatchObject({ validateOnly: true });
		expect(standIn.adjustments).toHaveLength(0);
		expect((await adjust('restatement')(items('restatement', [won])))[0].status).toBe('sent');
	});

	it('an adjustment for a lead the ledger does not know writes no first event: a later "From Stage Ledger" adjustment is skipped, never sent with an adjustment\'s order id', async () => {
		const withLedger = { ledger: {} };
		// deal-21's conversion reached Google before the ledger was kept (another tool, or the ledger off).
		standIn.seedConversions([
			{ conversionAction: ACTION, orderId: orderIdOf('deal-21'), conversionDateTime: '2026-11-01 10:00:00-05:00' },
		]);
		const won = crmLead(21, { value: { amount: 900, currency: 'USD' } });
		const restated = await h.runner(googleAdjustmentAdapter('restatement', 'lead'), config, transport)(
			items('restatement', [won]),
			withLedger,
		);
		expect(restated[0].status).toBe('sent');
		const hash = await h.admin.hgetall(ledgerKey(h.prefix, 'google', ACTION, 'deal-21'));
		// Recorded as sent (an adjustment field, never one of the lead's stages), but neither the
		// lead's first event nor its creation.
		expect(Object.keys(hash).filter((f) => f.startsWith('stage:') || f.startsWith('adj:'))).toEqual([
			'adj:restatement:lead:900:USD',
		]);
		expect(Object.keys(hash).filter((f) => f.startsWith('first_') || f === 'created')).toEqual([]);

		const fromLedger = originalFromLedger((original) => googleAdjustmentAdapter('retraction', original));
		const retracted = await h.runner(fromLedger, config, transport)(
			items('retraction', [crmLead(21)]).map((i) => ({ ...i, eventName: 'retraction:ledger' })),
			withLedger,
		);
		expect(retracted[0]).toMatchObject({ status: 'skipped', error: NO_ORIGINAL_IN_LEDGER });
		expect(standIn.adjustments).toHaveLength(1);

		// The lead's own conversion sent afterwards becomes its first event, and the ledger-based
		// retraction then adjusts that one: the order id of "lead".
		await send([{ record: crmLead(21), eventName: 'lead' }], withLedger);
		const after = await h.admin.hgetall(ledgerKey(h.prefix, 'google', ACTION, 'deal-21'));
		expect(after).toMatchObject({ first_event: 'lead', first_event_id: orderIdOf('deal-21') });
		const again = await h.runner(fromLedger, config, transport)(
			items('retraction', [crmLead(21)]).map((i) => ({ ...i, eventName: 'retraction:ledger' })),
			withLedger,
		);
		expect(again[0].status).toBe('sent');
		expect(standIn.adjustments[1].adjustment).toMatchObject({
			orderId: orderIdOf('deal-21'),
			adjustmentType: 'RETRACTION',
		});
	});
});

describe('the Google Ads stand-in answers uploadConversionAdjustments as Google documents', () => {
	let standIn: StandIn;
	const post = async (body: unknown) => {
		const res = await axios.post(
			`${standIn.url}/v26/customers/${CUSTOMER}:uploadConversionAdjustments`,
			body,
			{
				headers: {
					authorization: `Bearer ${standIn.accessToken()}`,
					'developer-token': DEVELOPER_TOKEN,
				},
				validateStatus: () => true,
				proxy: false,
			},
		);
		return res as { status: number; data: Record<string, any> };
	};
	const codes = (data: Record<string, any>) =>
		(data.partialFailureError?.details?.[0]?.errors ?? []).map(
			(e: {
				errorCode: Record<string, string>;
				location: { fieldPathElements: Array<{ index?: number }> };
			}) => `${e.location.fieldPathElements[0].index}:${Object.values(e.errorCode)[0]}`,
		);
	const adjustment = (orderId: string, type: string, at: string, value?: number) => ({
		conversionAction: ACTION,
		orderId,
		adjustmentType: type,
		adjustmentDateTime: at,
		...(value === undefined
			? {}
			: { restatementValue: { adjustedValue: value, currencyCode: 'USD' } }),
	});

	beforeAll(async () => {
		standIn = await startGoogleStandIn({
			developerToken: DEVELOPER_TOKEN,
			timeZone: 'America/Chicago',
		});
		const recent = new Date(Date.now() - 2 * DAY);
		const pad = (n: number) => String(n).padStart(2, '0');
		const at = `${recent.getUTCFullYear()}-${pad(recent.getUTCMonth() + 1)}-${pad(recent.getUTCDate())} 10:00:00+00:00`;
		standIn.seedConversions([
			{ conversionAction: ACTION, orderId: 'a', conversionDateTime: at },
			{ conversionAction: ACTION, orderId: 'b', conversionDateTime: at },
			{ conversionAction: ACTION, orderId: 'old', conversionDateTime: '2020-01-01 10:00:00+00:00' },
		]);
	});
	afterAll(() => standIn.close());

	it('requires partialFailure; reports each bad row by conversion_adjustments[i] and keeps the good ones', async () => {
		const refused = await post({
			conversionAdjustments: [adjustment('a', 'RETRACTION', '2030-01-01 00:00:00+00:00')],
		});
		expect(refused.status).toBe(400);
		expect(JSON.stringify(refused.data)).toContain('PARTIAL_FAILURE_MODE_REQUIRED');

		const now = '2030-01-01 00:00:00+00:00';
		const first = await post({
			partialFailure: true,
			conversionAdjustments: [
				adjustment('a', 'RESTATEMENT', now, 100),
				adjustment('missing', 'RETRACTION', now),
				adjustment('old', 'RETRACTION', now),
				adjustment('b', 'RETRACTION', '2000-01-01 00:00:00+00:00'),
				adjustment('b', 'RETRACTION', now, 5),
				adjustment('b', 'RESTATEMENT', now),
			],
		});
		expect(first.status).toBe(200);
		expect(codes(first.data)).toEqual([
			'1:CONVERSION_NOT_FOUND',
			'2:CONVERSION_EXPIRED',
			'3:ADJUSTMENT_PRECEDES_CONVERSION',
			'4:VALUE_MUST_BE_UNSET',
			'5:REQUIRED',
		]);
		expect(first.data.results[0]).toMatchObject({ orderId: 'a', adjustmentType: 'RESTATEMENT' });
		expect(first.data.results.slice(1)).toEqual([{}, {}, {}, {}, {}]);

		const second = await post({
			partialFailure: true,
			conversionAdjustments: [
				adjustment('a', 'RESTATEMENT', now, 100),
				adjustment('a', 'RESTATEMENT', '2029-12-31 00:00:00+00:00', 90),
				adjustment('b', 'RETRACTION', now),
			],
		});
		expect(codes(second.data)).toEqual([
			'0:RESTATEMENT_ALREADY_EXISTS',
			'1:MORE_RECENT_RESTATEMENT_FOUND',
		]);
		const third = await post({
			partialFailure: true,
			conversionAdjustments: [adjustment('b', 'RESTATEMENT', '2030-02-01 00:00:00+00:00', 7)],
		});
		expect(codes(third.data)).toEqual(['0:CONVERSION_ALREADY_RETRACTED']);
		expect(
			standIn.adjustments.map((a: { adjustment: { orderId: string } }) => a.adjustment.orderId),
		).toEqual(['a', 'b']);
	});
});
