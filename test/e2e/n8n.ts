import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n/n8n.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rest = require('../../scripts/n8n/rest.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareUserFolder, startTestServer } = require('./server.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startOAuthRouter, registerRefreshToken } = require('../support/oauthRouter.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareQueueMode } = require('../../scripts/n8n/queue.js');

export interface ItemJson {
	[key: string]: unknown;
}

interface Credential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}
interface Workflow {
	id: string;
	name?: string;
	nodes?: Array<{ credentials?: Record<string, { id: string; name: string }> } & Record<string, unknown>>;
	connections?: unknown;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}
type RestClient = {
	call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown; text: string }>;
	ok: (method: string, path: string, body?: unknown) => Promise<unknown>;
};
interface Server {
	home: string;
	userFolder: string;
	logFile: string;
	baseUrl: string;
	cookie: string;
	client: RestClient;
	oauthRouter: string | null;
	child?: ChildProcess;
	queue?: QueueRun;
	stop: () => Promise<void>;
}

/** A queue-mode n8n's processes (scripts/n8n/queue.js). */
export interface QueueRun {
	workers: Array<{ index: number; pid: number; logFile: string; child: ChildProcess }>;
	mainLog: string;
	startupMs: number;
}

export interface RunResult {
	status: string;
	/** Each node's output items (first run, main output 0). */
	nodes: Record<string, ItemJson[]>;
	/** How many main outputs each node returned. */
	outputs: Record<string, number>;
	error?: unknown;
	/** The execution as n8n stored it (run data decoded), the shape `n8n execute --rawOutput` prints. */
	raw: unknown;
	/** What n8n logged while the run went on. */
	log: string;
}

export interface ServedN8n {
	baseUrl: string;
	rest: (path: string, body: unknown) => Promise<unknown>;
	restGet: (path: string) => Promise<unknown>;
	/** The workflow's executions, newest first (n8n's id for the test's workflow id). */
	executions: (workflowId: string) => Promise<Array<{ id: string; status: string; mode?: string }>>;
	/** How many executions the workflow has (all of them, not only a page). */
	executionCount: (workflowId: string) => Promise<number>;
	/** Runs a credential test on n8n; `credential.id` is the test's id. */
	testCredential: (credential: Credential) => Promise<{ data: { status: string; message: string } }>;
	/** Stops an n8n of its own (the next serve or run starts it again); nothing on the shared one. */
	stop: () => Promise<void>;
	/**
	 * An n8n of its own only: sends `signal` (SIGKILL: no shutdown at all) and, once it is gone,
	 * SIGKILLs the child processes it had started (its task runner), which a SIGKILL leaves behind.
	 */
	kill: (signal: NodeJS.Signals) => Promise<void>;
	/** Queue mode only: the main's log, the workers (their logs and processes), the start-up time. */
	queue?: QueueRun;
}

/**
 * A test file's view of a real n8n with the packed package installed: by default the suite's
 * shared n8n (one per major, started by test/e2e/run.js), isolated by the file's own workflows,
 * credentials and Redis key prefix, which cleanup() deletes; or an n8n of its own.
 */
export interface N8nInstance {
	home: string;
	/** The n8n's user folder (shared: every file's; its log is `logFile`). */
	userFolder: string;
	logFile: string;
	/** The environment of an n8n of its own, read when it starts (after that, and when shared: no effect). */
	env: Record<string, string>;
	/** Queues credentials (data in clear) for the next run, serve or id lookup; ids are the test's own. */
	importCredentials(credentials: unknown[]): void;
	/** Queues a workflow (credential references by the test's ids); `activate`: live at the next serve. */
	importWorkflow(workflow: { id: string }, options?: { activate?: boolean }): void;
	/**
	 * n8n's id for a workflow or credential id the test gave (imports what is queued first): n8n
	 * 1.x gives every workflow an id of its own, and a workflow's id takes part in some Redis keys
	 * (capture log, refusal counters).
	 */
	idOf(testId: string): Promise<string>;
	/** Runs a Manual-Trigger workflow through the REST API, as the editor's "Execute workflow". */
	execute(workflowId: string): Promise<RunResult>;
	/** The n8n with every queued workflow imported, the active ones live. */
	serve(): Promise<ServedN8n>;
	/** Deletes the file's workflows and credentials (shared), or stops the n8n and removes its folder. */
	cleanup(): Promise<void>;
}

