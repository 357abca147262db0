import { createHash, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Redis from 'ioredis';
import { typeformDelivery, typeformSignature } from '../support/deliveries';
import { adminRedis, dropPrefix } from '../support/redisClient';
import { n8nWithPackage, node, until, type ItemJson, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DESTINATIONS, DEMO, TOKENS } = require('../../scripts/n8n/demo.js');

/*
 * n8n keeps one credential type per name across every installed community package (the one it
 * loaded last) and drops the stored fields that type does not declare. Here another community
 * package, test/fixtures/other-community-package (n8n-nodes-other-capi), is installed into the
 * same n8n user folder as ours, the way n8n installs community packages. It declares credential
 * types under generic names (the ones this package used before its first release), with other
 * fields.
 *
 * Both packages must keep working: each of our five senders delivers to its stand-in with our
 * credentials, the Identity Normalizer, the Lead Capture Trigger (webhook secret) and the Lead
 * Rule Filter run, and the other package's node gets its own credentials' fields. Were the names
 * shared, whichever package n8n loads first (directory order, not fixed) would lose its fields,
 * and one of the two sides would fail.
 */

const REPO = path.join(__dirname, '..', '..');
const OTHER_PACKAGE = path.join(REPO, 'test', 'fixtures', 'other-community-package');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type DemoPlatforms = Awaited<ReturnType<typeof startDemoPlatforms>>;
interface StandIn {
	received: Array<Record<string, unknown>>;
}
interface CredentialTypeClass {
	name: string;
	properties: Array<{ name: string }>;
}
interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** The credential types a package's `n8n` block lists: name and field names, from its files. */
function credentialTypesOf(packageDir: string): Array<{ name: string; fields: string[] }> {
	const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
	return (manifest.n8n.credentials as string[]).flatMap((file) => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(path.join(packageDir, file)) as Record<
			string,
			new () => CredentialTypeClass
		>;
		return Object.values(exported).map((Cls) => {
			const type = new Cls();
			return { name: type.name, fields: type.properties.map((p) => p.name) };
		});
	});
}

/**
 * Installs the other package as n8n installs a community package (and as scripts/n8n/n8n.js
 * installs ours): its npm tarball unpacked into <user folder>/.n8n/nodes/node_modules/<name>.
 * It has no dependencies, so there is nothing to `npm install` after unpacking.
 */
function installOtherPackage(userFolder: string): string {
	const name = JSON.parse(fs.readFileSync(path.join(OTHER_PACKAGE, 'package.json'), 'utf8'))
		.name as string;
	const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-other-pack-'));
	try {
		const pack = spawnSync(
			'npm',
			['pack', OTHER_PACKAGE, '--pack-destination', packDir, '--silent'],
			{
				encoding: 'utf8',
			},
		);
		if (pack.status !== 0) throw new Error(`npm pack of the other package failed: ${pack.stderr}`);
		const tgz = path.join(packDir, pack.stdout.trim().split('\n').pop() || '');
		const dest = path.join(userFolder, '.n8n', 'nodes', 'node_modules', name);
		fs.mkdirSync(dest, { recursive: true });
		const tar = spawnSync('tar', ['-xzf', tgz, '-C', dest, '--strip-components=1'], {
			encoding: 'utf8',
		});
		if (tar.status !== 0) throw new Error(`could not extract ${tgz}: ${tar.stderr}`);
		return name;
	} finally {
		fs.rmSync(packDir, { recursive: true, force: true });
	}
}

/** What a node did in a run: n8n's error for it, that it did not run, or its first item's `status` ('ran' without one). */
function outcome(run: { nodes: Record<string, ItemJson[]>; raw: unknown }, name: string): unknown {
	const runData = (
		run.raw as {
			data: { resultData: { runData: Record<string, Array<{ error?: { message?: string } }>> } };
		}
	).data.resultData.runData;
	const first = runData[name]?.[0];
	if (!first) return 'did not run';
	if (first.error) return `error: ${first.error.message}`;
	return run.nodes[name]?.[0]?.status ?? 'ran';
}

