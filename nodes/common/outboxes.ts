import type {
	FunctionsBase,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
} from 'n8n-workflow';
import { outbox, waitForReady, type DispatchItem } from '../../shared';
import { getRedisClient, redisConfigFromCredentials } from './redisClients';

/**
 * The n8n side of the outbox: its credentials and parameters read into an outbox.RunOutbox, and
 * the input items handed over as JSON. What a run does with its outbox (reading drained events,
 * queueing, settling, counting) is the core's: shared/outbox (run.ts and the stages it names).
 */

/** What reading the outbox's credentials needs of an n8n context (a sender's, the trigger's, Dead Letters'). */
type CredentialsOf = Pick<FunctionsBase, 'getCredentials'>;

export const NO_OUTBOX_KEY_WARNING =
	'not queued for a later try: Retry Failed Sends Later needs an Outbox Key credential (or set it to Off); re-run the execution to send it';

/** The key from the leadCapiOutboxApi credential, or undefined when none is set on the node. */
export async function readOutboxKey(ctx: CredentialsOf): Promise<outbox.OutboxKey | undefined> {
	let credentials: ICredentialDataDecryptedObject;
	try {
		credentials = await ctx.getCredentials('leadCapiOutboxApi');
	} catch {
		return undefined;
	}
	if (!credentials) return undefined;
	return outbox.outboxKey(String(credentials.secret ?? ''));
}

/** How long the outbox waits for its pooled connection to come up (the dedup store's wait). */
const CONNECT_WAIT_MS = 3_000;

/**
 * The Redis connection and key prefix of the node's leadCapiRedisApi credential, once the
 * connection is up: the pooled client queues nothing while disconnected, so the first outbox
 * command after n8n starts (or after Redis restarted) would fail before it connected. When it
 * does not come up in time, the outbox's commands fail with their own message, as before.
 */
export async function outboxStoreOf(
	ctx: CredentialsOf,
	prefix?: string,
): Promise<outbox.OutboxStore> {
	const credentials = await ctx.getCredentials('leadCapiRedisApi');
	const { client } = getRedisClient(redisConfigFromCredentials(credentials));
	await waitForReady(client, CONNECT_WAIT_MS).catch(() => undefined);
	return new outbox.OutboxStore(client, prefix);
}

/**
 * The sender's outbox for this run: on with Redis dedup, Retry Failed Sends Later on (the
 * default) and an Outbox Key credential. Without a key, retryable failures say why they were
 * not queued (NO_OUTBOX_KEY_WARNING) and the run goes on as before.
 */
export async function resolveSenderOutbox(
	ctx: IExecuteFunctions,
	keyPrefix: string,
	dryRun: boolean,
): Promise<outbox.RunOutbox> {
	if (dryRun || ctx.getNodeParameter('dedupStore', 0) !== 'redis') return { on: false };
	if (ctx.getNodeParameter('retryLater', 0, 'outbox') !== 'outbox') return { on: false };
	const key = await readOutboxKey(ctx);
	if (!key) return { on: false, warning: NO_OUTBOX_KEY_WARNING };
	return { on: true, store: await outboxStoreOf(ctx, keyPrefix), key };
}

/**
 * Drained items (references the Lead CAPI Outbox Trigger emitted) become prebuilt dispatch items
 * (outbox.readDrained, on each item's JSON); the others are left as they are.
 */
export function readDrained(
	run: outbox.RunOutbox,
	adapter: outbox.OutboxPlatform,
	destination: string,
	items: INodeExecutionData[],
	dispatchItems: DispatchItem[],
	now: number,
): Promise<outbox.DrainedEntries> {
	const inputs = items.map((item) => item.json);
	return outbox.readDrained(run, adapter, destination, inputs, dispatchItems, now);
}

/** Deliver → Via Outbox: the node builds the events (dispatch mode buildForOutbox) and queues them. */
export function deliversViaOutbox(ctx: IExecuteFunctions, run: outbox.RunOutbox): boolean {
	return run.on && ctx.getNodeParameter('deliver', 0, 'now') === 'outbox';
}

/** The platforms an outbox node can be limited to. */
export const PLATFORM_FILTER = [
	{ name: 'All Platforms', value: 'all' },
	{ name: 'Google Ads', value: 'google' },
	{ name: 'Meta', value: 'meta' },
	{ name: 'Microsoft', value: 'microsoft' },
	{ name: 'Pinterest', value: 'pinterest' },
	{ name: 'TikTok', value: 'tiktok' },
];

/** The client key every outbox node shares. */
export const clientKeyProperty = {
	displayName: 'Client Key',
	name: 'clientKey',
	type: 'string' as const,
	default: '',
	placeholder: 'acme',
	description:
		'Agencies: the client key the senders use (Options → Client Key); empty when they use none',
};