export interface OwnOptions {
	/** Why this file needs an n8n of its own (said in the suite's plan). */
	own: string;
	/** Queue mode: one main, `workers` workers, a PostgreSQL database of its own (dropped at cleanup). */
	queue?: { workers: number; workerConcurrency?: number };
}

type Queued = { kind: 'credentials'; credentials: Credential[] } | { kind: 'workflow'; workflow: Workflow; activate: boolean };

/** The shared n8n the runner started, or null (a file run on its own: it gets an n8n of its own). */
function sharedServer(): Server | null {
	const file = process.env.LEAD_CAPI_E2E_SHARED;
	if (!file) return null;
	const described = JSON.parse(fs.readFileSync(file, 'utf8'));
	return { ...described, client: rest.restClient(described.baseUrl, described.cookie), stop: async () => undefined };
}

/** The suite's OAuth router (run.js), else one in this process for an n8n of this file's own. */
let localRouter: Promise<{ url: string }> | undefined;
async function oauthRouterUrl(): Promise<string> {
	if (process.env.LEAD_CAPI_E2E_OAUTH_ROUTER) return process.env.LEAD_CAPI_E2E_OAUTH_ROUTER;
	localRouter ??= startOAuthRouter();
	return (await localRouter!).url;
}

export async function n8nWithPackage(options?: OwnOptions): Promise<N8nInstance> {
	const shared = options ? null : sharedServer();
	if (shared) return new Instance(shared.home, shared, null);
	const home: string = process.env.LEAD_CAPI_N8N_HOME || n8n.ensureN8n();
	const tgz = process.env.LEAD_CAPI_PACKAGE_TGZ;
	if (!tgz || !fs.existsSync(tgz)) {
		throw new Error('LEAD_CAPI_PACKAGE_TGZ is not set: run the suite with `npm run test:e2e`');
	}
	const pinned = n8n.oauthPinnedFields(home).length > 0;
	const oauthRouter = pinned ? await oauthRouterUrl() : null;
	const prepared = await prepareUserFolder({ home, tgz, oauthRouter });
	return new Instance(home, null, { ...prepared, oauthRouter, queue: options?.queue });
}

interface OwnState {
	userFolder: string;
	env: Record<string, string>;
	oauthRouter: string | null;
	queue?: { workers: number; workerConcurrency?: number };
	server?: Server;
}

class Instance implements N8nInstance {
	private readonly queue: Queued[] = [];
	private readonly ids = new Map<string, string>();
	private readonly workflows: string[] = [];
	private readonly credentials: string[] = [];

	constructor(
		readonly home: string,
		private readonly shared: Server | null,
		private readonly own: OwnState | null,
	) {}

	get userFolder(): string {
		return this.shared ? this.shared.userFolder : this.own!.userFolder;
	}
	get logFile(): string {
		return this.shared?.logFile ?? this.own!.server?.logFile ?? `${this.own!.userFolder}/n8n.log`;
	}
	get env(): Record<string, string> {
		return this.own ? this.own.env : Object.freeze({ ...(process.env as Record<string, string>) });
	}

	importCredentials(credentials: unknown[]): void {
		this.queue.push({ kind: 'credentials', credentials: credentials as Credential[] });
	}
	importWorkflow(workflow: { id: string }, options: { activate?: boolean } = {}): void {
		this.queue.push({ kind: 'workflow', workflow: workflow as Workflow, activate: options.activate === true });
	}
	async idOf(testId: string): Promise<string> {
		await this.flush();
		return this.imported(testId);
	}

	private imported(testId: string): string {
		const id = this.ids.get(testId);
		if (!id) throw new Error(`${testId} was not imported into n8n: import it before using it`);
		return id;
	}

