import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { hubspotDealWon } from '../support/deliveries';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { n8nWithPackage, until, type ItemJson, type N8nInstance, type RunResult } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DESTINATIONS } = require('../../scripts/n8n/demo.js');

const REPO = path.join(__dirname, '..', '..');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const readTemplate = (name: string) => JSON.parse(fs.readFileSync(path.join(REPO, 'examples', name), 'utf8'));
/** The stand-ins of the four other platforms: the fan-out example's Google node uses the Google Ads API, the CRM template's Data Manager. */
const OTHERS = {
	fanout: ['pinterest', 'tiktok', 'google', 'microsoft'],
	crm: ['pinterest', 'tiktok', 'googleDataManager', 'microsoft'],
} as const;
const OTHER_SENDERS = ['Pinterest Conversions', 'TikTok Events', 'Google Ads Conversions', 'Microsoft Conversions'];

interface TemplateNode {
	name: string;
	parameters: { jsonOutput?: string };
	credentials?: Record<string, { id: string; name: string }>;
}

/** A node's items on one of its outputs (0: success, 1: the error output of On Error → Continue (using error output)). */
function outputOf(run: RunResult, node: string, output: number): ItemJson[] {
	const runs = (run.raw as { data: { resultData: { runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: ItemJson }> | null> } }>> } } }).data.resultData.runData;
	return (runs[node]?.[0]?.data?.main?.[output] ?? []).map((item) => item.json);
}

/**
 * The shipped five-platform templates in a real n8n while Meta is down (503) or misconfigured (a
 * wrong token): the four others receive their event; Meta's retryable event is queued in the
 * outbox, its permanent failure leaves on Meta's error output and is not queued.
 */
