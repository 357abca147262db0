import { createHash, randomUUID } from 'node:crypto';
import { chain, n8nWithPackage, node, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPinterestStandIn } = require('../standins/pinterest.js');

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-pinterest-token-${randomUUID()}`;
const AD_ACCOUNT = '549755885175';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startPinterestStandIn>>;
interface Received {
	adAccountId: string;
	event: {
		event_id: string;
		event_name: string;
		action_source: string;
		user_data: Record<string, unknown>;
		custom_data?: Record<string, unknown>;
	};
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0';

/** Canonical lead records in every state, as the Lead Capture Trigger and CRM webhooks give them. */
function canonicalLeads() {
	const web = {
		source: { kind: 'script', page_url: 'https://shop.example.com/pricing?epik=dj0yJnU9e2e' },
		click: { epik: 'dj0yJnU9e2e' },
		client: { ip: '198.51.100.23', user_agent: UA },
	};
	return [
		{
			record_id: 'cap-1',
			state: 'partial',
			occurred_at: hoursAgo(2),
			contact: { email: 'ana@example.com' },
			...web,
		},
		{
			record_id: 'cap-1',
			state: 'lead',
			occurred_at: hoursAgo(2),
			contact: {
				email: ' Ana.Lima@Example.com ',
				phone: '(415) 555-2671',
				first_name: 'Ana',
				region: 'California',
				country: 'US',
			},
			...web,
		},
		{
			record_id: 'deal-9',
			state: 'schedule',
			occurred_at: hoursAgo(30),
			contact: { email: 'kai@example.de', phone: '030 1234567', country: 'Germany' },
		},
		{
			record_id: 'deal-9',
			state: 'purchase',
			occurred_at: hoursAgo(1),
			contact: { email: 'kai@example.de' },
			value: { amount: '1200.50', currency: 'eur' },
		},
		// Only a phone: Pinterest would refuse it, so it is skipped, never sent.
		{
			record_id: 'deal-10',
			state: 'lead',
			occurred_at: hoursAgo(1),
			contact: { phone: '+14155552671' },
		},
		// No record id: this item fails on its own; the others still go out.
		{ state: 'lead', occurred_at: hoursAgo(1), contact: { email: 'no-id@example.com' } },
	];
}

describe('Pinterest Conversions in a real n8n', () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	const keyPrefix = `e2e-pin-${randomUUID().slice(0, 8)}`;

	const credentials = () => [
		{
			id: 'e2ePinterestCred',
			name: 'Pinterest (loopback stand-in)',
			type: 'leadCapiPinterestApi',
			data: { adAccountId: AD_ACCOUNT, accessToken: TOKEN, baseUrl: standIn.url },
		},
		{
			id: 'e2ePinRedisCred1',
			name: 'Dedup Redis',
			type: 'leadCapiRedisApi',
			data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
		},
	];
	const nodeCredentials = {
		leadCapiPinterestApi: { id: 'e2ePinterestCred', name: 'Pinterest (loopback stand-in)' },
		leadCapiRedisApi: { id: 'e2ePinRedisCred1', name: 'Dedup Redis' },
	};

	const leadsWorkflow = (id: string, pinterestParameters: Record<string, unknown>) => ({
		id,
		name: `e2e: canonical leads → Pinterest (${id})`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
			node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
				mode: 'raw',
				jsonOutput: JSON.stringify({ leads: canonicalLeads() }),
				options: {},
			}),
			node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], {
				fieldToSplitOut: 'leads',
				options: {},
			}),
			node(
				'Pinterest Conversions',
				`${PKG}.pinterestConversions`,
				1,
				[600, 0],
				{
					event: 'fromState',
					actionSource: 'auto',
					leadInput: 'record',
					dedupStore: 'redis',
					options: {},
					...pinterestParameters,
				},
				{ credentials: nodeCredentials, onError: 'continueRegularOutput' },
			),
		],
		connections: chain('Start', 'Leads', 'Split Leads', 'Pinterest Conversions'),
		settings: { executionOrder: 'v1' },
	});

	beforeAll(async () => {
		standIn = await startPinterestStandIn({
			accessToken: TOKEN,
			adAccountIds: [AD_ACCOUNT],
		});
		instance = await n8nWithPackage();
		instance.importCredentials(credentials());
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
	});

	it('test mode first: validated by Pinterest, nothing recorded, nothing remembered', async () => {
		const workflow = leadsWorkflow('e2ePinTestMode01', { options: { testMode: true } });
		instance.importWorkflow(workflow);
		const run = await instance.execute(workflow.id);
		expect(run.status).toBe('success');
		const out = run.nodes['Pinterest Conversions'];
		expect(out.map((j) => j.status)).toEqual([
			'skipped',
			'skipped',
			'skipped',
			'skipped',
			'skipped',
			'failed',
		]);
		expect(out[0].error).toMatch(/^test mode: Pinterest validated this event/);
		expect(out[4].error).toMatch(
			/^Pinterest needs an email, or both the IP address and the user agent/,
		);
		expect(standIn.requests).toHaveLength(1);
		expect(standIn.requests[0]).toMatchObject({ test: true, status: 200, events: 4 });
		expect(standIn.received).toHaveLength(0);
	});

	it('sends every state once under its own event; running the workflow again sends nothing new', async () => {
		standIn.reset();
		const workflow = leadsWorkflow('e2ePinStates0001', {});
		instance.importWorkflow(workflow);

		const first = await instance.execute(workflow.id);
		expect(first.status).toBe('success');
		const out = first.nodes['Pinterest Conversions'];
		if (out[0]?.status !== 'sent') console.log(JSON.stringify(out, null, 1).slice(0, 3000));
		expect(out.map((j) => [j.status, j.event_name])).toEqual([
			['sent', 'custom:partial_lead'],
			['sent', 'lead'],
			['sent', 'custom:schedule'],
			['sent', 'checkout'],
			['skipped', 'lead'],
			['failed', 'lead'],
		]);
		expect(out[5].error).toMatch(/record_id is missing/);
		expect(out[1]).toMatchObject({
			platform: 'pinterest',
			destination: AD_ACCOUNT,
			event_id: sha(`${AD_ACCOUNT}|lead|cap-1`),
			dedup: 'claimed',
		});

		const received = standIn.received as Received[];
		expect(received).toHaveLength(4);
		expect(received.every((r) => r.adAccountId === AD_ACCOUNT)).toBe(true);
		const byId = new Map(received.map((r) => [r.event.event_id, r.event]));
		expect(byId.get(sha(`${AD_ACCOUNT}|custom:partial_lead|cap-1`))).toMatchObject({
			event_name: 'custom',
			action_source: 'web',
			custom_data: { content_name: 'partial_lead' },
		});
		expect(byId.get(sha(`${AD_ACCOUNT}|lead|cap-1`))).toMatchObject({
			event_name: 'lead',
			action_source: 'web',
			user_data: {
				em: [sha('ana.lima@example.com')],
				ph: [sha('14155552671')],
				fn: [sha('ana')],
				st: [sha('ca')],
				country: [sha('us')],
				client_ip_address: '198.51.100.23',
				client_user_agent: UA,
				click_id: 'dj0yJnU9e2e',
			},
			custom_data: { opt_out_type: 'LDP' },
		});
		expect(byId.get(sha(`${AD_ACCOUNT}|custom:schedule|deal-9`))).toMatchObject({
			event_name: 'custom',
			action_source: 'offline',
			user_data: { ph: [sha('49301234567')], country: [sha('de')] },
			custom_data: { content_name: 'schedule' },
		});
		expect(byId.get(sha(`${AD_ACCOUNT}|checkout|deal-9`))).toMatchObject({
			event_name: 'checkout',
			custom_data: { value: '1200.5', currency: 'EUR' },
		});

		// Nothing secret in what n8n stored for the run.
		expect(JSON.stringify(first.raw)).not.toContain(TOKEN);

		const second = await instance.execute(workflow.id);
		expect(second.status).toBe('success');
		expect(second.nodes['Pinterest Conversions'].map((j) => [j.status, j.dedup ?? null])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['skipped', null],
			['failed', null],
		]);
		expect(standIn.received).toHaveLength(4);
	});

	it('sends a custom event name given by expression as custom + content_name, and fails the node on a Pinterest rejection without "Continue On Fail"', async () => {
		standIn.reset();
		const workflow = {
			id: 'e2ePinCustom0001',
			name: 'e2e: custom event, strict error handling',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
				node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
					mode: 'raw',
					jsonOutput: JSON.stringify({
						leads: [
							{
								record_id: 'demo-1',
								occurred_at: hoursAgo(1),
								contact: { email: 'a@example.com' },
								attributes: { step: 'demo_booked' },
							},
							{
								record_id: 'demo-2',
								occurred_at: hoursAgo(1),
								contact: { email: 'b@example.com' },
								attributes: { step: 'demo_booked' },
							},
						],
					}),
					options: {},
				}),
				node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], {
					fieldToSplitOut: 'leads',
					options: {},
				}),
				node(
					'Pinterest Conversions',
					`${PKG}.pinterestConversions`,
					1,
					[600, 0],
					{
						event: 'custom',
						customEventName: '={{ $json.attributes.step }}',
						actionSource: 'offline',
						leadInput: 'record',
						dedupStore: 'redis',
						options: { includePayload: true },
					},
					{ credentials: nodeCredentials },
				),
			],
			connections: chain('Start', 'Leads', 'Split Leads', 'Pinterest Conversions'),
			settings: { executionOrder: 'v1' },
		};
		standIn.poison(sha(`${AD_ACCOUNT}|custom:demo_booked|demo-2`));
		instance.importWorkflow(workflow);
		const run = await instance.execute(workflow.id);
		expect(run.status).toBe('error');
		const error = run.error as { message: string; description: string };
		expect(error.message).toBe(
			'pinterest: item 1 failed: Pinterest: Invalid event: rejected by the stand-in on request',
		);
		expect(error.description).toMatch(/This run: 1 sent, 1 failed/);
		const received = standIn.received as Received[];
		expect(received).toHaveLength(1);
		expect(received[0].event).toMatchObject({
			event_name: 'custom',
			event_id: sha(`${AD_ACCOUNT}|custom:demo_booked|demo-1`),
			custom_data: { content_name: 'demo_booked' },
		});
	});

	it('tests the credential from the editor with a ?test=true event: good ones pass, wrong ones say why', async () => {
		standIn.reset();
		const server = await instance.serve();
		try {
			const test = (data: Record<string, unknown>) =>
				server.testCredential({ id: 'e2ePinterestCred', name: 'e2ePinterestCred', type: 'leadCapiPinterestApi', data });
			const [pinterest] = credentials();
			const good = await test(pinterest.data);
			expect(good.data).toEqual({
				status: 'OK',
				message: `Pinterest accepted the token for ad account ${AD_ACCOUNT}: a test event (?test=true) was validated and not recorded`,
			});
			const badToken = await test({ ...pinterest.data, accessToken: 'wrong-token-123456' });
			expect(badToken.data).toMatchObject({
				status: 'Error',
				message: expect.stringMatching(/^Pinterest: Authentication failed\. \[code 2, HTTP 401\]/),
			});
			expect(JSON.stringify(badToken)).not.toContain('wrong-token-123456');
			const otherAccount = await test({ ...pinterest.data, adAccountId: '111222333' });
			expect(otherAccount.data).toMatchObject({
				status: 'Error',
				message: expect.stringMatching(/\[code 29, HTTP 403\]/),
			});
			expect(standIn.requests.every((r: { test: boolean }) => r.test)).toBe(true);
			expect(standIn.received).toHaveLength(0);
		} finally {
			await server.stop();
		}
	});
});
