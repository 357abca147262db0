import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { killAtExit } from './childProcesses';

/*
 * Real Redis topologies for the integration tests: a master (+ optional replica) watched by a
 * Sentinel, and a 3-master Redis Cluster, each made of redis-server processes on free loopback
 * ports in a temp dir, optionally TLS-only with a self-signed certificate. `stop()` kills every
 * process and removes the dir; a process exit handler kills whatever a crashed run left.
 */

const run = promisify(execFile);
const HOST = '127.0.0.1';

export interface TlsFiles {
	cert: string;
	key: string;
}

/** How a test talks to one server directly (bookkeeping, not through the code under test). */
interface Access {
	password?: string;
	tls?: TlsFiles;
}

export interface ServerProcess {
	name: string;
	port: number;
	log: string;
	/** Sends a signal (default SIGKILL: no shutdown, no final save); resolves once it exited. */
	kill(signal?: NodeJS.Signals): Promise<void>;
}

function requireBinaries(): void {
	for (const binary of ['redis-server', 'redis-cli']) {
		if (spawnSync(binary, ['--version'], { stdio: 'ignore' }).status !== 0) {
			throw new Error(
				`These tests start their own Redis Sentinel and Cluster processes and need ${binary} ` +
					'(Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis).',
			);
		}
	}
}

/** `count` distinct free loopback ports (all held open until every one is found). */
export async function freePorts(count: number): Promise<number[]> {
	const servers: net.Server[] = [];
	try {
		const ports: number[] = [];
		while (ports.length < count) {
			const server = net.createServer();
			servers.push(server);
			await new Promise<void>((resolve, reject) => {
				server.once('error', reject);
				server.listen(0, HOST, () => resolve());
			});
			const address = server.address();
			if (address && typeof address === 'object') ports.push(address.port);
		}
		return ports;
	} finally {
		await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
	}
}

/** A self-signed certificate for 127.0.0.1 / localhost, valid two days. */
export async function makeCertificate(dir: string): Promise<TlsFiles> {
	const files = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
	await run('openssl', [
		'req',
		'-x509',
		'-newkey',
		'rsa:2048',
		'-nodes',
		'-days',
		'2',
		'-keyout',
		files.key,
		'-out',
		files.cert,
		'-subj',
		'/CN=localhost',
		'-addext',
		'subjectAltName=IP:127.0.0.1,DNS:localhost',
	]);
	return files;
}

/** Runs redis-cli against one server; returns its trimmed output. */
export async function cli(port: number, access: Access, args: string[]): Promise<string> {
	const flags = ['-h', HOST, '-p', String(port)];
	if (access.password) flags.push('-a', access.password, '--no-auth-warning');
	if (access.tls) flags.push('--tls', '--cacert', access.tls.cert);
	const { stdout } = await run('redis-cli', [...flags, ...args], { timeout: 20_000 });
	return stdout.trim();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true; the error names what was awaited. */
export async function until(
	what: string,
	probe: () => Promise<boolean>,
	timeoutMs = 20_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < deadline) {
		try {
			if (await probe()) return;
		} catch (error) {
			last = error instanceof Error ? error.message : String(error);
		}
		await sleep(100);
	}
	throw new Error(`timed out waiting for ${what}${last ? ` (${last})` : ''}`);
}

function tail(file: string): string {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
	} catch {
		return '(no log)';
	}
}

function tlsLines(port: number, tls: TlsFiles | undefined): string[] {
	if (!tls) return [`port ${port}`];
	return [
		'port 0',
		`tls-port ${port}`,
		`tls-cert-file ${tls.cert}`,
		`tls-key-file ${tls.key}`,
		// Servers connect to each other (replication, cluster bus, Sentinel) and verify peers.
		`tls-ca-cert-file ${tls.cert}`,
		'tls-auth-clients no',
		'tls-replication yes',
	];
}

/** A group of redis-server processes sharing one temp dir. */
class ProcessGroup {
	readonly dir: string;
	private readonly children: ChildProcess[] = [];
	private readonly admins: Redis[] = [];

