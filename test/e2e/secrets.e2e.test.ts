import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { typeformDelivery, typeformSignature } from '../support/deliveries';
import { captureTrigger, n8nWithPackage, type N8nInstance } from './n8n';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startDemoPlatforms, DEMO } = require('../../scripts/n8n/demo.js');

/*
 * Secrets in a real n8n: every platform's credential (Meta access token, app secret and the
 * appsecret_proof made from them; Pinterest, TikTok and Microsoft tokens; Google's developer
 * token, OAuth2 client secret, access and refresh tokens) and the Lead Capture Trigger's
 * webhook secret, all random per run. The five senders run against stand-ins that fail in every
 * way a platform does — a 400 and a 401 that echo the secrets sent to it, a 5xx and a 429 that do
 * too, dropped connections, wrong credentials — and the trigger gets good and bad signatures.
 * Then every place a secret could end up is searched: node outputs, error messages, n8n's
 * execution data through its REST API, the `n8n execute` output, n8n's log (debug level), the
 * credential tests' and webhook answers. Zero hits.
 *
 * A Redis password typed where it does not belong — in Host (`default:<pw>@host`), in Cluster
 * Nodes or in Sentinel Addresses — is a secret too (issue 13): the senders with such a dedup
 * store, the trigger writing its capture log there, and the credential tests are searched for it.
 */

const REPO = path.join(__dirname, '..', '..');
const run = randomUUID().slice(0, 8);
const TOKENS = {
	meta: `e2e-secret-meta-token-${run}`,
	pinterest: `e2e-secret-pinterest-token-${run}`,
	tiktok: `e2e-secret-tiktok-token-${run}`,
	microsoft: `e2e-secret-microsoft-token-${run}`,
	googleDeveloper: `e2e-secret-google-developer-${run}`,
	webhook: `e2e-secret-webhook-${run}`,
};
const META_APP_SECRET = `e2e-secret-meta-app-secret-${run}`;
const GOOGLE_CLIENT_SECRET = `e2e-secret-google-client-${run}`;
/** Redis credentials with the password typed into an address field, one per field. */
const REDIS_PASSWORD_IN = {
	host: `e2e-secret-redis-host-pw-${run}`,
	cluster: `e2e-secret-redis-cluster-pw-${run}`,
	sentinel: `e2e-secret-redis-sentinel-pw-${run}`,
};
const MISPLACED_REDIS = [
	{
		id: 'e2eRedisPwHost01',
		name: 'Redis (password in Host)',
		type: 'leadCapiRedisApi',
		data: {
			connection: 'fields',
			host: `default:${REDIS_PASSWORD_IN.host}@127.0.0.1`,
			port: 6379,
			keyPrefix: `e2e-secrets-${run}`,
		},
	},
	{
		id: 'e2eRedisPwClust1',
		name: 'Redis (password in Cluster Nodes)',
		type: 'leadCapiRedisApi',
		data: {
			connection: 'cluster',
			clusterNodes: `127.0.0.1:7000, :${REDIS_PASSWORD_IN.cluster}@127.0.0.1:7001`,
			keyPrefix: `e2e-secrets-${run}`,
		},
	},
	{
		id: 'e2eRedisPwSent01',
		name: 'Redis (password in Sentinel Addresses)',
		type: 'leadCapiRedisApi',
		data: {
			connection: 'sentinel',
			masterName: 'mymaster',
			sentinels: `default:${REDIS_PASSWORD_IN.sentinel}@127.0.0.1:26379`,
			keyPrefix: `e2e-secrets-${run}`,
		},
	},
];
const WRONG = {
	meta: `e2e-wrong-meta-token-${run}`,
	pinterest: `e2e-wrong-pinterest-token-${run}`,
	tiktok: `e2e-wrong-tiktok-token-${run}`,
	microsoft: `e2e-wrong-microsoft-token-${run}`,
	googleDeveloper: `e2e-wrong-google-developer-${run}`,
};
const SENDERS = [
	'Meta Conversions',
	'Pinterest Conversions',
	'TikTok Events',
	'Google Ads Conversions',
	'Microsoft Conversions',
];
const PLATFORM_OF: Record<string, 'meta' | 'pinterest' | 'tiktok' | 'google' | 'microsoft'> = {
	'Meta Conversions': 'meta',
	'Pinterest Conversions': 'pinterest',
	'TikTok Events': 'tiktok',
	'Google Ads Conversions': 'google',
	'Microsoft Conversions': 'microsoft',
};

