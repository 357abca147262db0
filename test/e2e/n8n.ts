import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n/n8n.js');

export interface ItemJson {
	[key: string]: unknown;
}

/** One isolated n8n (its own user folder and SQLite database) with the packed package installed. */
export interface N8nInstance {
	home: string;
	userFolder: string;
	env: Record<string, string>;
	importCredentials(credentials: unknown[]): void;
	/**
	 * Queues a workflow for import: the queued ones are imported in one `n8n import:workflow`
	 * (one CLI start instead of one per workflow, ~5 s each) before the next credentials import,
	 * execute or serve, in the order given, then the `activate` ones are activated.
	 */
	importWorkflow(workflow: { id: string }, options?: { activate?: boolean }): void;
	/**
	 * Runs a Manual-Trigger workflow; returns each node's output items (first run, main output 0),
	 * how many main outputs each node returned (`outputs`) and what n8n printed while running it
	 * (`log`).
	 */
	execute(workflowId: string): Promise<{
		status: string;
		nodes: Record<string, ItemJson[]>;
		outputs: Record<string, number>;
		error?: unknown;
		raw: unknown;
		log: string;
	}>;
	/** `n8n start` on a free loopback port with an owner account; returns its REST helpers. */
	serve(): Promise<{
		baseUrl: string;
		rest: (path: string, body: unknown) => Promise<unknown>;
		restGet: (path: string) => Promise<unknown>;
		stop: () => Promise<void>;
		/**
		 * Sends `signal` to the n8n process (SIGKILL: no shutdown at all) and, once it is gone,
		 * SIGKILLs the child processes it had started (its task runner), which a SIGKILL leaves behind.
		 */
		kill: (signal: NodeJS.Signals) => Promise<void>;
	}>;
	cleanup(): void;
}

export async function n8nWithPackage(): Promise<N8nInstance> {
	const home: string = process.env.LEAD_CAPI_N8N_HOME || n8n.ensureN8n();
	const tgz = process.env.LEAD_CAPI_PACKAGE_TGZ;
	if (!tgz || !fs.existsSync(tgz)) {
		throw new Error('LEAD_CAPI_PACKAGE_TGZ is not set: run the suite with `npm run test:e2e`');
	}
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-e2e-'));
	const env = n8n.n8nEnv(home, userFolder, await n8n.freePort());
	n8n.installPackage(userFolder, tgz);
	const write = (name: string, data: unknown) => {
		const file = path.join(userFolder, name);
		fs.writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	};
	const queued: Array<{ workflow: { id: string }; activate: boolean }> = [];
	let batches = 0;
	const flushImports = () => {
		if (queued.length === 0) return;
		const batch = queued.splice(0, queued.length);
		batches += 1;
		n8n.importWorkflow(home, env, write(`workflows-${batches}.json`, batch.map((q) => q.workflow)));
		for (const q of batch) {
			if (q.activate) n8n.activateWorkflow(home, env, q.workflow.id);
		}
	};
	return {
		home,
		userFolder,
		env,
		importCredentials(credentials) {
			flushImports();
			n8n.importCredentials(home, env, write('credentials.json', credentials));
		},
		importWorkflow(workflow, options = {}) {
			queued.push({ workflow, activate: options.activate === true });
		},
		async execute(workflowId) {
			flushImports();
			const { run, stdout, stderr } = await n8n.executeWorkflow(home, env, workflowId);
			const nodes: Record<string, ItemJson[]> = {};
			const outputs: Record<string, number> = {};
			for (const [name, runs] of Object.entries(run.data.resultData.runData ?? {})) {
				const first = (runs as Array<{ data?: { main?: Array<Array<{ json: ItemJson }>> } }>)[0];
				nodes[name] = (first?.data?.main?.[0] ?? []).map((item) => item.json);
				outputs[name] = first?.data?.main?.length ?? 0;
			}
			return { status: run.status, nodes, outputs, error: run.data.resultData.error, raw: run, log: `${stdout}\n${stderr}` };
		},
		async serve() {
			flushImports();
			const port: number = await n8n.freePort();
			const server = await n8n.startServer(home, env, {
				port,
				logFile: path.join(userFolder, 'n8n.log'),
			});
			// n8n 2.x publishes active workflows after start-up: wait until their webhooks answer
			// (a workflow that cannot be published stops the server and fails with n8n's reason).
			let cookie: string;
			try {
				cookie = await n8n.ownerSession(server.baseUrl, n8n.LOCAL_OWNER);
				await n8n.waitForActiveWorkflows(server.baseUrl, cookie);
			} catch (error) {
				await server.stop();
				throw error;
			}
			return {
				baseUrl: server.baseUrl,
				rest: async (restPath: string, body: unknown) => {
					const res = await fetch(`${server.baseUrl}/rest${restPath}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json', cookie },
						body: JSON.stringify(body),
					});
					return res.json();
				},
				restGet: async (restPath: string) => {
					const res = await fetch(`${server.baseUrl}/rest${restPath}`, { headers: { cookie } });
					return res.json();
				},
				stop: () => server.stop(),
				kill: (signal: NodeJS.Signals) => killTree(server.child, signal),
			};
		},
		cleanup() {
			if (!process.env.LEAD_CAPI_E2E_KEEP) fs.rmSync(userFolder, { recursive: true, force: true });
		},
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
