import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { killAtExit } from '../support/childProcesses';
import { FAKE_N8N_VERSION, makeFakeN8nRuntime } from '../support/fakeN8n';

const { portProblem, freeRun } = require('../../scripts/local/ports.js') as {
	portProblem: (port: number) => Promise<string | null>;
	freeRun: (after: number, count: number, avoid: number[]) => Promise<number | undefined>;
};

/**
 * `npm run dev` (scripts/dev.js) as a user meets it: a port already in use stops it at once with
 * one line; with n8n installed (here the small stand-in n8n of test/support/fakeN8n, installed
 * by the real scripts/n8n/install.sh), it prints a few progress lines and no build output,
 * Ctrl-C stops everything it started and says "stopped", and n8n exiting by itself is reported
 * as a crash. Ports are chosen free for each run (LEAD_CAPI_DEV_PORT, LEAD_CAPI_STANDIN_PORT).
 */
const DEV = path.join(__dirname, '..', '..', 'scripts', 'dev.js');

let root: string;

beforeAll(() => {
	root = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-dev-'));
	makeFakeN8nRuntime(root);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Free ports for one run: n8n's, and the first of 8 in a row for the stand-ins and the demo site. */
async function freePorts() {
	const first = await freeRun(20000 + Math.floor(Math.random() * 20000), 8, []);
	const n8nPort = await freeRun(first! + 8, 1, []);
	return { n8n: n8nPort!, first: first! };
}

function holdPort(port: number, host: string): Promise<net.Server> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(port, host, () => resolve(server));
	});
}