	/** The n8n, started (an n8n of its own starts on first use, and again after a stop). */
	private async server(): Promise<Server> {
		if (this.shared) return this.shared;
		const own = this.own!;
		own.server ??= own.queue
			? await startQueueServer(this.home, own.userFolder, own.queue)
			: await startTestServer({ home: this.home, userFolder: own.userFolder, env: own.env, oauthRouter: own.oauthRouter });
		return own.server!;
	}

	/** Imports what is queued, in order; activates the `activate` workflows and waits until they are live. */
	private async flush(): Promise<Server> {
		const server = await this.server();
		const activated: string[] = [];
		try {
			while (this.queue.length > 0) {
				const next = this.queue.shift()!;
				if (next.kind === 'credentials') {
					for (const credential of next.credentials) await this.createCredential(server, credential);
				} else {
					const id = await this.createWorkflow(server, next.workflow, next.activate);
					if (next.activate) activated.push(id);
				}
			}
		} catch (error) {
			// What the failed step's test queued after it goes too: it must not land in the next test.
			this.queue.length = 0;
			throw error;
		}
		if (activated.length > 0) await n8n.waitForActiveWorkflows(server.baseUrl, server.cookie, { ids: activated });
		return server;
	}

	private async createCredential(server: Server, credential: Credential): Promise<void> {
		const id = await rest.createCredential(server.client, credential);
		this.ids.set(credential.id, id);
		this.credentials.push(id);
		// n8n 2.x refreshes every OAuth2 token through the router (server.js): tell it this stand-in.
		const refreshToken = (credential.data?.oauthTokenData as { refresh_token?: string } | undefined)?.refresh_token;
		const tokenUrl = credential.data?.accessTokenUrl;
		if (server.oauthRouter && refreshToken && typeof tokenUrl === 'string') {
			await registerRefreshToken(server.oauthRouter, refreshToken, tokenUrl);
		}
	}

	private async createWorkflow(server: Server, workflow: Workflow, activate: boolean): Promise<string> {
		const nodes = (workflow.nodes ?? []).map((node) =>
			node.credentials
				? {
						...node,
						credentials: Object.fromEntries(
							Object.entries(node.credentials).map(([type, ref]) => [type, { ...ref, id: this.ids.get(ref.id) ?? ref.id }]),
						),
					}
				: node,
		);
		const created = await rest.createWorkflow(server.client, {
			...workflow,
			name: workflow.name ?? workflow.id,
			nodes,
			connections: workflow.connections ?? {},
		});
		this.ids.set(workflow.id, created.id);
		this.workflows.push(created.id);
		if (activate) {
			try {
				await rest.activateWorkflow(server.client, created.id, created.versionId);
			} catch (error) {
				const taken = /already taken|conflict with one of the webhooks/i.test(String(error));
				throw new Error(
					`${workflow.id} (${workflow.name}) could not be activated: ${(error as Error).message}` +
						(taken && this.shared ? ' — another test file on the shared n8n has a workflow live on that webhook path: list the two in TOGETHER (test/e2e/run.js)' : ''),
				);
			}
		}
		return created.id;
	}

	async execute(workflowId: string): Promise<RunResult> {
		const server = await this.flush();
		const offset = fs.existsSync(server.logFile) ? fs.statSync(server.logFile).size : 0;
		const run = await rest.runManually(server.client, this.home, this.imported(workflowId));
		const nodes: Record<string, ItemJson[]> = {};
		const outputs: Record<string, number> = {};
		for (const [name, runs] of Object.entries(run.data.resultData.runData ?? {})) {
			const first = (runs as Array<{ data?: { main?: Array<Array<{ json: ItemJson }>> } }>)[0];
			nodes[name] = (first?.data?.main?.[0] ?? []).map((item) => item.json);
			outputs[name] = first?.data?.main?.length ?? 0;
		}
		return { status: run.status, nodes, outputs, error: run.data.resultData.error, raw: run, log: n8n.logSince(server.logFile, offset) };
	}

