import type Redis from 'ioredis';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { getRedisClient, redisConfigFromCredentials } from '../../nodes/common/redisClients';
import {
	createRedisClient,
	dispatch,
	metaAdapter,
	RedisDedupStore,
	waitForReady,
	type DispatchItem,
	type DispatchOptions,
	type ItemResult,
	type meta,
} from '../../shared';
import {
	deliveryLedger,
	leadEventIds,
	markedHeld,
	markedSent,
	measure,
	recordFigures,
	type ScenarioFigures,
	type StandInLog,
} from './faultFigures';
import { startDispatcher, type DispatcherProcess } from './dispatcherProcess';
import { uniquePrefix } from './redisClient';
import { startStandaloneRedis, type StandaloneRedis } from './redisTopology';
import { FAST_RETRY, fastTransport } from './senderHarness';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startMetaStandIn } = require('../standins/meta.js');

const FAULT_TOKEN = 'fault-suite-access-token-0123456789';
export const FAULT_PIXEL = '700000000000007';

type MetaStandIn = Awaited<ReturnType<typeof startMetaStandIn>> & StandInLog;
type MetaDispatch = DispatchOptions<meta.MetaConfig, meta.MetaServerEvent>;

/**
 * What every fault scenario stands on: a redis-server of its own on a free port (killed or
 * paused at will; `persistent` = append-only file, every write fsynced), the Meta stand-in on
 * loopback, one dedup connection as an n8n process keeps it, a key prefix per test, and the
 * figures of a scenario counted from the stand-in's log. Call it inside the describe() whose
 * tests use it: it registers its hooks there.
 */
export function faultHarness(
	label: string,
	options: { persistent?: boolean; commandTimeoutMs?: number; redisConfig?: string[] } = {},
) {
	let redis: StandaloneRedis;
	let standIn: MetaStandIn;
	let client: Redis;
	let admin: Redis;
	let prefix: string;
	/** The most events seen marked sent without an acknowledged delivery, at any audit of this test. */
	let markedUnacknowledged = 0;
	const processes: DispatcherProcess[] = [];

	beforeAll(async () => {
		redis = await startStandaloneRedis({
			persistent: options.persistent,
			config: options.redisConfig,
		});
		standIn = await startMetaStandIn({ accessToken: FAULT_TOKEN });
		client = createRedisClient({ url: redis.url, commandTimeoutMs: options.commandTimeoutMs });
		admin = redis.admin();
		await waitForReady(client, 10_000);
	});
	beforeEach(() => {
		standIn.reset();
		prefix = uniquePrefix(label);
		markedUnacknowledged = 0;
	});
	afterAll(async () => {
		await Promise.all(processes.map((p) => p.kill()));
		client?.disconnect();
		await standIn?.close();
		await redis?.stop();
	});

	const config = (): meta.MetaConfig => ({
		pixelId: FAULT_PIXEL,
		accessToken: FAULT_TOKEN,
		baseUrl: standIn.url,
		actionSource: 'auto',
		limitedDataUse: 'auto',
	});

	/** dispatch() to the stand-in with the Redis store on the shared connection, fast retries, this test's prefix. */
	const run = (
		items: DispatchItem[],
		overrides: Partial<MetaDispatch> = {},
	): Promise<ItemResult[]> =>
		dispatch(items, {
			adapter: metaAdapter,
			config: config(),
			transport: fastTransport(),
			store: new RedisDedupStore(client, { description: `Redis ${redis.url}` }),
			keyPrefix: prefix,
			...overrides,
		});

	/**
	 * A dispatching OS process (the built core) on this Redis, this stand-in and the current
	 * test's key prefix, with fast retries; killed after the tests.
	 */
	const dispatcher = async (): Promise<DispatcherProcess> => {
		const p = await startDispatcher({
			redisUrl: redis.url,
			standInUrl: standIn.url,
			token: FAULT_TOKEN,
			pixelId: FAULT_PIXEL,
			keyPrefix: prefix,
			retry: FAST_RETRY,
		});
		processes.push(p);
		return p;
	};

	/** The destination's health counters for this test (what the Health Report shows). */
	const healthCounters = async () => {
		const [stats] = await new RedisDedupStore(client, { description: 'check' }).readStats(prefix, {
			hours: 1,
		});
		return stats;
	};

	/**
	 * How many events are marked sent in Redis right now that the stand-in never acknowledged
	 * (must be 0 after every run, not only at the end, when the re-run has acknowledged them all).
	 */
	const audit = async (): Promise<number> => {
		const { acknowledged } = deliveryLedger(standIn, new Set());
		const sent = await markedSent(admin, prefix);
		const count = [...sent].filter((id) => !acknowledged.has(id)).length;
		markedUnacknowledged = Math.max(markedUnacknowledged, count);
		return count;
	};

	/**
	 * Counts the scenario from the stand-in's log and the dedup keys, writes its row of
	 * RELIABILITY.md and asserts the promises every scenario keeps (see recordFigures).
	 */
	const record = async (
		row: Omit<ScenarioFigures, 'measured'>,
		dispatched: DispatchItem[],
		counts: RunCounts,
	) => {
		const expected = leadEventIds(
			FAULT_PIXEL,
			dispatched.map((item) => String(item.record.record_id)),
		);
		const ledger = deliveryLedger(standIn, expected);
		const sent = await markedSent(admin, prefix);
		const held = await markedHeld(admin, prefix);
		const measured = measure(ledger, sent, expected, counts, held);
		measured.markedSentUnacknowledged = Math.max(
			measured.markedSentUnacknowledged,
			markedUnacknowledged,
		);
		recordFigures({ ...row, measured });
	};

	return {
		get redis() {
			return redis;
		},
		get standIn() {
			return standIn;
		},
		/** A connection for inspection. */
		get admin() {
			return admin;
		},
		get prefix() {
			return prefix;
		},
		run,
		dispatcher,
		healthCounters,
		audit,
		record,
	};
}

/** What a scenario reports of its runs: items failed under fault, events the recovery re-run sent. */
export interface RunCounts {
	errorsReported: number;
	rerunSent: number;
}

/** The counts from the results of the runs under fault and of the recovery re-run. */
export function runCounts(faulted: ItemResult[], rerun: ItemResult[]): RunCounts {
	return {
		errorsReported: faulted.filter((r) => r.status === 'failed').length,
		rerunSent: rerun.filter((r) => r.status === 'sent').length,
	};
}

/**
 * Closes the nodes' pooled Redis connection of a credential (nodes/common/redisClients keeps one
 * per credential for the life of the process). QUIT when the server answers; else the socket is
 * dropped, which also stops ioredis reconnecting forever to a server a test has stopped — a
 * reconnect timer that keeps jest from exiting.
 */
export async function closePooledClient(credential: ICredentialDataDecryptedObject): Promise<void> {
	const { client } = getRedisClient(redisConfigFromCredentials(credential));
	await client.quit().catch(() => client.disconnect());
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