type Platforms = Awaited<ReturnType<typeof startDemoPlatforms>>;
interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

describe('secrets never reach outputs, errors, execution data or logs in a real n8n', () => {
	let platforms: Platforms;
	let instance: N8nInstance;
	const secrets = new Set<string>();
	/** Every text a secret must not be in: what it is, and the text. */
	const places: Array<[string, string]> = [];
	const look = (where: string, value: unknown) =>
		places.push([where, typeof value === 'string' ? value : (JSON.stringify(value) ?? '')]);

	/** An error body in every shape the platforms' parsers read, echoing every secret given. */
	const echoing = (values: string[]) => {
		const all = values.join(' ');
		return {
			error: {
				message: `Invalid OAuth access token ${all}`,
				type: 'OAuthException',
				code: 190,
				status: 'UNAUTHENTICATED',
				details: [{ attemptedValue: values[0], message: `token ${all}` }],
				error_user_msg: all,
				fbtrace_id: 'e2eTrace',
			},
			code: 40105,
			message: `The access token ${all} is invalid`,
			request_id: 'e2e',
			echo: { access_token: values[0], token: values[0], authorization: `Bearer ${values[0]}` },
		};
	};

	beforeAll(async () => {
		platforms = await startDemoPlatforms({
			redisUrl: process.env.REDIS_URL,
			keyPrefix: `e2e-secrets-${run}`,
			tokens: TOKENS,
			metaAppSecret: META_APP_SECRET,
			googleClientSecret: GOOGLE_CLIENT_SECRET,
		});
		const credentials = platforms.credentials as Credential[];
		const google = platforms.standIns.google;
		for (const value of [
			...Object.values(TOKENS),
			...Object.values(WRONG),
			META_APP_SECRET,
			GOOGLE_CLIENT_SECRET,
			...Object.values(REDIS_PASSWORD_IN),
			google.refreshToken,
			google.accessToken(),
		]) {
			secrets.add(value);
		}
		secrets.add(createHmac('sha256', META_APP_SECRET).update(TOKENS.meta).digest('hex'));
		secrets.add(createHmac('sha256', META_APP_SECRET).update(WRONG.meta).digest('hex'));
		// The same credentials with wrong secrets, under ids of their own.
		const wrongOf: Record<string, Record<string, string>> = {
			leadCapiMetaApi: { accessToken: WRONG.meta },
			leadCapiPinterestApi: { accessToken: WRONG.pinterest },
			leadCapiTiktokApi: { accessToken: WRONG.tiktok },
			leadCapiMicrosoftApi: { apiToken: WRONG.microsoft },
			leadCapiGoogleAdsOAuth2Api: { developerToken: WRONG.googleDeveloper },
		};
		const wrong = credentials
			.filter((c) => wrongOf[c.type])
			.map((c) => ({
				...c,
				id: `${c.id.slice(0, 11)}Wrong`,
				name: `${c.name} (wrong)`,
				data: { ...c.data, ...wrongOf[c.type] },
			}));
		instance = await n8nWithPackage({ own: "n8n's whole log at debug level and its whole execution list are searched" });
		// n8n's log at debug level from its start: every run, the REST API, the trigger, the credential tests.
		instance.env.N8N_LOG_LEVEL = 'debug';
		instance.importCredentials([...credentials, ...wrong, ...MISPLACED_REDIS]);

		// The five senders (and the Identity Normalizer) from one lead, every failure kept as the item's output.
		const example = JSON.parse(
			fs.readFileSync(path.join(REPO, 'examples', 'fanout-one-lead-five-platforms.json'), 'utf8'),
		);
		const senders = (
			ids: (c: { id: string; name: string }) => { id: string; name: string },
			redis?: { id: string; name: string },
		) => ({
			...example,
			nodes: example.nodes.map(
				(n: {
					name: string;
					parameters: Record<string, unknown>;
					credentials?: Record<string, { id: string; name: string }>;
				}) =>
					SENDERS.includes(n.name)
						? {
								...n,
								onError: 'continueRegularOutput',
								parameters: { ...n.parameters, dedupStore: redis ? 'redis' : 'off' },
								credentials: Object.fromEntries(
									Object.entries(n.credentials ?? {}).map(([type, ref]) => [
										type,
										type === 'leadCapiRedisApi' ? (redis ?? ref) : ids(ref),
									]),
								),
							}
						: n,
			),
		});
		instance.importWorkflow({
			...senders((ref) => ref),
			id: 'e2eSecretsSend01',
			name: 'e2e: five senders',
		});
		instance.importWorkflow({
			...senders((ref) => ({ id: `${ref.id.slice(0, 11)}Wrong`, name: `${ref.name} (wrong)` })),
			id: 'e2eSecretsWrong1',
			name: 'e2e: five senders, wrong credentials',
		});
		// The five senders with each misplaced-password Redis as their dedup store.
		MISPLACED_REDIS.forEach((redis, i) => {
			instance.importWorkflow({
				...senders((ref) => ref, { id: redis.id, name: redis.name }),
				id: `e2eSecretsRdSnd${i}`,
				name: `e2e: five senders, ${redis.name}`,
			});
			// The trigger writing its capture log to it (and counting refusals there).
			const hook = {
				id: `e2eSecretsRdHok${i}`,
				name: `e2e: capture log on ${redis.name}`,
				nodes: [
					captureTrigger(
						'Typeform',
						{
							source: 'typeform',
							path: `e2e-secrets-${redis.id}`,
							authentication: 'signature',
							captureLog: 'redis',
						},
						{
							leadCapiWebhookApi: { id: DEMO.webhookSecret.id, name: DEMO.webhookSecret.name },
							leadCapiRedisApi: { id: redis.id, name: redis.name },
						},
					),
				],
				connections: {},
				settings: { executionOrder: 'v1' },
			};
			instance.importWorkflow(hook, { activate: true });
		});
		const trigger = {
			id: 'e2eSecretsHook01',
			name: 'e2e: signed Typeform',
			nodes: [
				captureTrigger(
					'Typeform',
					{ source: 'typeform', path: 'e2e-secrets', authentication: 'signature' },
					{ leadCapiWebhookApi: { id: DEMO.webhookSecret.id, name: DEMO.webhookSecret.name } },
				),
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
		instance.importWorkflow(trigger, { activate: true });
		// A positive control for the search: the credentials imported hold them all.
		const imported = JSON.stringify([...credentials, ...wrong, ...MISPLACED_REDIS]);
		const missing = [...secrets].filter((s) => !imported.includes(s) && !/^[0-9a-f]{64}$/.test(s));
		expect(missing).toEqual([]);
	});
	afterAll(async () => {
		await instance?.cleanup();
		await platforms?.close();
	});

	it('after platform errors of every kind, wrong credentials and bad signatures, no secret is anywhere', async () => {
		const { standIns } = platforms;
		/** What each platform's stand-in could echo back: the secrets sent to it, and no others. */
		const sentTo = (platform: string): string[] => {
			const google = standIns.google;
			const own: Record<string, string[]> = {
				meta: [
					TOKENS.meta,
					META_APP_SECRET,
					createHmac('sha256', META_APP_SECRET).update(TOKENS.meta).digest('hex'),
				],
				pinterest: [TOKENS.pinterest],
				tiktok: [TOKENS.tiktok],
				microsoft: [TOKENS.microsoft],
				google: [google.accessToken(), TOKENS.googleDeveloper, google.refreshToken],
				// The Data Manager stand-in (the templates' Google): its OAuth tokens.
				googleDataManager: [
					standIns.googleDataManager.accessToken(),
					standIns.googleDataManager.refreshToken,
				],
			};
			return own[platform];
		};
		const queueAll = (fault: (platform: string) => Record<string, unknown>, times = 8) => {
			for (const [name, standIn] of Object.entries(standIns) as Array<
				[string, { reset: () => void; queueFaults: (f: unknown[]) => void }]
			>) {
				standIn.reset();
				standIn.queueFaults(Array.from({ length: times }, () => fault(name)));
			}
		};
		/** Every stand-in answers the next requests with `status`, its body echoing the secrets sent to it. */
		const echo =
			(status: number, headers: (platform: string) => Record<string, string> = () => ({})) =>
			() =>
				queueAll((platform) => ({
					status,
					body: echoing(sentTo(platform)),
					headers: headers(platform),
				}));
		const scenarios: Array<[string, () => void, string]> = [
			['400 echoing its secrets', echo(400), 'e2eSecretsSend01'],
			[
				'401 echoing its secrets',
				echo(401, (platform) => ({
					'www-authenticate': `Bearer error="invalid_token", token="${sentTo(platform)[0]}"`,
				})),
				'e2eSecretsSend01',
			],
			['503 echoing its secrets', echo(503, () => ({ 'retry-after': '0' })), 'e2eSecretsSend01'],
			['429 echoing its secrets', echo(429, () => ({ 'retry-after': '1' })), 'e2eSecretsSend01'],
			['connections reset', () => queueAll(() => ({ kind: 'reset' })), 'e2eSecretsSend01'],
			['wrong credentials', () => queueAll(() => ({}), 0), 'e2eSecretsWrong1'],
			...MISPLACED_REDIS.map((redis, i): [string, () => void, string] => [
				`dedup store ${redis.name}`,
				() => queueAll(() => ({}), 0),
				`e2eSecretsRdSnd${i}`,
			]),
			['no fault (control)', () => queueAll(() => ({}), 0), 'e2eSecretsSend01'],
		];
		const outcomes: Record<string, Record<string, string>> = {};
		for (const [scenario, arrange, workflowId] of scenarios) {
			arrange();
			const result = await instance.execute(workflowId);
			secrets.add(standIns.google.accessToken());
			look(`${scenario}: node outputs`, result.nodes);
			look(`${scenario}: run error`, result.error ?? null);
			look(`${scenario}: run data`, result.raw);
			look(`${scenario}: what n8n logged during the run`, result.log);
			// An item's status, or the node's own error (it failed before sending anything).
			const runData = (
				result.raw as {
					data: { resultData: { runData: Record<string, Array<{ error?: unknown }>> } };
				}
			).data.resultData.runData;
			const outcome = (name: string) => {
				const item = result.nodes[name]?.[0];
				if (typeof item?.status === 'string') return item.status;
				return item?.error !== undefined || runData[name]?.[0]?.error !== undefined
					? 'node error'
					: 'no output';
			};
			outcomes[scenario] = Object.fromEntries(
				SENDERS.map((name) => [PLATFORM_OF[name], outcome(name)]),
			);
		}
		// n8n's own view: the REST API, the trigger, the credential tests.
		const server = await instance.serve();
		try {
			const hook = `${server.baseUrl}/webhook/e2e-secrets`;
			const delivery = typeformDelivery({
				token: `secrets${run}`,
				email: 'kim@umbrella.example',
				firstName: 'Kim',
			});
			const hooks = [
				hook,
				...MISPLACED_REDIS.map((redis) => `${server.baseUrl}/webhook/e2e-secrets-${redis.id}`),
			];
			for (const [what, signature, url] of hooks.flatMap((to) => [
				['signed delivery', typeformSignature(delivery, TOKENS.webhook), to],
				['wrong signature', typeformSignature(delivery, WRONG.meta), to],
				['the secret itself as the signature', `sha256=${TOKENS.webhook}`, to],
				['no signature', '', to],
			])) {
				const res = await fetch(url, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						...(signature ? { 'typeform-signature': signature } : {}),
					},
					body: delivery,
				});
				const answer = await res.text();
				look(
					`webhook answer (${what})`,
					`${res.status} ${JSON.stringify([...res.headers])} ${answer}`,
				);
				// A capture log that cannot be written never costs the lead.
				if (what === 'signed delivery') expect([url, res.status]).toEqual([url, 200]);
			}
			for (const credential of platforms.credentials as Credential[]) {
				for (const data of [
					credential.data,
					{
						...credential.data,
						accessToken: WRONG.meta,
						apiToken: WRONG.microsoft,
						developerToken: WRONG.googleDeveloper,
						secret: ` ${TOKENS.webhook} `,
					},
				]) {
					look(`credential test ${credential.type}`, await server.testCredential({ ...credential, data }));
				}
			}
			for (const credential of MISPLACED_REDIS) {
				const tested = await server.testCredential(credential as Credential);
				look(`credential test ${credential.name}`, tested);
				// The test still says which field is wrong.
				expect(JSON.stringify(tested)).toMatch(/(Host|Cluster Nodes|Sentinel Addresses): /);
			}
			await new Promise((r) => setTimeout(r, 2_000));
			const list = (await server.restGet('/executions?limit=100')) as {
				data: { results: Array<{ id: string }> };
			};
			look('REST execution list', list);
			expect(list.data.results.length).toBeGreaterThanOrEqual(scenarios.length);
			for (const { id } of list.data.results)
				look(`REST execution ${id}`, await server.restGet(`/executions/${id}`));
		} finally {
			await server.stop();
		}
		let logged = '';
		for (const file of fs.readdirSync(instance.userFolder).filter((f) => f.endsWith('.log'))) {
			const log = fs.readFileSync(path.join(instance.userFolder, file), 'utf8');
			look(`n8n log ${file}`, log);
			logged += log;
		}
		// The trigger did log each capture log it could not write, by field, without the value.
		for (const field of ['Host', 'Cluster Nodes', 'Sentinel Addresses']) {
			expect([field, logged.includes(`capture log not written (${field}: `)]).toEqual([
				field,
				true,
			]);
		}

		const forms = (secret: string) => [
			secret,
			encodeURIComponent(secret),
			Buffer.from(secret).toString('base64'),
		];
		const hits = places.flatMap(([where, text]) =>
			[...secrets].flatMap((secret) =>
				forms(secret).some((form) => text.includes(form)) ? [`${where}: ${secret}`] : [],
			),
		);
		const bytes = places.reduce((n, [, text]) => n + text.length, 0);
		// eslint-disable-next-line no-console
		console.log(
			`secrets scan: ${places.length} places (${bytes} characters), ${secrets.size} secrets, ${hits.length} hits; outcomes ${JSON.stringify(outcomes)}`,
		);
		fs.mkdirSync(path.join(REPO, '.e2e'), { recursive: true });
		fs.writeFileSync(
			path.join(REPO, '.e2e', 'secrets-report.json'),
			JSON.stringify(
				{
					places: places.map(([where, text]) => [where, text.length]),
					secrets: secrets.size,
					hits,
					outcomes,
				},
				null,
				2,
			),
		);
		// Every failure scenario failed at every platform (the faults were played: an item failed,
		// or the node failed before sending, e.g. Google's time-zone lookup), the control sent.
		for (const [scenario] of scenarios.slice(0, -1)) {
			for (const [platform, status] of Object.entries(outcomes[scenario])) {
				expect([scenario, platform, ['failed', 'node error'].includes(status)]).toEqual([
					scenario,
					platform,
					true,
				]);
			}
		}
		expect(outcomes['no fault (control)']).toEqual({
			meta: 'sent',
			pinterest: 'sent',
			tiktok: 'sent',
			google: 'sent',
			microsoft: 'sent',
		});

		expect(hits).toEqual([]);
	});
});