describe('five-platform fan-outs keep going when Meta fails', () => {
	let instance: N8nInstance;
	let platforms: Awaited<ReturnType<typeof startDemoPlatforms>>;
	let admin: Redis;
	const keyPrefix = `e2e-fanout-${randomUUID().slice(0, 8)}`;
	const metaDue = () => `${keyPrefix}:outbox:{meta:${DESTINATIONS.metaPixel}}:due`;
	const received = (names: readonly string[]): Record<string, number> =>
		Object.fromEntries(names.map((name) => [name, platforms.standIns[name].received.length]));
	const plusOne = (counts: Record<string, number>) =>
		Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, n + 1]));
	const wrongToken = { id: 'e2eFanoutMetaBad', name: 'Meta (wrong token)' };

	/** The fan-out example for its own record id, optionally with Meta's credential swapped. */
	function fanout(id: string, recordId: string, metaCredential?: { id: string; name: string }) {
		const workflow = readTemplate('fanout-one-lead-five-platforms.json');
		workflow.id = id;
		workflow.name = `${workflow.name} (${recordId})`;
		for (const n of workflow.nodes as TemplateNode[]) {
			// Its own record id, and its own gclid: Google takes one click conversion per gclid, action
			// and second (the two runs can fall in the same second: the lead's time is "2 hours ago").
			if (n.parameters.jsonOutput) {
				n.parameters.jsonOutput = n.parameters.jsonOutput
					.replace('demo-deal-5001', recordId)
					.replace('Cj0KCQiA-demoFanOut', `Cj0KCQiA-${recordId}`);
			}
			if (n.name === 'Meta Conversions' && metaCredential) n.credentials!.leadCapiMetaApi = metaCredential;
		}
		instance.importWorkflow(workflow);
		return workflow.id as string;
	}

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage();
		const meta = platforms.credentials.find((c: { type: string }) => c.type === 'leadCapiMetaApi');
		instance.importCredentials([
			...platforms.credentials,
			{ ...meta, ...wrongToken, data: { ...meta.data, accessToken: 'EAAG-not-the-right-token' } },
		]);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('fanout-one-lead-five-platforms, Meta answering 503: 4 of 4 others receive, Meta queues its event', async () => {
		const before = received(OTHERS.fanout);
		platforms.standIns.meta.queueFaults(Array.from({ length: 5 }, () => ({ status: 503, headers: { 'retry-after': '0' } })));
		const run = await instance.execute(fanout('e2eFanout503one', 'fanout-503-0001'));
		expect(run.status).toBe('success');
		const [meta] = run.nodes['Meta Conversions'];
		expect(meta).toMatchObject({ status: 'queued', event_id: sha(`${DESTINATIONS.metaPixel}|Lead|fanout-503-0001`) });
		expect(await admin.zrange(metaDue(), 0, -1)).toHaveLength(1);
		for (const name of OTHER_SENDERS) expect([name, run.nodes[name][0].status]).toEqual([name, 'sent']);
		expect(received(OTHERS.fanout)).toEqual(plusOne(before));
		expect(platforms.standIns.meta.received).toHaveLength(0);
	});

	it('fanout-one-lead-five-platforms, a wrong Meta token: 4 of 4 others receive, Meta reports on its error output, nothing queued', async () => {
		const before = received(OTHERS.fanout);
		const queuedBefore = await admin.zcard(metaDue());
		const run = await instance.execute(fanout('e2eFanoutBadTok1', 'fanout-token-0001', wrongToken));
		expect(run.status).toBe('success');
		expect(outputOf(run, 'Meta Conversions', 0)).toEqual([]);
		const [failed] = outputOf(run, 'Meta Conversions', 1);
		// n8n shows an error-output item as its error's message (the item links to its lead by pairedItem).
		expect(failed).toEqual({ error: expect.stringMatching(/^meta: item 0 failed: Meta: Invalid OAuth access token/) });
		expect(JSON.stringify(run.raw)).not.toContain('EAAG-not-the-right-token');
		for (const name of OTHER_SENDERS) expect([name, run.nodes[name][0].status]).toEqual([name, 'sent']);
		expect(received(OTHERS.fanout)).toEqual(plusOne(before));
		expect(await admin.zcard(metaDue())).toBe(queuedBefore);
	});

	it('crm-deal-won-purchase-five-platforms live, Meta answering 503 (queued), then a wrong Meta token (reported, not queued): the Purchase reaches the four others each time', async () => {
		const template = readTemplate('crm-deal-won-purchase-five-platforms.json');
		instance.importWorkflow(template, { activate: true });
		const server = await instance.serve();
		try {
			const before = received(OTHERS.crm);
			const queuedBefore = await admin.zcard(metaDue());
			platforms.standIns.meta.queueFaults(Array.from({ length: 5 }, () => ({ status: 503, headers: { 'retry-after': '0' } })));
			const deal = hubspotDealWon({ objectId: 77001, amount: '980.00', currency: 'eur', email: 'sam.okafor@example.com', gclid: 'Cj0KCQiA-fanout-deal' });
			const answer = await fetch(`${server.baseUrl}/webhook/crm-deal-won`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deal });
			expect(answer.status).toBe(200);
			await until(() => JSON.stringify(received(OTHERS.crm)) === JSON.stringify(plusOne(before)), 60_000, 'the Purchase at the four other platforms');
			await until(async () => (await admin.zcard(metaDue())) === queuedBefore + 1, 30_000, "Meta's Purchase in the outbox");
			expect(await admin.zrange(metaDue(), 0, -1)).toContain(sha(`${DESTINATIONS.metaPixel}|Purchase|77001`));
			expect(platforms.standIns.meta.received).toHaveLength(0);

			// The same template with a wrong Meta token (a copy on its own path): the four others
			// receive, the execution succeeds (Meta's failure is on its error output), nothing queued.
			const broken = readTemplate('crm-deal-won-purchase-five-platforms.json');
			broken.id = 'e2eFanoutCrmBad1';
			broken.name = `${broken.name} (wrong Meta token)`;
			for (const n of broken.nodes as Array<TemplateNode & { webhookId?: string; parameters: { path?: string } }>) {
				if (n.parameters.path) n.parameters.path = 'crm-deal-won-bad-meta';
				if (n.webhookId) n.webhookId = randomUUID();
				if (n.name === 'Meta Conversions') n.credentials!.leadCapiMetaApi = wrongToken;
			}
			instance.importWorkflow(broken, { activate: true });
			const live = await instance.serve();
			const beforeBad = received(OTHERS.crm);
			const queuedBeforeBad = await admin.zcard(metaDue());
			const badDeal = hubspotDealWon({ objectId: 77002, amount: '410.00', currency: 'eur', email: 'ines.moreau@example.com', gclid: 'Cj0KCQiA-fanout-bad' });
			const badAnswer = await fetch(`${live.baseUrl}/webhook/crm-deal-won-bad-meta`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: badDeal });
			expect(badAnswer.status).toBe(200);
			await until(() => JSON.stringify(received(OTHERS.crm)) === JSON.stringify(plusOne(beforeBad)), 60_000, 'the Purchase at the four other platforms (wrong Meta token)');
			await until(async () => (await live.executions(broken.id)).some((e) => e.status !== 'running' && e.status !== 'new'), 30_000, 'the execution to finish');
			expect((await live.executions(broken.id)).map((e) => e.status)).toEqual(['success']);
			expect(await admin.zcard(metaDue())).toBe(queuedBeforeBad);
			expect(platforms.standIns.meta.received).toHaveLength(0);
		} finally {
			await server.stop();
		}
	});
});
