import {
	metaAdapter,
	readLeadRecord,
	type DispatchItem,
	type LeadRecord,
	type meta,
} from '../../shared';
import { senderHarness } from '../support/senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const TOKEN = 'EAAG-crm-test-token-0123456789';
const PIXEL = '998877665544';
const LEAD_ID = '1234567890123456';

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;

/** An item exactly as n8n's Facebook Lead Ads Trigger outputs it (simplified output). */
function facebookLeadAdsItem(createdMs: number) {
	return {
		id: LEAD_ID,
		data: {
			email: 'Ann.Lee@Example.com',
			full_name: 'Ann Lee',
			phone_number: '+16505551212',
			budget: '10k',
		},
		form: { id: '5550001112223', name: 'Quote form', locale: 'en_US', status: 'ACTIVE' },
		ad: { id: '120200000000001', name: 'Ad A' },
		adset: { id: '120200000000002', name: 'Adset A' },
		page: { id: '100000000000001', name: 'Page' },
		created_time: new Date(createdMs).toISOString().replace('.000Z', '+0000'),
	};
}

describe("Meta Conversion Leads: a lead from Meta's instant forms and its CRM stages, against the loopback Meta", () => {
	const h = senderHarness('meta');
	let standIn: StandIn;
	const config = (): meta.MetaConfig => ({
		pixelId: PIXEL,
		accessToken: TOKEN,
		baseUrl: standIn.url,
		actionSource: 'system_generated',
		limitedDataUse: 'never',
		eventSource: 'crm',
		leadEventSource: 'HubSpot',
	});
	const run = h.runner(metaAdapter, config);

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN });
	});
	beforeEach(() => standIn.reset());
	afterAll(() => standIn.close());

	it('reads the trigger item as a record with the lead id, sends each stage once, and Meta accepts them', async () => {
		const now = Date.now();
		const lead = readLeadRecord(facebookLeadAdsItem(now - 3 * 86_400_000)) as LeadRecord;
		expect(lead).toMatchObject({
			record_id: LEAD_ID,
			state: 'lead',
			source: { kind: 'metaLeadAds', form_id: '5550001112223' },
			contact: { email: 'Ann.Lee@Example.com', phone: '+16505551212' },
			attributes: {
				meta_lead_id: LEAD_ID,
				full_name: 'Ann Lee',
				budget: '10k',
				meta_form_name: 'Quote form',
			},
		});
		const stage = (name: string, hoursAgo: number): DispatchItem => ({
			record: {
				...lead,
				stage: name,
				stage_at: new Date(now - hoursAgo * 3_600_000).toISOString(),
			},
			eventName: name,
		});
		const items = [stage('Initial Lead', 72), stage('Qualified', 30), stage('Converted', 2)];
		const first = await run(items);
		expect(first.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
		expect(
			standIn.received.map((r: { event: { event_name: string } }) => r.event.event_name),
		).toEqual(['Initial Lead', 'Qualified', 'Converted']);
		for (const { event } of standIn.received) {
			expect(event.action_source).toBe('system_generated');
			expect(event.user_data.lead_id).toBe(LEAD_ID);
			expect(event.custom_data).toEqual({ event_source: 'crm', lead_event_source: 'HubSpot' });
		}
		// A retried webhook or a re-run: nothing goes out twice.
		const again = await run(items);
		expect(again.map((r) => r.status)).toEqual(['duplicate', 'duplicate', 'duplicate']);
		expect(standIn.received).toHaveLength(3);
	});

	it("a later stage whose CRM record has no Meta lead id is sent with the one the stage ledger kept for the lead", async () => {
		const now = Date.now();
		const withLedger = { ledger: {} };
		const lead = readLeadRecord(facebookLeadAdsItem(now - 3 * 86_400_000)) as LeadRecord;
		const first = await run(
			[{ record: { ...lead, stage: 'Initial Lead', stage_at: new Date(now - 72 * 3_600_000).toISOString() }, eventName: 'Initial Lead' }],
			withLedger,
		);
		expect(first[0].status).toBe('sent');
		// The CRM's stage change: the same record id, an email, no Meta lead id.
		const qualified: DispatchItem = {
			record: {
				record_id: LEAD_ID,
				stage: 'Qualified',
				stage_at: new Date(now - 3_600_000).toISOString(),
				contact: { email: 'ann.lee@example.com' },
			},
			eventName: 'Qualified',
		};
		const [later] = await run([qualified], withLedger);
		expect(later.status).toBe('sent');
		const sent = standIn.received.map((r: { event: { event_name: string; user_data: Record<string, unknown> } }) => r.event);
		expect(sent[1]).toMatchObject({ event_name: 'Qualified', user_data: { lead_id: LEAD_ID } });
		// Without the ledger there is nothing to take it from: email only.
		const [noLedger] = await run([{ ...qualified, record: { ...qualified.record, record_id: 'other-deal' } }]);
		expect(noLedger.status).toBe('sent');
		expect(standIn.received[2].event.user_data.lead_id).toBeUndefined();
	});

	describe('one timing rule: the dispatch plan times every CRM event (stage_at, never backdated)', () => {
		const DAY_MS = 86_400_000;
		const lead = (id: string, extra: Partial<LeadRecord>): DispatchItem => ({
			record: { record_id: id, attributes: { meta_lead_id: LEAD_ID }, ...extra },
			eventName: String(extra.stage ?? 'Lead'),
		});

		it('a stage older than 7 days comes out expired with the reason, and nothing is sent for it', async () => {
			const [r] = await run([lead('old-stage', { stage: 'Qualified', stage_at: new Date(Date.now() - 8 * DAY_MS).toISOString() })]);
			expect(r.status).toBe('expired');
			expect(r.error).toMatch(
				/^stage "Qualified" expired: stage_at is 8\.0 days old, outside Meta's 7-day window: not sent \(the event time is never rewritten\)$/,
			);
			expect(standIn.received).toHaveLength(0);
		});

		it('a CRM event without a stage is timed the same way: expired, never clamped, whatever the Event Window Policy', async () => {
			const [r] = await run(
				[lead('old-lead', { occurred_at: new Date(Date.now() - 9 * DAY_MS).toISOString() })],
				{ eventWindowPolicy: 'clamp' },
			);
			expect(r).toMatchObject({ status: 'expired' });
			expect(r.error).toMatch(/^event "Lead" expired: occurred_at is 9\.0 days old/);
			expect(r.warnings.join(' ')).not.toMatch(/clamped/);
			expect(standIn.received).toHaveLength(0);
		});

		it('stage_at wins over occurred_at (the lead creation) and is sent as it is', async () => {
			const stageAt = Math.floor((Date.now() - 2 * DAY_MS) / 1000);
			const [r] = await run([
				lead('staged', {
					stage: 'Booked',
					occurred_at: new Date(Date.now() - 20 * DAY_MS).toISOString(),
					stage_at: stageAt,
				}),
			]);
			expect(r.status).toBe('sent');
			expect(r.warnings.join(' ')).not.toMatch(/clamp/);
			expect(standIn.received.map((x: { event: { event_time: number } }) => x.event.event_time)).toEqual([
				stageAt,
			]);
		});

		it('an unreadable stage_at fails on its own rather than guessing a time', async () => {
			const [bad, good] = await run([
				lead('bad-time', { stage: 'Won', stage_at: 'last tuesday' }),
				lead('good-time', { stage: 'Won', stage_at: new Date().toISOString() }),
			]);
			expect(bad).toMatchObject({ status: 'failed', error: expect.stringMatching(/^stage_at: not a valid time/) });
			expect(good.status).toBe('sent');
		});
	});

	it('the stand-in refuses what Meta refuses: a CRM event without lead_event_source or with a wrong action source', async () => {
		const send = (event: Record<string, unknown>) =>
			fetch(`${standIn.url}/v26.0/${PIXEL}/events`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ access_token: TOKEN, data: [event] }),
			}).then(async (res) => ({
				status: res.status,
				body: (await res.json()) as { error?: { error_user_msg: string } },
			}));
		const base = {
			event_name: 'Qualified',
			event_time: Math.floor(Date.now() / 1000) - 60,
			event_id: 'e1',
			action_source: 'system_generated',
			user_data: { lead_id: LEAD_ID },
			custom_data: { event_source: 'crm', lead_event_source: 'HubSpot' },
		};
		expect((await send(base)).status).toBe(200);
		const noSource = await send({ ...base, custom_data: { event_source: 'crm' } });
		expect(noSource.status).toBe(400);
		expect(noSource.body.error?.error_user_msg).toMatch(/lead_event_source/);
		const website = await send({ ...base, action_source: 'website' });
		expect(website.status).toBe(400);
		const badId = await send({ ...base, user_data: { lead_id: '12345' } });
		expect(badId.body.error?.error_user_msg).toMatch(/Invalid lead_id/);
	});
});
