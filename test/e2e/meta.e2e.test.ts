import { createHash, randomUUID } from 'node:crypto';
import { chain, n8nWithPackage, node, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const PKG = 'n8n-nodes-lead-capi';
const TOKEN = `e2e-token-${randomUUID()}`;
const APP_SECRET = `e2e-app-secret-${randomUUID()}`;
const PIXEL = '987654321012345';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type StandIn = Awaited<ReturnType<typeof startMetaStandIn>>;
interface Received {
	event: { event_id: string; event_name: string; user_data: Record<string, unknown>; action_source: string };
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

/** Canonical lead records, as the Lead Capture Trigger emits them. */
function canonicalLeads() {
	return [
		{
			record_id: 'form-sub-1001',
			state: 'lead',
			occurred_at: hoursAgo(2),
			source: { kind: 'form', page_url: 'https://shop.example.com/pricing' },
			contact: { email: ' Ana.Lima@Example.com ', phone: '(415) 555-2671', first_name: 'Ana', country: 'US', region: 'NY' },
			click: { fbclid: 'IwAR-e2e-AbC', clicked_at: hoursAgo(3) },
			client: { ip: '198.51.100.23', user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0' },
		},
		{
			record_id: 'form-sub-1002',
			state: 'lead',
			occurred_at: hoursAgo(1),
			contact: { email: 'kai@example.de', phone: '030 1234567', country: 'Germany' },
		},
		{
			record_id: 'form-sub-1003',
			state: 'lead',
			occurred_at: hoursAgo(30),
			contact: { email: 'li@example.com', region: 'California', country: 'US' },
		},
		// No record id: this item fails on its own; the others still go out.
		{ state: 'lead', occurred_at: hoursAgo(1), contact: { email: 'no-id@example.com' } },
	];
}

describe('Meta Conversions in a real n8n', () => {
	let standIn: StandIn;
	let instance: N8nInstance;
	const keyPrefix = `e2e-${randomUUID().slice(0, 8)}`;

	const credentials = () => [
		{
			id: 'e2eMetaCred00001',
			name: 'Meta (loopback stand-in)',
			type: 'leadCapiMetaApi',
			data: { pixelId: PIXEL, accessToken: TOKEN, appSecret: APP_SECRET, apiVersion: 'v26.0', baseUrl: standIn.url },
		},
		{
			id: 'e2eRedisCred0001',
			name: 'Dedup Redis',
			type: 'leadCapiRedisApi',
			data: { connection: 'url', url: process.env.REDIS_URL, keyPrefix },
		},
	];
	const metaCredentials = {
		leadCapiMetaApi: { id: 'e2eMetaCred00001', name: 'Meta (loopback stand-in)' },
		leadCapiRedisApi: { id: 'e2eRedisCred0001', name: 'Dedup Redis' },
	};

	beforeAll(async () => {
		standIn = await startMetaStandIn({ accessToken: TOKEN, appSecret: APP_SECRET });
		instance = await n8nWithPackage();
		instance.importCredentials(credentials());
	});
	afterAll(async () => {
		await instance?.cleanup();
		await standIn?.close();
	});

	it('sends canonical lead records once; running the workflow again sends nothing new', async () => {
		const workflow = {
			id: 'e2eMetaRecords01',
			name: 'e2e: canonical leads → Meta',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
				node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
					mode: 'raw',
					jsonOutput: JSON.stringify({ leads: canonicalLeads() }),
					options: {},
				}),
				node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], { fieldToSplitOut: 'leads', options: {} }),
				node(
					'Meta Conversions',
					`${PKG}.metaConversions`,
					1,
					[600, 0],
					{ event: 'Lead', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: {} },
					{ credentials: metaCredentials, onError: 'continueRegularOutput' },
				),
			],
			connections: chain('Start', 'Leads', 'Split Leads', 'Meta Conversions'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(workflow);

		const first = await instance.execute(workflow.id);
		expect(first.status).toBe('success');
		const out = first.nodes['Meta Conversions'];
		if (out[0]?.status !== 'sent') console.log(JSON.stringify(out, null, 1).slice(0, 3000));
		expect(out.map((j) => j.status)).toEqual(['sent', 'sent', 'sent', 'failed']);
		expect(out[3].error).toMatch(/record_id is missing/);
		expect(out[0]).toMatchObject({
			platform: 'meta',
			destination: PIXEL,
			event_name: 'Lead',
			event_id: sha(`${PIXEL}|Lead|form-sub-1001`),
			dedup: 'claimed',
		});

		const received = standIn.received as Received[];
		expect(received).toHaveLength(3);
		const byId = new Map(received.map((r) => [r.event.event_id, r.event]));
		const web = byId.get(sha(`${PIXEL}|Lead|form-sub-1001`))!;
		expect(web.action_source).toBe('website');
		expect(web.user_data).toMatchObject({
			em: sha('ana.lima@example.com'),
			ph: sha('14155552671'),
			fn: sha('ana'),
			st: sha('ny'),
			country: sha('us'),
			client_ip_address: '198.51.100.23',
			fbc: expect.stringMatching(/^fb\.1\.\d{13}\.IwAR-e2e-AbC$/),
		});
		const crm = byId.get(sha(`${PIXEL}|Lead|form-sub-1002`))!;
		expect(crm.action_source).toBe('system_generated');
		expect(crm.user_data).toMatchObject({ ph: sha('49301234567'), country: sha('de') });
		const california = byId.get(sha(`${PIXEL}|Lead|form-sub-1003`)) as unknown as Record<string, unknown>;
		expect(california).toMatchObject({ data_processing_options: ['LDU'], data_processing_options_state: 1000 });

		// Nothing secret in what n8n stored for the run.
		expect(JSON.stringify(first.raw)).not.toContain(TOKEN);
		expect(JSON.stringify(first.raw)).not.toContain(APP_SECRET);

		const second = await instance.execute(workflow.id);
		expect(second.status).toBe('success');
		expect(second.nodes['Meta Conversions'].map((j) => [j.status, j.dedup])).toEqual([
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['duplicate', 'sent_before'],
			['failed', undefined],
		]);
		expect(standIn.received).toHaveLength(3);
	});

	it('maps a CRM-shaped payload with expressions for the overridden fields only', async () => {
		standIn.reset();
		const deals = [
			{ deal: { id: 7001, stage: 'won', amount: 1200, currency: 'USD' }, person: { email: 'Buyer@Example.com', phone: '+44 20 7946 0958', name: 'Sam Jones' } },
			{ deal: { id: 7002, stage: 'won', amount: 80, currency: 'USD' }, person: { email: 'other@example.com' } },
		];
		const workflow = {
			id: 'e2eMetaMapping01',
			name: 'e2e: CRM deals → Meta Purchase (mapped fields)',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
				node('Deals', 'n8n-nodes-base.set', 3.4, [200, 0], {
					mode: 'raw',
					jsonOutput: JSON.stringify({ deals }),
					options: {},
				}),
				node('Split Deals', 'n8n-nodes-base.splitOut', 1, [400, 0], { fieldToSplitOut: 'deals', options: {} }),
				node(
					'Meta Purchase',
					`${PKG}.metaConversions`,
					1,
					[600, 0],
					{
						event: 'Purchase',
						actionSource: 'system_generated',
						leadInput: 'map',
						fieldOverrides: {
							field: [
								{ path: 'record_id', value: '={{ "deal-" + $json.deal.id }}' },
								{ path: 'contact.email', value: '={{ $json.person.email }}' },
								{ path: 'contact.phone', value: '={{ $json.person.phone }}' },
								{ path: 'value.amount', value: '={{ $json.deal.amount }}' },
								{ path: 'value.currency', value: '={{ $json.deal.currency }}' },
							],
						},
						dedupStore: 'redis',
						options: { includePayload: true },
					},
					{ credentials: metaCredentials },
				),
			],
			connections: chain('Start', 'Deals', 'Split Deals', 'Meta Purchase'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(workflow);
		const run = await instance.execute(workflow.id);
		if (run.status !== 'success') console.log(JSON.stringify(run.error).slice(0, 3000));
		expect(run.status).toBe('success');
		const out = run.nodes['Meta Purchase'];
		expect(out.map((j) => j.status)).toEqual(['sent', 'sent']);
		expect(out[0]).toMatchObject({
			event_id: sha(`${PIXEL}|Purchase|deal-7001`),
			payload: {
				event_name: 'Purchase',
				action_source: 'system_generated',
				custom_data: { value: 1200, currency: 'USD' },
				user_data: { em: sha('buyer@example.com'), ph: sha('442079460958') },
			},
		});
		expect(standIn.received).toHaveLength(2);
	});

	it('fails the node without "Continue On Fail", after sending the good items; Redis down fails closed', async () => {
		standIn.reset();
		const leadsNode = node('Leads', 'n8n-nodes-base.set', 3.4, [200, 0], {
			mode: 'raw',
			jsonOutput: JSON.stringify({
				leads: [
					{ record_id: 'strict-1', occurred_at: hoursAgo(1), contact: { email: 'a@example.com' } },
					{ record_id: 'strict-2', occurred_at: hoursAgo(1), contact: { city: 'Paris' } },
				],
			}),
			options: {},
		});
		const strict = {
			id: 'e2eMetaStrict001',
			name: 'e2e: strict error handling',
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', 1, [0, 0], {}),
				leadsNode,
				node('Split Leads', 'n8n-nodes-base.splitOut', 1, [400, 0], { fieldToSplitOut: 'leads', options: {} }),
				node('Meta Conversions', `${PKG}.metaConversions`, 1, [600, 0], {
					event: 'Lead', actionSource: 'auto', leadInput: 'record', dedupStore: 'redis', options: {},
				}, { credentials: metaCredentials }),
			],
			connections: chain('Start', 'Leads', 'Split Leads', 'Meta Conversions'),
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(strict);
		const run = await instance.execute(strict.id);
		expect(run.status).toBe('error');
		const error = run.error as { message: string; description: string; context?: { itemIndex?: number } };
		expect(error.message).toMatch(/^meta: item 1 failed: not enough customer information/);
		expect(error.description).toMatch(/This run: 1 sent, 1 failed/);
		// n8n's own name for the setting (1.x and 2.x), never "Continue On Fail".
		expect(error.description).toMatch(/set Settings → On Error → Continue \(using error output\)\.$/);
		expect(error.description).not.toMatch(/Continue On Fail|\.\./);
		expect(standIn.received).toHaveLength(1);

		instance.importCredentials([
			{ id: 'e2eDeadRedis0001', name: 'Dead Redis', type: 'leadCapiRedisApi', data: { connection: 'fields', host: '127.0.0.1', port: 1, keyPrefix } },
		]);
		const closed = {
			...strict,
			id: 'e2eMetaClosed001',
			name: 'e2e: Redis down, fail closed',
			nodes: strict.nodes.map((n) =>
				n.name === 'Meta Conversions'
					? { ...n, credentials: { ...metaCredentials, leadCapiRedisApi: { id: 'e2eDeadRedis0001', name: 'Dead Redis' } }, onError: 'continueRegularOutput' }
					: n,
			),
		};
		instance.importWorkflow(closed);
		standIn.reset();
		const down = await instance.execute(closed.id);
		expect(down.status).toBe('success');
		const out = down.nodes['Meta Conversions'];
		expect(out[0]).toMatchObject({
			status: 'failed',
			dedup: 'unavailable',
			error: expect.stringMatching(
				/^The dedup store \(Redis at 127\.0\.0\.1:1\) refused the connection: is Redis running at that address and port\? Nothing was sent \(dedup fails closed\)\./,
			),
		});
		expect(standIn.received).toHaveLength(0);
		// Without On Error → Continue, the node's error is headlined by the dedup store, not Meta.
		const closedStrict = {
			...closed,
			id: 'e2eMetaClosed002',
			name: 'e2e: Redis down, fail closed, strict',
			nodes: closed.nodes.map((n) => (n.name === 'Meta Conversions' ? { ...n, onError: undefined } : n)),
		};
		instance.importWorkflow(closedStrict);
		const stopped = await instance.execute(closedStrict.id);
		expect(stopped.status).toBe('error');
		const storeError = stopped.error as { message: string; description: string };
		expect(storeError.message).toBe(
			'The dedup store (Redis at 127.0.0.1:1) refused the connection: is Redis running at that address and port?',
		);
		expect(storeError.description).toMatch(/^This run: 2 failed\. Nothing was sent \(dedup fails closed\)\./);
		expect(storeError.description).not.toMatch(/\.\./);
		expect(standIn.received).toHaveLength(0);

		// A credential the run cannot use fails every item, each saying why, with Continue On
		// Fail; without it the node fails with the same message. (A Dataset ID of a space: the
		// editor saves it, an empty one it refuses.)
		instance.importCredentials([
			{ id: 'e2eMetaNoPixel01', name: 'Meta without dataset', type: 'leadCapiMetaApi', data: { pixelId: ' ', accessToken: TOKEN, baseUrl: standIn.url } },
		]);
		const noPixel = (id: string, onError?: string) => ({
			...strict,
			id,
			name: `e2e: Meta credential without dataset (${onError ?? 'strict'})`,
			nodes: strict.nodes.map((n) =>
				n.name === 'Meta Conversions'
					? { ...n, credentials: { ...metaCredentials, leadCapiMetaApi: { id: 'e2eMetaNoPixel01', name: 'Meta without dataset' } }, ...(onError ? { onError } : {}) }
					: n,
			),
		});
		const lenient = noPixel('e2eMetaNoPixel02', 'continueRegularOutput');
		instance.importWorkflow(lenient);
		const each = await instance.execute(lenient.id);
		expect(each.status).toBe('success');
		const failed = each.nodes['Meta Conversions'];
		expect(failed).toHaveLength(2);
		for (const item of failed) {
			expect(item).toMatchObject({
				status: 'failed',
				platform: 'meta',
				error: 'The Meta Conversions API credential needs a Dataset (Pixel) ID and an Access Token. Nothing was sent.',
			});
		}
		const paired = (each.raw as { data: { resultData: { runData: Record<string, Array<{ data: { main: Array<Array<{ pairedItem: unknown }>> } }>> } } })
			.data.resultData.runData['Meta Conversions'][0].data.main[0].map((i) => i.pairedItem);
		expect(paired).toEqual([{ item: 0 }, { item: 1 }]);
		const strictNoPixel = noPixel('e2eMetaNoPixel03');
		instance.importWorkflow(strictNoPixel);
		const failedRun = await instance.execute(strictNoPixel.id);
		expect(failedRun.status).toBe('error');
		expect((failedRun.error as { message: string }).message).toBe(
			'The Meta Conversions API credential needs a Dataset (Pixel) ID and an Access Token',
		);
		expect(standIn.received).toHaveLength(0);
	});

	it('tests both credentials from the editor: good ones pass, wrong ones say why', async () => {
		const server = await instance.serve();
		try {
			const test = (type: string, id: string, data: Record<string, unknown>) =>
				server.testCredential({ id, name: id, type, data });
			const [meta, redis] = credentials();
			const good = await test(meta.type, meta.id, meta.data);
			expect(good.data).toMatchObject({ status: 'OK' });
			const badToken = await test(meta.type, meta.id, { ...meta.data, accessToken: 'wrong-token-123456' });
			expect(badToken.data.status).toBe('Error');
			expect(JSON.stringify(badToken)).not.toContain('wrong-token-123456');
			const redisOk = await test(redis.type, redis.id, redis.data);
			expect(redisOk.data).toEqual({ status: 'OK', message: 'Connection successful: Redis answered PING' });
			const redisDown = await test(redis.type, redis.id, { connection: 'fields', host: '127.0.0.1', port: 1 });
			expect(redisDown.data).toMatchObject({ status: 'Error', message: expect.stringMatching(/connection refused/) });
		} finally {
			await server.stop();
		}
	});
});
