import type Redis from 'ioredis';
import {
	dispatch,
	RedisDedupStore,
	Transport,
	type DispatchItem,
	type DispatchOptions,
	type ItemResult,
	type PlatformAdapter,
	type TransportOptions,
} from '../../shared';
import type { LeadRecord } from '../../shared/types';
import { adminRedis, dropPrefix, testRedis, uniquePrefix } from './redisClient';

/** Three retries (the tests count on four attempts in all), with waits short enough for a test. */
export const FAST_RETRY = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 50, maxTotalMs: 20_000 };

/** A Transport that retries fast; `options` add, say, an executor of the test's own. */
export function fastTransport(options: Omit<TransportOptions, 'retry'> = {}): Transport {
	return new Transport({ retry: FAST_RETRY, ...options });
}

/** `n` leads made by `make` (`make(i)` tells them apart), all sent as `eventName`. */
export function leadItems(
	n: number,
	make: (i: number) => LeadRecord,
	eventName: string,
): DispatchItem[] {
	return Array.from({ length: n }, (_, i) => ({ record: make(i), eventName }));
}

/**
 * What the sender integration tests share around their platform's stand-in: a real Redis (one
 * connection for the dedup store, one for bookkeeping), a key prefix of each test's own that is
 * dropped after it, and dispatch() called the way they call it. Call it inside the describe() whose
 * tests use it: it registers its hooks there.
 */
export function senderHarness(label: string) {
	let redis: Redis;
	let admin: Redis;
	let prefix: string;
	/** Connections a test opens itself (a dead Redis, racing workers): closed after all tests. */
	const clients: Redis[] = [];

	beforeAll(() => {
		redis = testRedis();
		admin = adminRedis();
	});
	beforeEach(() => {
		prefix = uniquePrefix(label);
	});
	afterEach(() => dropPrefix(admin, prefix));
	afterAll(() => {
		redis.disconnect();
		admin.disconnect();
		clients.forEach((c) => c.disconnect());
	});

	/** A dedup store on the shared connection, as a run uses unless told otherwise. */
	const store = () => new RedisDedupStore(redis, { description: 'Redis test' });
	/** A dedup store on a connection of its own, as a concurrent n8n execution has. */
	const storeOnNewConnection = () => {
		const client = testRedis();
		clients.push(client);
		return new RedisDedupStore(client, { description: 'Redis test' });
	};

	/**
	 * `run(items, overrides, store)`: dispatch() with the platform's adapter, `config()` and a
	 * fresh `transport()` (read at each call: the config names the stand-in's URL, known once it
	 * listens), the test's key prefix and, unless a test passes its own or null (dedup off), a
	 * Redis dedup store on the shared connection. `overrides` replace any of these.
	 */
	const runner =
		<C, P>(
			adapter: PlatformAdapter<C, P>,
			config: () => C,
			transport: () => Transport = () => fastTransport(),
		) =>
		(
			items: DispatchItem[],
			overrides: Partial<DispatchOptions<C, P>> = {},
			dedupStore: DispatchOptions<C, P>['store'] = store(),
		): Promise<ItemResult[]> =>
			dispatch(items, {
				adapter,
				config: config(),
				transport: transport(),
				store: dedupStore,
				keyPrefix: prefix,
				...overrides,
			});

	return {
		/** For inspecting keys (not the connection the dedup store uses). */
		get admin() {
			return admin;
		},
		/** This test's key prefix. */
		get prefix() {
			return prefix;
		},
		clients,
		store,
		storeOnNewConnection,
		runner,
	};
}
