import { createHash } from 'node:crypto';
import { NodeOperationError, type IDataObject } from 'n8n-workflow';
import { IdentityNormalizer } from '../../nodes/IdentityNormalizer/IdentityNormalizer.node';
import { MetaConversions } from '../../nodes/MetaConversions/MetaConversions.node';
import { crmLead, webLead } from '../support/leads';
import { executeError, runExecute } from './support/context';
import { nodeRedis } from './support/redis';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const node = new IdentityNormalizer();
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const lead = (i: number) => webLead(i) as unknown as IDataObject;
type Identity = {
	platforms: Record<
		string,
		{ user_data: IDataObject; match_keys: string[]; match_quality: IDataObject }
	>;
	warnings: string[];
	normalized?: IDataObject;
};

describe('Identity Normalizer node: execute() shows what each platform receives', () => {
	it("adds the normalized identity and every platform's hashed user data to each item, paired with it", async () => {
		const { outputs } = await runExecute(node, [lead(0), crmLead(1) as unknown as IDataObject]);
		expect(outputs).toHaveLength(1);
		expect(outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const first = outputs[0][0].json;
		// The input is passed on, the identity added beside it.
		expect(first.record_id).toBe('sub_0');
		const identity = first.identity as Identity;
		expect(Object.keys(identity.platforms).sort()).toEqual([
			'google',
			'meta',
			'microsoft',
			'pinterest',
			'tiktok',
		]);
		expect(identity.normalized).toMatchObject({ email: ['lead.0@example.com'] });
		expect(identity.platforms.meta.user_data).toMatchObject({
			em: sha('lead.0@example.com'),
			ph: sha('16505551212'),
			client_ip_address: '203.0.113.7',
		});
		expect(identity.platforms.meta.match_keys).toEqual(expect.arrayContaining(['em', 'ph', 'fbp']));
		// The CRM lead's national phone is read with its own country (Germany).
		const crm = outputs[0][1].json.identity as Identity;
		expect(crm.platforms.meta.user_data.ph).toBe(sha('49301234567'));
	});

	it('renders only the chosen platforms, under the chosen field, hashed only when asked', async () => {
		const { outputs } = await runExecute(node, [lead(0)], {
			params: { platforms: ['tiktok'], options: { hashedOnly: true, outputField: 'who' } },
		});
		const json = outputs[0][0].json;
		expect(json.identity).toBeUndefined();
		const who = json.who as Identity;
		expect(Object.keys(who.platforms)).toEqual(['tiktok']);
		expect(who.normalized).toBeUndefined();
		// Nothing in clear where the output is hashed only.
		expect(JSON.stringify(who)).not.toContain('lead.0@example.com');
	});

	it('reads the record at the Lead Record Field', async () => {
		const { outputs } = await runExecute(node, [{ lead: lead(3) }], {
			params: { platforms: ['meta'], options: { recordField: 'lead' } },
		});
		const identity = outputs[0][0].json.identity as Identity;
		expect(identity.platforms.meta.user_data.em).toBe(sha('lead.3@example.com'));
	});

	it('an item without a lead record: NodeOperationError at its index; with On Error "Continue", an error item paired with it', async () => {
		const items = [{ lead: lead(0) }, { other: 1 }];
		const params = { options: { recordField: 'lead' } };
		const { error } = await executeError(node, items, { params });
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.context?.itemIndex).toBe(1);
		expect(error.message).toMatch(/lead/);

		const { outputs } = await runExecute(node, items, { params, onError: 'continueRegularOutput' });
		expect(outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(outputs[0][0].json.identity).toBeDefined();
		expect(outputs[0][1].json).toMatchObject({ other: 1, error: expect.stringMatching(/lead/) });
	});
});

describe('Identity Normalizer node: the phone each platform matches, and the form a pre-hashed phone needs', () => {
	type WithPhone = { phone?: { sha256: string[]; expects: string; arrived_hashed: boolean } };
	const phones = (identity: Identity) =>
		identity.platforms as unknown as Record<string, WithPhone>;

	it('gives each platform its own phone hash and says what a pre-hashed phone must be the hash of', async () => {
		const { outputs } = await runExecute(node, [lead(0)]);
		const p = phones(outputs[0][0].json.identity as Identity);
		const digits = "SHA-256 (lowercase hex) of the number with country code, digits only, no '+' (16505551212)";
		const e164 = "SHA-256 (lowercase hex) of the E.164 number with '+' (+16505551212)";
		expect(
			Object.fromEntries(Object.entries(p).map(([k, v]) => [k, [v.phone?.sha256, v.phone?.expects]])),
		).toEqual({
			meta: [[sha('16505551212')], digits],
			pinterest: [[sha('16505551212')], digits],
			tiktok: [[sha('+16505551212')], e164],
			google: [[sha('+16505551212')], e164],
			microsoft: [[sha('+16505551212')], e164],
		});
		expect(p.meta.phone?.arrived_hashed).toBe(false);
	});

	it('warns that one pre-hashed phone cannot match both groups, and marks it arrived hashed', async () => {
		const prehashed = { ...webLead(0), contact: { email: 'a@example.com', phone: sha('+16505551212') } };
		const { outputs } = await runExecute(node, [prehashed as unknown as IDataObject]);
		const identity = outputs[0][0].json.identity as Identity;
		expect(phones(identity).meta.phone).toMatchObject({ sha256: [sha('+16505551212')], arrived_hashed: true });
		expect(identity.warnings).toContainEqual(
			expect.stringMatching(/^phone: arrived hashed .* one hash matches only one group/),
		);
		// With one platform chosen there is nothing to warn about across platforms.
		const one = await runExecute(node, [prehashed as unknown as IDataObject], { params: { platforms: ['tiktok'] } });
		expect((one.outputs[0][0].json.identity as Identity).warnings.join()).not.toMatch(/one hash matches/);
	});
});

describe('Identity Normalizer node: Health Report reads what a sender counted in the real Redis', () => {
	const redis = nodeRedis('normalizer');
	const token = 'EAAG-report-token-0123456789';
	let meta: { url: string; close(): Promise<void> };
	beforeAll(async () => {
		meta = await startMetaStandIn({ accessToken: token });
	});
	afterAll(() => meta.close());

	it("a phone wired from platforms.meta.phone.sha256 into the Meta sender reaches Meta as the hash Meta matches", async () => {
		const { outputs } = await runExecute(node, [lead(5)], { params: { platforms: ['meta'] } });
		const wired = ((outputs[0][0].json.identity as Identity).platforms.meta as unknown as {
			phone: { sha256: string[] };
		}).phone.sha256[0];
		const record = { ...webLead(5), record_id: 'wired-5', contact: { email: 'lead.5@example.com', phone: wired } };
		const sent = await runExecute(new MetaConversions(), [record as unknown as IDataObject], {
			credentials: {
				leadCapiMetaApi: { pixelId: '5550002', accessToken: token, baseUrl: meta.url },
				leadCapiRedisApi: redis.credential(),
			},
		});
		expect(sent.outputs[0][0].json.status).toBe('sent');
		const got = (meta as unknown as { received: Array<{ event: { user_data: IDataObject } }> }).received;
		expect(got[got.length - 1].event.user_data.ph).toBe(sha('16505551212'));
	});

	it('one item per destination with the sends of the last hours', async () => {
		await runExecute(new MetaConversions(), [lead(0), lead(1)], {
			credentials: {
				leadCapiMetaApi: { pixelId: '5550001', accessToken: token, baseUrl: meta.url },
				leadCapiRedisApi: redis.credential(),
			},
		});
		const { outputs } = await runExecute(node, [{}], {
			params: { operation: 'report', platforms: ['meta', 'google'] },
			credentials: { leadCapiRedisApi: redis.credential() },
		});
		expect(outputs[0]).toHaveLength(1);
		expect(outputs[0][0].pairedItem).toEqual({ item: 0 });
		expect(outputs[0][0].json).toMatchObject({ platform: 'meta', destination: '5550001' });
		expect(JSON.stringify(outputs[0][0].json)).toMatch(/"sent":2/);
	});

	it("without a Client Key it lists only this workflow's destinations; with one, only that client's", async () => {
		const sendFrom = (workflowId: string, pixelId: string, clientKey?: string) =>
			runExecute(new MetaConversions(), [lead(0)], {
				workflowId,
				params: clientKey ? { options: { clientKey } } : {},
				credentials: {
					leadCapiMetaApi: { pixelId, accessToken: token, baseUrl: meta.url },
					leadCapiRedisApi: redis.credential(),
				},
			});
		// Two workflows of two clients on one Redis, neither with a Client Key, and a keyed client.
		await sendFrom('wf-client-a', 'PIXEL_A');
		await sendFrom('wf-client-b', 'PIXEL_B');
		await sendFrom('wf-client-c', 'PIXEL_C', 'clientc');
		const report = async (workflowId: string, clientKey = '', unkeyedScope = 'workflow') => {
			const { outputs } = await runExecute(node, [{}], {
				workflowId,
				params: { operation: 'report', platforms: ['meta'], clientKey, unkeyedScope },
				credentials: { leadCapiRedisApi: redis.credential() },
			});
			return outputs[0].map((item) => item.json.destination);
		};
		expect(await report('wf-client-a')).toEqual(['PIXEL_A']);
		expect(await report('wf-client-b')).toEqual(['PIXEL_B']);
		// A report workflow of its own (no senders): what the credential holds without a Client Key.
		expect(await report('wf-scheduled-report')).toEqual(['PIXEL_A', 'PIXEL_B']);
		expect(await report('wf-scheduled-report', 'clientc')).toEqual(['PIXEL_C']);
		// A single business reporting from a separate workflow chooses every unkeyed destination.
		expect(await report('wf-scheduled-report', '', 'all')).toEqual(['PIXEL_A', 'PIXEL_B']);
	});

	it('an empty report is one item that says what it looked at', async () => {
		const { outputs } = await runExecute(node, [{}], {
			workflowId: 'wf-empty-report',
			params: { operation: 'report', platforms: ['meta', 'tiktok'], clientKey: 'nobodysentyet', hours: 6 },
			credentials: { leadCapiRedisApi: redis.credential() },
		});
		expect(outputs[0]).toHaveLength(1);
		expect(outputs[0][0].json).toMatchObject({
			report: 'empty',
			scope: 'Client Key "nobodysentyet"',
			platforms: ['meta', 'tiktok'],
			window_hours: 6,
		});
		expect(String(outputs[0][0].json.message)).toMatch(/^No sends, refusals or warnings in the last 6 h for Client Key "nobodysentyet" on .+ \(meta, tiktok\)\./);
	});

	it("Meta Conversion Leads: the CRM dataset's item carries Meta's checklist from the ledger, each check pass or fail; a website dataset none", async () => {
		const now = Date.now();
		const iso = (hoursAgo: number) => new Date(now - hoursAgo * 3_600_000).toISOString();
		// Ten leads from Meta's instant forms (two without Meta's lead id), two of them qualified.
		const leads = Array.from({ length: 10 }, (_, i) => ({
			record_id: `cl-${i}`,
			stage: 'Lead',
			stage_at: iso(3),
			lead_created_at: iso(5 * 24),
			...(i < 8 ? { attributes: { meta_lead_id: `1234567890123${String(i).padStart(2, '0')}` } } : {}),
			contact: { email: `cl.${i}@example.com` },
		}));
		const qualified = leads.slice(0, 2).map((l) => ({ ...l, stage: 'Qualified', stage_at: iso(1) }));
		const crm = (items: IDataObject[]) =>
			runExecute(new MetaConversions(), items, {
				params: { event: 'fromStage', eventSource: 'crm', leadEventSource: 'HubSpot' },
				credentials: {
					leadCapiMetaApi: { pixelId: 'CRM_PIXEL', accessToken: token, baseUrl: meta.url },
					leadCapiRedisApi: redis.credential(),
				},
			});
		expect((await crm(leads)).outputs[0].every((i) => i.json.status === 'sent')).toBe(true);
		expect((await crm(qualified)).outputs[0].map((i) => i.json.status)).toEqual(['sent', 'sent']);
		await runExecute(new MetaConversions(), [lead(0)], {
			credentials: {
				leadCapiMetaApi: { pixelId: 'WEB_PIXEL', accessToken: token, baseUrl: meta.url },
				leadCapiRedisApi: redis.credential(),
			},
		});

		const { outputs } = await runExecute(node, [{}], {
			params: { operation: 'report', platforms: ['meta'] },
			credentials: { leadCapiRedisApi: redis.credential() },
		});
		const byPixel = Object.fromEntries(outputs[0].map((i) => [i.json.destination, i.json]));
		expect(byPixel.WEB_PIXEL.conversion_leads).toBeUndefined();
		const health = byPixel.CRM_PIXEL.conversion_leads as {
			leads: number;
			initial_stage: string;
			stages: Record<string, { leads: number; share: number }>;
			pass: boolean;
			checks: Array<{ check: string; pass: boolean; value: unknown; basis: string }>;
		};
		expect(health).toMatchObject({ leads: 10, initial_stage: 'lead', pass: false });
		expect(health.stages.qualified).toMatchObject({ leads: 2, share: 0.2 });
		const checks = Object.fromEntries(health.checks.map((c) => [c.check, [c.pass, c.value]]));
		expect(checks).toEqual({
			stages_seen: [true, 2],
			days_of_data: [false, expect.any(Number)],
			upload_frequency: [true, expect.any(Number)],
			leads_with_events: [true, 2],
			lead_id_coverage: [false, 0.8],
			stage_within_28_days: [true, 1],
			conversion_rate: [true, 1],
		});
		expect(checks.days_of_data[1]).toBeLessThan(7);
		expect(checks.upload_frequency[1]).toBeLessThanOrEqual(1);
		// Counts and names only: no lead id, record id or email in the report.
		expect(JSON.stringify(outputs[0])).not.toMatch(/12345678901230|cl-\d|example\.com/);
	});
});
