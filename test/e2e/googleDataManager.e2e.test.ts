import { createHash, randomUUID } from 'node:crypto';
import { chain, n8nWithPackage, node, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');

/*
 * The Google Ads Conversions node (version 2: Data Manager API by default) in a real n8n, against
 * the Data Manager stand-in: click conversions and enhanced conversions for leads, one bad lead in
 * 1,000, a re-run, Validate Only, Get Request Status, n8n's OAuth2 token refresh and the
 * credential test.
 */
const PKG = 'n8n-nodes-lead-capi';
const ACCOUNT = '1234567890';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const eventIdOf = (action: string, recordId: string, eventName = 'lead') =>
	sha(`customers/${ACCOUNT}/conversionActions/${action}|${eventName}|${recordId}`);

type StandIn = Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;

/** Leads from forms (a gclid) and from a CRM (email and phone only: enhanced conversions for leads). */
function leads(n: number) {
	return Array.from({ length: n }, (_, i) =>
		i % 2 === 0
			? {
					record_id: `form-${i}`,
					state: 'lead',
					occurred_at: hoursAgo(2),
					click: { gclid: `Cj0KCQiA-e2e-${i}` },
					contact: { email: `lead.${i}@example.com` },
					consent: { ad_user_data: 'granted' },
				}
			: {
					record_id: `crm-${i}`,
					state: 'lead',
					occurred_at: hoursAgo(3),
					contact: { email: `Buyer.${i}@Example.com`, phone: '+1 (415) 555-2671' },
					value: { amount: 250, currency: 'usd' },
				},
	);
}

describe('Google Ads Conversions through the Data Manager API in a real n8n', () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	const keyPrefix = `e2e-gdm-${randomUUID().slice(0, 8)}`;
	const ingests = () =>
		standIn.requests.filter((r: { path: string }) => r.path === '/v1/events:ingest');

	const credential = () => ({
		id: 'e2eGdmCred000001',
		name: 'Google Data Manager (loopback stand-in)',
		type: 'leadCapiGoogleDataManagerOAuth2Api',
		data: {
			clientId: standIn.clientId,
			clientSecret: standIn.clientSecret,
			accessTokenUrl: standIn.tokenUrl,
			baseUrl: standIn.url,
			oauthTokenData: {
				access_token: standIn.accessToken(),
				refresh_token: standIn.refreshToken,
				token_type: 'Bearer',
				expires_in: 3599,
			},
		},
	});
	const nodeCredentials = {
		leadCapiGoogleDataManagerOAuth2Api: {
			id: 'e2eGdmCred000001',
			name: 'Google Data Manager (loopback stand-in)',
		},
		leadCapiRedisApi: { id: 'e2eGdmRedis00001', name: 'Dedup Redis' },
	};

	const googleNode = (name: string, parameters: Record<string, unknown>, x = 600) =>
		node(
			name,
			`${PKG}.googleAdsConversions`,
			2,
			[x, 0],
			{
				customerId: '123-456-7890',
				conversionActionId: '987654321',
				event: 'fromState',
				leadInput: 'record',
				dedupStore: 'redis',
				options: {},
				...parameters,
			},
			{ credentials: nodeCredentials, onError: 'continueRegularOutput' },
		);

	const workflow = (id: string, records: unknown[], ...after: ReturnType<typeof node>[]) => ({
		id,
		name: `e2e: leads → Google Data Manager (${id})`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
				mode: 'raw',
				jsonOutput: JSON.stringify({ leads: records }),
				options: {},
			}),
			node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], {
				fieldToSplitOut: 'leads',
				options: {},
			}),
			...after,
		],
		connections: chain('Start', 'Leads', 'Split Leads', ...after.map((n) => n.name)),
		settings: { executionOrder: 'v1' },
	});

	beforeAll(async () => {
		standIn = await startGoogleDataManagerStandIn({
			accounts: { [ACCOUNT]: ['987654321', '987654322', '987654323'] },
		});
		instance = await n8nWithPackage();
		instance.importCredentials([
			credential(),
			{
				id: 'e2eGdmRedis00001',
				name: 'Dedup Redis',
				type: 'leadCapiRedisApi',
				data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
			},
		]);
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
	});

	it('Validate Only first: Google validates, nothing is recorded, nothing remembered', async () => {
		standIn.reset();
		const wf = workflow(
			'e2eGdmValidate01',
			leads(4),
			googleNode('Google Ads Conversions', {
				conversionActionId: '987654322',
				options: { validateOnly: true },
			}),
		);
		instance.importWorkflow(wf);
		const run = await instance.execute(wf.id);
		expect(run.status).toBe('success');
		const out = run.nodes['Google Ads Conversions'];
		expect(out.map((j) => j.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
		expect(String(out[0].error)).toMatch(/^validate only/);
		expect(ingests()).toHaveLength(1);
		expect(ingests()[0]).toMatchObject({ validateOnly: true, status: 200, events: 4 });
		expect(standIn.received).toHaveLength(0);
	});

	it('one bad lead in 1,000 leaves 999 delivered; running the workflow again sends nothing new', async () => {
		standIn.reset();
		const records = leads(1000);
		const bad = eventIdOf('987654321', 'crm-501');
		standIn.rejectEvents([
			{ transactionId: bad, reason: 'INVALID_EVENT', description: 'This event is not valid.' },
		]);
		const wf = workflow('e2eGdmThousand01', records, googleNode('Google Ads Conversions', {}));
		instance.importWorkflow(wf);

		const first = await instance.execute(wf.id);
		expect(first.status).toBe('success');
		const out = first.nodes['Google Ads Conversions'];
		expect(out).toHaveLength(1000);
		const count = (status: string) => out.filter((j) => j.status === status).length;
		expect([count('sent'), count('failed')]).toEqual([999, 1]);
		expect(out[501]).toMatchObject({ status: 'failed', event_id: bad });
		expect(String(out[501].error)).toContain('events[501]');
		expect(out[0]).toMatchObject({
			platform: 'google',
			event_id: eventIdOf('987654321', 'form-0'),
			match_keys: ['gclid', 'emailAddress'],
			response: { request_id: expect.any(String) },
		});
		expect(ingests().map((r: { status: number; events: number }) => [r.status, r.events])).toEqual([
			[400, 1000],
			[200, 999],
		]);
		const received = standIn.received as Array<{ event: Record<string, any> }>;
		expect(received).toHaveLength(999);
		// A click conversion and an enhanced conversion for leads, as sent.
		expect(received[0].event).toMatchObject({
			transactionId: eventIdOf('987654321', 'form-0'),
			adIdentifiers: { gclid: 'Cj0KCQiA-e2e-0' },
			userData: { userIdentifiers: [{ emailAddress: sha('lead.0@example.com') }] },
			consent: { adUserData: 'CONSENT_GRANTED' },
		});
		expect(received[1].event).toMatchObject({
			transactionId: eventIdOf('987654321', 'crm-1'),
			userData: {
				userIdentifiers: [
					{ emailAddress: sha('buyer.1@example.com') },
					{ phoneNumber: sha('+14155552671') },
				],
			},
			conversionValue: 250,
			currency: 'USD',
		});
		expect(received[1].event.adIdentifiers).toBeUndefined();

		const second = await instance.execute(wf.id);
		const again = second.nodes['Google Ads Conversions'];
		expect(again.filter((j) => j.status === 'duplicate')).toHaveLength(999);
		expect(again[501].status).toBe('failed');
		expect(standIn.received).toHaveLength(999);
		expect(
			ingests()
				.slice(2)
				.map((r: { events: number }) => r.events),
		).toEqual([1]);
	});

	it('Get Request Status reads back what Google did with the accepted request', async () => {
		standIn.reset();
		const wf = workflow(
			'e2eGdmStatus0001',
			leads(2).map((l) => ({ ...l, record_id: `status-${l.record_id}` })),
			googleNode('Google Ads Conversions', { conversionActionId: '987654323' }),
			googleNode('Request Status', { operation: 'getRequestStatus' }, 800),
		);
		instance.importWorkflow(wf);
		const run = await instance.execute(wf.id);
		expect(run.status).toBe('success');
		expect(run.nodes['Google Ads Conversions'].map((j) => j.status)).toEqual(['sent', 'sent']);
		const requestId = (run.nodes['Google Ads Conversions'][0].response as { request_id: string })
			.request_id;
		expect(run.nodes['Request Status']).toEqual([
			expect.objectContaining({
				request_id: requestId,
				request_status: 'SUCCESS',
				processed: true,
			}),
			expect.objectContaining({
				request_id: requestId,
				request_status: 'SUCCESS',
				processed: true,
			}),
		]);
	});

	it("n8n refreshes the expired OAuth2 token at the credential's token URL and the leads go out", async () => {
		standIn.reset();
		standIn.expireAccessToken();
		const before = standIn.refreshes();
		const wf = workflow(
			'e2eGdmRefresh001',
			leads(2).map((l) => ({ ...l, record_id: `refresh-${l.record_id}` })),
			googleNode('Google Ads Conversions', {}),
		);
		instance.importWorkflow(wf);
		const run = await instance.execute(wf.id);
		const out = run.nodes['Google Ads Conversions'];
		if (out[0]?.status !== 'sent') console.log(JSON.stringify(out, null, 1).slice(0, 2000));
		expect(out.map((j) => j.status)).toEqual(['sent', 'sent']);
		expect(standIn.refreshes()).toBeGreaterThan(before);
	});

	it("a lead's later 'won for $X' restates its conversion once; 'lost' is refused with the reason; re-runs send nothing new", async () => {
		standIn.reset();
		const lead = {
			record_id: 'adjust-1',
			state: 'lead',
			occurred_at: hoursAgo(5),
			contact: { email: 'adjust.one@example.com' },
		};
		const won = {
			...lead,
			state: 'purchase',
			occurred_at: hoursAgo(1),
			value: { amount: 1800, currency: 'usd' },
		};
		const lost = { ...lead, state: 'lost', occurred_at: hoursAgo(1) };
		const send = workflow('e2eGdmAdjLead001', [lead], googleNode('Google Ads Conversions', {}));
		const restate = workflow(
			'e2eGdmAdjRestat1',
			[won],
			googleNode('Google Ads Conversions', {
				operation: 'adjust',
				adjustment: 'restatement',
				originalEvent: 'lead',
			}),
		);
		const retract = workflow(
			'e2eGdmAdjRetrac1',
			[lost],
			googleNode('Google Ads Conversions', {
				operation: 'adjust',
				adjustment: 'retraction',
				originalEvent: 'lead',
			}),
		);
		for (const wf of [send, restate, retract]) instance.importWorkflow(wf);
		const transactionId = eventIdOf('987654321', 'adjust-1');

		expect((await instance.execute(send.id)).nodes['Google Ads Conversions'][0].status).toBe(
			'sent',
		);
		const first = (await instance.execute(restate.id)).nodes['Google Ads Conversions'][0];
		expect(first).toMatchObject({ status: 'sent', adjustment: 'restatement' });
		const again = (await instance.execute(restate.id)).nodes['Google Ads Conversions'][0];
		expect(again.status).toBe('duplicate');
		const refused = (await instance.execute(retract.id)).nodes['Google Ads Conversions'][0];
		expect(refused).toMatchObject({ status: 'skipped', adjustment: 'retraction' });
		expect(String(refused.error)).toContain('does not support retracting');

		expect(standIn.conversions()[`${ACCOUNT}/987654321/${transactionId}`]).toEqual({
			value: 1800,
			currency: 'USD',
			adjustments: 1,
			events: 2,
		});
		expect(standIn.received.map((r: { kind: string }) => r.kind)).toEqual(['new', 'restatement']);
	});

	it('the credential test is a real Data Manager call: OK when accepted, an error saying why when refused', async () => {
		const unscoped = await startGoogleDataManagerStandIn({
			scopes: ['https://www.googleapis.com/auth/adwords'],
		});
		// A saved credential of its own for the refused case: n8n tests saved credentials only.
		const refused = {
			...credential(),
			id: 'e2eGdmUnscoped01',
			name: 'Google Data Manager (token without the scope)',
			data: {
				...credential().data,
				baseUrl: unscoped.url,
				oauthTokenData: { access_token: unscoped.accessToken(), token_type: 'Bearer' },
			},
		};
		instance.importCredentials([refused]);
		const server = await instance.serve();
		try {
			const test = (saved: { id: string; name: string; type: string; data: Record<string, unknown> }) => server.testCredential(saved);
			const good = await test(credential());
			expect(good.data).toMatchObject({ status: 'OK' });
			const wrongScope = await test(refused);
			expect(wrongScope.data.status).toBe('Error');
			expect(wrongScope.data.message).toMatch(/Data Manager API/);
		} finally {
			await server.stop();
			await unscoped.close();
		}
	});
});
