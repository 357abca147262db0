import { DEFAULT_CLAIM_TTL_MS, DEFAULT_COMMITTED_TTL_MS, DEFAULT_KEY_PREFIX, type LedgerRead } from '../dedup/types';
import {
	statsBucket,
	statsKey,
	STATS_TTL_MS,
	tallyResults,
	type StatsIncrements,
} from '../stats/stats';
import { DEFAULT_LEDGER_TTL_MS, MIN_LEDGER_TTL_MS, type LedgerEntry } from '../ledger/types';
import type { Transport } from '../transport/transport';
import { Lease } from './lease';
import { resendsUnknown } from './outcome';
import type { DispatchItem, DispatchOptions, ItemResult, PlatformAdapter } from './types';

/** An item that has an event id and an event time: it may be claimed, built and sent. */
export interface Candidate {
	index: number;
	item: DispatchItem;
	eventId: string;
	eventTime: number;
	/** Its dedup key. */
	readonly key: string;
	/** Its lead's stage ledger key, when the run keeps a ledger. */
	readonly ledgerKey?: string;
	/** Its lead's ledger hash as the claim read it (with a ledger, once claimed). */
	ledgerRead?: LedgerRead;
	/** What the ledger held for its lead when the batch was claimed. */
	ledger?: LedgerEntry | null;
}

/**
 * What one dispatch carries from stage to stage (plan → prepare → claim → send → settle): its
 * options resolved once, and one result per input item, which each stage fills in. Nothing else
 * is shared between the stages.
 */
export interface RunState<Config, Payload> {
	readonly options: DispatchOptions<Config, Payload>;
	readonly adapter: PlatformAdapter<Config, Payload>;
	readonly config: Config;
	readonly clock: () => number;
	readonly sleep: (ms: number) => Promise<void>;
	/** When the run started (event times and the stats bucket are read against it). */
	readonly now: number;
	readonly destination: string;
	readonly prefix: string;
	/** Redis Cluster: dedup keys carry the destination as a hash tag. */
	readonly hashTag: boolean;
	readonly claimTtlMs: number;
	readonly committedTtlMs: number;
	/**
	 * Whether events whose send had an unknown outcome are resent (by the transport in this run,
	 * and by re-runs, which then take held keys): After an Unknown Outcome and the platform.
	 */
	readonly resendUnknown: boolean;
	/** The transport the senders use: the caller's, resending unknown outcomes or not. */
	readonly transport: Transport;
	/** The run's lease on its claims (with a store): one token, renewed while the run works. */
	readonly lease?: Lease;
	/** One per input item, in input order. */
	readonly results: ItemResult[];
	/** The stage ledger's settings, when the run keeps one (a store and the ledger option). */
	readonly ledger: { ttlMs: number; stageOrder: string[] } | null;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A run's state before its first stage: options resolved, no results yet. */
export function startRun<Config, Payload>(
	options: DispatchOptions<Config, Payload>,
	itemCount: number,
): RunState<Config, Payload> {
	const clock = options.clock ?? Date.now;
	const claimTtlMs = options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS;
	const resendUnknown = resendsUnknown(options.adapter.resendDedup, options.afterUnknownOutcome);
	return {
		options,
		adapter: options.adapter,
		config: options.config,
		clock,
		sleep: options.sleep ?? realSleep,
		now: clock(),
		destination: options.adapter.destinationId(options.config),
		prefix: options.keyPrefix || DEFAULT_KEY_PREFIX,
		hashTag: Boolean(options.store?.hashTagKeys),
		claimTtlMs,
		committedTtlMs: options.committedTtlMs ?? DEFAULT_COMMITTED_TTL_MS,
		resendUnknown,
		transport: withUnknownOutcomes(options.transport, resendUnknown),
		lease: options.store ? new Lease(options.store, claimTtlMs, clock) : undefined,
		results: new Array<ItemResult>(itemCount),
		ledger:
			options.store && options.ledger
				? {
						ttlMs: Math.max(MIN_LEDGER_TTL_MS, options.ledger.ttlMs ?? DEFAULT_LEDGER_TTL_MS),
						stageOrder: options.ledger.stageOrder ?? [],
					}
				: null,
	};
}

/** The caller's transport, resending unknown outcomes or not (a stand-in transport stays as is). */
function withUnknownOutcomes(transport: Transport, resend: boolean): Transport {
	return typeof transport?.withUnknownOutcomes === 'function'
		? transport.withUnknownOutcomes(resend)
		: transport;
}

/** Counters of some results for the destination's health report (with a store only). */
export function statsOf(run: RunState<unknown, unknown>, counted: ItemResult[]): StatsIncrements {
	return {
		key: statsKey(run.prefix, run.adapter.platform, run.destination, statsBucket(run.now), {
			hashTag: run.hashTag,
		}),
		platform: run.adapter.platform,
		destination: run.destination,
		increments: tallyResults(counted),
		ttlMs: STATS_TTL_MS,
	};
}

export const errorMessage = (error: unknown) =>
	error instanceof Error ? error.message : String(error);