/** Starts `node scripts/dev.js` in a process group of its own, as a terminal runs it. */
function startDev(env: Record<string, string>) {
	const child = spawn(process.execPath, [DEV], {
		detached: true,
		env: {
			...process.env,
			LEAD_CAPI_N8N_RUNTIMES: path.join(root, 'runtimes'),
			LEAD_CAPI_N8N_VERSION: FAKE_N8N_VERSION,
			LEAD_CAPI_N8N_HOME: path.join(root, 'cache', `n8n-${FAKE_N8N_VERSION}`),
			LEAD_CAPI_DEV_FOLDER: path.join(root, 'dev-n8n'),
			...env,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	killAtExit(child);
	const out = { stdout: '', stderr: '' };
	child.stdout.on('data', (d) => (out.stdout += d));
	child.stderr.on('data', (d) => (out.stderr += d));
	const exited = new Promise<number | null>((resolve) =>
		child.once('close', (code) => resolve(code)),
	);
	const printed = async (text: string) => {
		const deadline = Date.now() + 140_000;
		while (!out.stdout.includes(text)) {
			if (child.exitCode !== null)
				throw new Error(`dev.js exited ${child.exitCode}:\n${out.stdout}\n${out.stderr}`);
			if (Date.now() > deadline)
				throw new Error(`dev.js never printed "${text}":\n${out.stdout}\n${out.stderr}`);
			await new Promise((r) => setTimeout(r, 100));
		}
	};
	return { child, out, exited, printed };
}

async function allFree(ports: { n8n: number; first: number }) {
	const all = [ports.n8n, ...Array.from({ length: 8 }, (_, i) => ports.first + i)];
	return (await Promise.all(all.map(portProblem))).every((problem) => problem === null);
}

describe('npm run dev: a port already in use', () => {
	it.each([
		['n8n', 0, '127.0.0.1', "n8n's editor", 'LEAD_CAPI_DEV_PORT', 'pick another port'],
		['the demo site', 1, '127.0.0.1', 'the demo site', 'LEAD_CAPI_SITE_PORT', 'pick another port'],
		[
			'a stand-in, held on every address',
			2,
			'0.0.0.0',
			'the Pinterest stand-in',
			'LEAD_CAPI_STANDIN_PORT',
			'move the stand-ins',
		],
	])(
		'%s: one line naming the port, whom it is for and the setting, before any install or build',
		async (_, slot, host, owner, setting, move) => {
			const ports = await freePorts();
			const taken = slot === 0 ? ports.n8n : ports.first + slot;
			const holder = await holdPort(taken, host);
			try {
				const dev = startDev({
					LEAD_CAPI_DEV_PORT: String(ports.n8n),
					LEAD_CAPI_STANDIN_PORT: String(ports.first),
					LEAD_CAPI_N8N_HOME: path.join(root, 'never-installed'),
				});
				expect(await dev.exited).toBe(1);
				expect(dev.out.stdout).toBe('');
				const lines = dev.out.stderr.trimEnd().split('\n');
				expect(lines).toHaveLength(1);
				const line = new RegExp(
					`^npm run dev: port ${taken} \\(${owner}\\) is already in use\\. Stop what listens there, or ${move}.*: ${setting}=(\\d+) npm run dev$`,
				).exec(lines[0]);
				expect(line).not.toBeNull();
				expect(await portProblem(Number(line![1]))).toBeNull();
				expect(fs.existsSync(path.join(root, 'never-installed'))).toBe(false);
			} finally {
				holder.close();
			}
		},
	);

	it('a setting that is not a port says so', async () => {
		const dev = startDev({ LEAD_CAPI_DEV_PORT: '99999' });
		expect(await dev.exited).toBe(1);
		expect(dev.out.stderr).toBe(
			'npm run dev: LEAD_CAPI_DEV_PORT=99999 is not a port number (1–65535)\n',
		);
	});
});

describe('npm run dev with n8n installed', () => {
	it('prints a few progress lines and no build output; Ctrl-C stops n8n, the stand-ins and the demo site and says "stopped"', async () => {
		const ports = await freePorts();
		const dev = startDev({
			LEAD_CAPI_DEV_PORT: String(ports.n8n),
			LEAD_CAPI_STANDIN_PORT: String(ports.first),
		});
		await dev.printed('stop: Ctrl-C');
		const before = dev.out.stdout.slice(
			0,
			dev.out.stdout.indexOf(`\nn8n ${FAKE_N8N_VERSION} with`),
		);
		expect(before).toMatch(/^npm run dev: package built in \d+ s\n/);
		expect(before).toMatch(/\d+ example workflows imported in \d+ s; starting n8n/);
		// Switched on through n8n's REST API once it runs (one CLI start saved per workflow).
		const live = /n8n started in \d+ s; (\d+) example workflows with a webhook or trigger active/.exec(before);
		expect(Number(live?.[1])).toBeGreaterThan(0);
		const log = fs.readFileSync(path.join(root, 'dev-n8n', 'n8n.log'), 'utf8');
		expect(log.match(/fake n8n: activated /g)?.length).toBe(Number(live?.[1]));
		expect(
			before
				.trim()
				.split('\n')
				.every((line) => line.startsWith('npm run dev: ')),
		).toBe(true);
		expect(dev.out.stderr).not.toContain('CXX(target)');
		expect(dev.out.stderr).toContain('install.log');
		expect(dev.out.stdout).toContain(`http://127.0.0.1:${ports.n8n}`);
		expect(await allFree(ports)).toBe(false);

		process.kill(-dev.child.pid!, 'SIGINT');
		expect(await dev.exited).toBe(0);
		expect(dev.out.stdout).toMatch(
			/npm run dev: stopping n8n, the stand-ins and the demo site …\nnpm run dev: stopped \(\d+ ms\)\n$/,
		);
		expect(dev.out.stderr).not.toMatch(/exited|unexpected|Error/);
		expect(await allFree(ports)).toBe(true);
		// A fake n8n install (npm ci, a native-build-like script) and a dev start: ~45 s on a quiet
		// 2-core machine, over a minute beside CI.
	}, 150_000);

	it('n8n exiting by itself is reported as a crash, with the end of its log and the log path', async () => {
		const ports = await freePorts();
		const dev = startDev({
			LEAD_CAPI_DEV_PORT: String(ports.n8n),
			LEAD_CAPI_STANDIN_PORT: String(ports.first),
			FAKE_N8N_EXIT_AFTER_MS: '1500',
		});
		expect(await dev.exited).toBe(3);
		const log = path.join(root, 'dev-n8n', 'n8n.log');
		expect(dev.out.stderr).toContain(
			`npm run dev: n8n stopped unexpectedly (exit code 3); the end of its log, ${log}:`,
		);
		expect(dev.out.stderr).toContain('fake n8n: out of memory (fake crash)');
		expect(dev.out.stdout).not.toContain('stopped');
		expect(await allFree(ports)).toBe(true);
	}, 150_000);
});