	async serve(): Promise<ServedN8n> {
		const server = await this.flush();
		const call = async (method: string, path: string, body?: unknown) => (await server.client.call(method, path, body)).body;
		const executionPage = async (workflowId: string) => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId: this.imported(workflowId) }));
			const page = (await call('GET', `/executions?filter=${filter}&limit=100`)) as {
				data: { count?: number; results: Array<{ id: string; status: string; mode?: string }> };
			};
			return page.data;
		};
		return {
			baseUrl: server.baseUrl,
			rest: (path, body) => call('POST', path, body),
			restGet: (path) => call('GET', path),
			executions: async (workflowId) => (await executionPage(workflowId)).results,
			executionCount: async (workflowId) => {
				const page = await executionPage(workflowId);
				return page.count ?? page.results.length;
			},
			testCredential: async (credential) =>
				(await call('POST', '/credentials/test', { credentials: { ...credential, id: this.imported(credential.id) } })) as {
					data: { status: string; message: string };
				},
			stop: async () => {
				if (!this.own?.server) return;
				const running = this.own.server;
				this.own.server = undefined;
				await running.stop();
			},
			queue: server.queue,
			kill: async (signal) => {
				if (!this.own?.server) throw new Error('kill() needs an n8n of its own: n8nWithPackage({ own: "why" })');
				const running = this.own.server;
				this.own.server = undefined;
				await killTree(running.child!, signal);
			},
		};
	}

	async cleanup(): Promise<void> {
		if (this.shared) {
			const client = this.shared.client;
			for (const id of this.workflows.splice(0)) await rest.deleteWorkflow(client, id);
			for (const id of this.credentials.splice(0)) await rest.deleteCredential(client, id);
			return;
		}
		const own = this.own!;
		await own.server?.stop();
		own.server = undefined;
		if (!process.env.LEAD_CAPI_E2E_KEEP) fs.rmSync(own.userFolder, { recursive: true, force: true });
	}
}

/** Queue mode on a prepared user folder: main (migrates the database), then the workers. */
async function startQueueServer(home: string, userFolder: string, options: { workers: number; workerConcurrency?: number }): Promise<Server> {
	const queue = await prepareQueueMode({ home, userFolder, redisUrl: process.env.REDIS_URL, ...options });
	const running = (await queue.start({ timeoutMs: 240_000 })) as QueueRun & { baseUrl: string };
	const cookie: string = await n8n.ownerSession(running.baseUrl, n8n.LOCAL_OWNER).catch(async (error: unknown) => {
		await queue.stop();
		throw error;
	});
	return {
		home,
		userFolder,
		logFile: running.mainLog,
		baseUrl: running.baseUrl,
		cookie,
		client: rest.restClient(running.baseUrl, cookie),
		oauthRouter: null,
		queue: running,
		// Workers, main, the database and the run's Bull keys.
		stop: () => queue.stop(),
	};
}

/** Signals a process, waits for its exit, then SIGKILLs the children it had (by their pids). */
async function killTree(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
	const listed = spawnSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).stdout ?? '';
	const children = listed.split('\n').filter(Boolean).map(Number);
	await new Promise<void>((resolve) => {
		child.once('exit', () => resolve());
		child.kill(signal);
	});
	for (const pid of children) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
}

/** A node entry of a workflow JSON. */
export function node(
	name: string,
	type: string,
	typeVersion: number,
	position: [number, number],
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
) {
	return {
		id: randomUUID(),
		name,
		type,
		typeVersion,
		position,
		parameters,
		...extra,
	};
}

/**
 * A Lead Capture Trigger node with a webhook id of its own (capture log off unless `parameters`
 * say otherwise), for workflows imported with `{ activate: true }` before `serve()`.
 */
export function captureTrigger(
	name: string,
	parameters: Record<string, unknown>,
	credentials: Record<string, { id: string; name: string }>,
) {
	return node(
		name,
		'n8n-nodes-lead-capi.leadCaptureTrigger',
		1,
		[0, 0],
		{ captureLog: 'off', settings: {}, ...parameters },
		{ webhookId: randomUUID(), credentials },
	);
}

/** Connects nodes in a straight line. */
export function chain(...names: string[]) {
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** Polls an async condition until it holds, or fails after `ms` saying what it waited for. */
export async function until(probe: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
	const deadline = Date.now() + ms;
	while (!(await probe())) {
		if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}