	constructor(label: string) {
		requireBinaries();
		this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `lead-capi-${label}-`));
	}

	/** Writes `<name>.conf`, starts the server and waits until it answers PING. */
	async start(
		name: string,
		lines: string[],
		access: Access,
		port: number,
		sentinel = false,
	): Promise<ServerProcess> {
		const conf = path.join(this.dir, `${name}.conf`);
		const log = path.join(this.dir, `${name}.log`);
		fs.writeFileSync(
			conf,
			[`bind ${HOST}`, `dir ${this.dir}`, `logfile ${log}`, 'daemonize no', ...lines, ''].join(
				'\n',
			),
		);
		const child = spawn('redis-server', sentinel ? [conf, '--sentinel'] : [conf], {
			stdio: 'ignore',
		});
		this.children.push(child);
		killAtExit(child);
		let exited = false;
		child.once('exit', () => {
			exited = true;
		});
		try {
			await until(`${name} on port ${port}`, async () => {
				if (exited) throw new Error(`${name} exited:\n${tail(log)}`);
				return (await cli(port, access, ['PING'])) === 'PONG';
			});
		} catch (error) {
			throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail(log)}`);
		}
		const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
			if (exited) return;
			const gone = new Promise((resolve) => child.once('exit', resolve));
			child.kill(signal);
			await gone;
		};
		return { name, port, log, kill };
	}

	/** A plain ioredis connection to one server, closed by `stop()`. */
	admin(port: number, access: Access): Redis {
		const client = new Redis({
			host: HOST,
			port,
			password: access.password,
			tls: access.tls ? { ca: fs.readFileSync(access.tls.cert) } : undefined,
			maxRetriesPerRequest: 1,
		});
		client.on('error', () => undefined);
		this.admins.push(client);
		return client;
	}

	/** Kills every process (TERM, then KILL after 3 s) and removes the temp dir. */
	async stop(): Promise<void> {
		for (const client of this.admins) client.disconnect();
		await Promise.all(
			this.children.map(async (child) => {
				if (child.exitCode !== null || child.signalCode !== null) return;
				const gone = new Promise((resolve) => child.once('exit', resolve));
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
				await gone;
				clearTimeout(timer);
			}),
		);
		fs.rmSync(this.dir, { recursive: true, force: true });
	}
}

/** Starts a group; if anything fails on the way, kills what was started before rethrowing. */
async function startGroup<T>(
	label: string,
	build: (group: ProcessGroup) => Promise<T>,
): Promise<T> {
	const group = new ProcessGroup(label);
	try {
		return await build(group);
	} catch (error) {
		await group.stop();
		throw error;
	}
}

export interface SentinelTopology {
	masterName: string;
	master: ServerProcess;
	replica?: ServerProcess;
	sentinel: ServerProcess;
	/** The data nodes' password (requirepass / masterauth). */
	password: string;
	sentinelPassword: string;
	tls?: TlsFiles;
	/** A direct connection to a data node (master or replica), for inspection. */
	admin(port: number): Redis;
	/** Runs a command on the Sentinel. */
	sentinelCommand(...args: string[]): Promise<string>;
	/** The port the Sentinel currently names as the master's. */
	masterPort(): Promise<number>;
	stop(): Promise<void>;
}

/**
 * A master (+ a replica when asked) with passwords, and one Sentinel (quorum 1, with its own
 * password) monitoring it as `mymaster`. Ready when the Sentinel names the master (and sees the
 * replica in sync).
 */
export function startSentinelTopology(
	options: { replica?: boolean; tls?: boolean } = {},
): Promise<SentinelTopology> {
	return startGroup('sentinel', async (group) => {
		const tls = options.tls ? await makeCertificate(group.dir) : undefined;
		const password = 'master-secret-7f3a';
		const sentinelPassword = 'sentinel-secret-91c2';
		const masterName = 'mymaster';
		const data: Access = { password, tls };
		const [masterPort, replicaPort, sentinelPort] = await freePorts(3);
		const dataLines = (port: number) => [
			...tlsLines(port, tls),
			'save ""',
			'appendonly no',
			`requirepass ${password}`,
			`masterauth ${password}`,
		];
		const master = await group.start('master', dataLines(masterPort), data, masterPort);
		let replica: ServerProcess | undefined;
		if (options.replica) {
			replica = await group.start(
				'replica',
				[...dataLines(replicaPort), `replicaof ${HOST} ${masterPort}`],
				data,
				replicaPort,
			);
			await until('the replica to sync', async () =>
				/master_link_status:up/.test(await cli(replicaPort, data, ['INFO', 'replication'])),
			);
		}
		const sentinelAccess: Access = { password: sentinelPassword, tls };
		const sentinel = await group.start(
			'sentinel',
			[
				...tlsLines(sentinelPort, tls),
				`requirepass ${sentinelPassword}`,
				`sentinel monitor ${masterName} ${HOST} ${masterPort} 1`,
				`sentinel auth-pass ${masterName} ${password}`,
				`sentinel down-after-milliseconds ${masterName} 2000`,
				`sentinel failover-timeout ${masterName} 10000`,
			],
			sentinelAccess,
			sentinelPort,
			true,
		);
		const sentinelCommand = (...args: string[]) => cli(sentinelPort, sentinelAccess, args);
		const masterPortNow = async () =>
			Number(
				(await sentinelCommand('SENTINEL', 'get-master-addr-by-name', masterName)).split('\n')[1],
			);
		await until(
			'the Sentinel to name the master',
			async () => (await masterPortNow()) === masterPort,
		);
		if (replica) {
			await until('the Sentinel to see the replica', async () => {
				const replicas = await sentinelCommand('SENTINEL', 'replicas', masterName);
				return replicas.includes(String(replicaPort)) && /master-link-status\nok/.test(replicas);
			});
		}
		return {
			masterName,
			master,
			replica,
			sentinel,
			password,
			sentinelPassword,
			tls,
			admin: (port: number) => group.admin(port, data),
			sentinelCommand,
			masterPort: masterPortNow,
			stop: () => group.stop(),
		};
	});
}

export interface ClusterTopology {
	/** The masters' client ports. */
	ports: number[];
	password: string;
	tls?: TlsFiles;
	/** A direct connection to one node, for inspection (no redirections followed). */
	admin(port: number): Redis;
	/** The hash slot of a key (CLUSTER KEYSLOT). */
	slotOf(key: string): Promise<number>;
	/** The port of the master serving a slot. */
	portOfSlot(slot: number): Promise<number>;
	stop(): Promise<void>;
}

/**
 * `masters` cluster nodes (no replicas) with a password, joined by `redis-cli --cluster create`;
 * ready when every node reports cluster_state:ok with all 16384 slots assigned.
 */
export function startClusterTopology(
	options: { masters?: number; tls?: boolean } = {},
): Promise<ClusterTopology> {
	const count = options.masters ?? 3;
	return startGroup('cluster', async (group) => {
		const tls = options.tls ? await makeCertificate(group.dir) : undefined;
		const password = 'cluster-secret-4d8e';
		const access: Access = { password, tls };
		// Client ports and cluster-bus ports, all free (the default bus port, port + 10000, may not be).
		const free = await freePorts(count * 2);
		const ports = free.slice(0, count);
		await Promise.all(
			ports.map((port, i) =>
				group.start(
					`node-${port}`,
					[
						...tlsLines(port, tls),
						...(tls ? ['tls-cluster yes'] : []),
						'cluster-enabled yes',
						`cluster-port ${free[count + i]}`,
						`cluster-config-file nodes-${port}.conf`,
						'cluster-node-timeout 5000',
						'save ""',
						'appendonly no',
						`requirepass ${password}`,
						`masterauth ${password}`,
					],
					access,
					port,
				),
			),
		);
		await cli(ports[0], access, [
			'--cluster',
			'create',
			...ports.map((p) => `${HOST}:${p}`),
			'--cluster-replicas',
			'0',
			'--cluster-yes',
		]);
		await until('cluster_state:ok on every node', async () => {
			const infos = await Promise.all(ports.map((p) => cli(p, access, ['CLUSTER', 'INFO'])));
			return infos.every((i) => /cluster_state:ok/.test(i) && /cluster_slots_ok:16384/.test(i));
		});
		const slotOf = async (key: string) =>
			Number(await cli(ports[0], access, ['CLUSTER', 'KEYSLOT', key]));
		const inspector = group.admin(ports[0], access);
		const portOfSlot = async (slot: number) => {
			const ranges = await inspector.cluster('SLOTS');
			const range = ranges.find(([from, to]) => slot >= from && slot <= to);
			if (!range?.[2]) throw new Error(`no node serves slot ${slot}`);
			return range[2][1];
		};
		return {
			ports,
			password,
			tls,
			admin: (port: number) => group.admin(port, access),
			slotOf,
			portOfSlot,
			stop: () => group.stop(),
		};
	});
}

export interface StandaloneRedis {
	port: number;
	url: string;
	/** The server process now running (a new one after `restart()`). */
	server: ServerProcess;
	/** Starts the server again on the same port and dir (from its append-only file, if any). */
	restart(): Promise<void>;
	/** Runs a command on it through redis-cli (e.g. CLIENT PAUSE): answers even while clients are paused. */
	command(...args: string[]): Promise<string>;
	/** A plain connection for inspection, closed by `stop()`. */
	admin(): Redis;
	stop(): Promise<void>;
}

/**
 * One redis-server of the test's own on a free loopback port, for tests that kill or pause it
 * (never the shared one). `persistent`: every write is in the append-only file before Redis
 * answers it (`appendfsync always`), so a SIGKILL loses nothing acknowledged and `restart()`
 * comes back with every claim and sent marker, as a production dedup store should.
 */
export function startStandaloneRedis(
	options: { persistent?: boolean; config?: string[] } = {},
): Promise<StandaloneRedis> {
	return startGroup('standalone', async (group) => {
		const [port] = await freePorts(1);
		const lines = [
			`port ${port}`,
			'save ""',
			...(options.persistent ? ['appendonly yes', 'appendfsync always'] : ['appendonly no']),
			// e.g. maxmemory, maxmemory-policy, rename-command CONFIG ""
			...(options.config ?? []),
		];
		const launch = () => group.start('redis', lines, {}, port);
		const handle: StandaloneRedis = {
			port,
			url: `redis://${HOST}:${port}`,
			server: await launch(),
			restart: async () => {
				handle.server = await launch();
			},
			command: (...args: string[]) => cli(port, {}, args),
			admin: () => group.admin(port, {}),
			stop: () => group.stop(),
		};
		return handle;
	});
}