describe('beside another community package that declares generic credential type names, in a real n8n', () => {
	let instance: N8nInstance;
	let platforms: DemoPlatforms;
	let admin: Redis;
	const keyPrefix = `e2e-coexist-${randomUUID().slice(0, 8)}`;
	const ours = credentialTypesOf(REPO);
	const theirs = credentialTypesOf(OTHER_PACKAGE);
	/** The other package's credentials: a workspace and a secret of their own per type. */
	const otherCredentials: Credential[] = theirs.map((type, i) => ({
		id: `e2eOtherCred000${i + 1}`,
		name: `Other CAPI ${type.name}`,
		type: type.name,
		data: Object.fromEntries(type.fields.map((field) => [field, `other-${field}-${i + 1}`])),
	}));
	const otherNode = () =>
		node(
			'Other CAPI',
			'n8n-nodes-other-capi.otherCapi',
			1,
			[220, 400],
			{},
			{
				credentials: Object.fromEntries(
					otherCredentials.map((c) => [c.type, { id: c.id, name: c.name }]),
				),
			},
		);

	beforeAll(async () => {
		platforms = await startDemoPlatforms({ redisUrl: process.env.REDIS_URL, keyPrefix });
		instance = await n8nWithPackage({ own: 'another community package installed beside ours' });
		expect(installOtherPackage(instance.userFolder)).toBe('n8n-nodes-other-capi');
		instance.importCredentials([...platforms.credentials, ...otherCredentials]);
		admin = adminRedis();
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
		if (admin) await dropPrefix(admin, keyPrefix);
		admin?.disconnect();
	});

	it('the other package declares five credential types with fields of their own, none named like ours', () => {
		expect(theirs).toHaveLength(5);
		const ourNames = new Set(ours.map((t) => t.name));
		expect(theirs.filter((t) => ourNames.has(t.name))).toEqual([]);
		for (const type of theirs)
			expect([type.name, type.fields]).toEqual([type.name, ['workspace', expect.any(String)]]);
		// The fields our senders read are not among theirs: had n8n handed our nodes the other
		// package's type, our senders would get none of them.
		const theirFields = new Set(theirs.flatMap((t) => t.fields));
		for (const field of [
			'pixelId',
			'accessToken',
			'adAccountId',
			'pixelCode',
			'uetTagId',
			'apiToken',
			'developerToken',
		]) {
			expect([field, theirFields.has(field)]).toEqual([field, false]);
		}
	});

	it("our five senders deliver to their stand-ins, the Identity Normalizer runs, and the other package's node gets its own credentials", async () => {
		const { standIns } = platforms;
		const before = Object.fromEntries(
			Object.entries(standIns).map(([name, s]) => [name, (s as StandIn).received.length]),
		);
		const example = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'fanout-one-lead-five-platforms.json'), 'utf8'),
		);
		const start = example.nodes.find(
			(n: { type: string }) => n.type === 'n8n-nodes-base.manualTrigger',
		).name;
		const workflow = {
			...example,
			id: 'e2eCoexistFanout',
			name: 'e2e: five senders and the other package',
			nodes: [...example.nodes, otherNode()],
			connections: {
				...example.connections,
				[start]: {
					main: [
						[...example.connections[start].main[0], { node: 'Other CAPI', type: 'main', index: 0 }],
					],
				},
			},
		};
		instance.importWorkflow(workflow);
		const run = await instance.execute(workflow.id);

		const senders = [
			'Meta Conversions',
			'Pinterest Conversions',
			'TikTok Events',
			'Google Ads Conversions',
			'Microsoft Conversions',
		];
		expect(Object.fromEntries(senders.map((name) => [name, outcome(run, name)]))).toEqual(
			Object.fromEntries(senders.map((name) => [name, 'sent'])),
		);
		expect(run.status).toBe('success');
		const recordId = 'demo-deal-5001';
		const eventIds = Object.fromEntries(senders.map((name) => [name, run.nodes[name][0].event_id]));
		expect(eventIds).toEqual({
			'Meta Conversions': sha(`${DESTINATIONS.metaPixel}|Lead|${recordId}`),
			'Pinterest Conversions': sha(`${DESTINATIONS.pinterestAdAccount}|lead|${recordId}`),
			'TikTok Events': sha(`${DESTINATIONS.tiktokPixel}|SubmitForm|${recordId}`),
			'Google Ads Conversions': sha(
				`customers/${DESTINATIONS.googleCustomer}/conversionActions/${DESTINATIONS.googleConversionAction}|lead|${recordId}`,
			),
			'Microsoft Conversions': sha(`${DESTINATIONS.microsoftTag}|lead|${recordId}`),
		});
		// Each stand-in got exactly the one event, sent with our credential's token (the stand-ins
		// refuse any other).
		const delivered = Object.fromEntries(
			Object.entries(standIns).map(([name, s]) => [
				name,
				(s as StandIn).received.length - before[name],
			]),
		);
		// The fan-out template's Google node is version 1 (Google Ads API): the Data Manager
		// stand-in receives nothing.
		expect(delivered).toEqual({
			meta: 1,
			pinterest: 1,
			tiktok: 1,
			microsoft: 1,
			google: 1,
			googleDataManager: 0,
		});
		expect((standIns.meta as StandIn).received.at(-1)).toMatchObject({
			pixelId: DESTINATIONS.metaPixel,
		});

		const identity = run.nodes['Identity Normalizer'][0].identity as {
			platforms: Record<string, unknown>;
		};
		expect(Object.keys(identity.platforms).sort()).toEqual([
			'google',
			'meta',
			'microsoft',
			'pinterest',
			'tiktok',
		]);

		// The other package's node: every one of its credentials with its own workspace and fields.
		expect(outcome(run, 'Other CAPI')).toBe('ran');
		const byType = (a: ItemJson, b: ItemJson) =>
			String(a.credentialType).localeCompare(String(b.credentialType));
		expect([...run.nodes['Other CAPI']].sort(byType)).toEqual(
			otherCredentials
				.map((c) => ({
					credentialType: c.type,
					workspace: c.data.workspace,
					fields: expect.arrayContaining(Object.keys(c.data)),
				}))
				.sort(byType),
		);
	});

	it('a signed Typeform delivery goes through the Lead Capture Trigger (our webhook secret) and the Lead Rule Filter to Meta', async () => {
		const meta = platforms.standIns.meta as StandIn;
		const workflow = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'typeform-lead-with-preview.json'), 'utf8'),
		);
		const trigger = workflow.nodes.find(
			(n: { type: string }) => n.type === 'n8n-nodes-lead-capi.leadCaptureTrigger',
		);
		expect(trigger.credentials).toHaveProperty('leadCapiWebhookApi', {
			id: DEMO.webhookSecret.id,
			name: DEMO.webhookSecret.name,
		});
		instance.importWorkflow(workflow, { activate: true });
		const server = await instance.serve();
		try {
			const token = `e2ecoexist${randomUUID().slice(0, 8)}`;
			const delivery = typeformDelivery({
				token,
				email: 'Dana.Reyes@Initech.co.uk',
				firstName: 'Dana',
			});
			const res = await fetch(`${server.baseUrl}/webhook/${trigger.parameters.path}`, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'typeform-signature': typeformSignature(delivery, TOKENS.webhook),
				},
				body: delivery,
			});
			expect([res.status, await res.json()]).toEqual([
				200,
				expect.objectContaining({ ok: true, record_id: token, state: 'lead' }),
			]);
			const executions = () => server.executions(workflow.id);
			const finished = (e: { status: string }) => !['new', 'running', 'waiting'].includes(e.status);
			await until(
				async () => (await executions()).some(finished),
				60_000,
				'the execution to finish',
			);
			expect((await executions()).map((e) => e.status)).toEqual(['success']);
			const eventId = sha(`${DESTINATIONS.metaPixel}|Lead|${token}`);
			const arrived = () =>
				meta.received.some((r) => (r.event as { event_id?: string }).event_id === eventId);
			await until(arrived, 10_000, 'the Typeform lead at the Meta stand-in');
			// A wrong signature is still refused: the trigger checked it with our secret.
			const forged = await fetch(`${server.baseUrl}/webhook/${trigger.parameters.path}`, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'typeform-signature': typeformSignature(delivery, 'not-the-secret'),
				},
				body: delivery,
			});
			expect(forged.status).toBe(401);
		} finally {
			await server.stop();
		}
	});
});
