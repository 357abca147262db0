import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { namespacedPrefix, outbox } from '../../shared';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import { clientKeyProperty, outboxStoreOf, PLATFORM_FILTER } from '../common/outboxes';

/** List output: counts and reasons per destination — event ids at most, never an event. */
async function listQueue(store: outbox.OutboxStore, q: outbox.OutboxQueue, withIds: boolean) {
	const dead = await store.deadLetters(q);
	if (dead.length === 0) return undefined;
	const reasons: Record<string, number> = {};
	for (const d of dead) reasons[d.reason] = (reasons[d.reason] ?? 0) + 1;
	const times = dead.map((d) => d.at);
	return {
		platform: q.platform,
		destination: q.destination,
		count: dead.length,
		reasons,
		messages: [...new Set(dead.map((d) => `${d.reason}: ${d.message}`))].slice(0, 10),
		oldest: new Date(Math.min(...times)).toISOString(),
		newest: new Date(Math.max(...times)).toISOString(),
		pending: await store.pendingCount(q),
		...(withIds ? { event_ids: dead.map((d) => d.event_id) } : {}),
	};
}

/**
 * Dead letters of the outbox: List (counts and reasons per platform and destination), Replay
 * (back into the outbox under the same event ids, due now: the next drain sends them with the
 * senders' current credentials, and dedup keeps them exactly once) and Purge.
 */
export class LeadCapiDeadLetters implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead CAPI Dead Letters',
		name: 'leadCapiDeadLetters',
		icon: { light: 'file:../../icons/redis.svg', dark: 'file:../../icons/redis.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description: 'List, replay or purge conversion events the outbox gave up on',
		defaults: { name: 'Lead CAPI Dead Letters' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'leadCapiRedisApi', required: true, testedBy: 'leadCapiRedisConnectionTest' },
		],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'List',
						value: 'list',
						action: 'List dead letters',
						description: 'Counts and reasons per platform and destination',
					},
					{
						name: 'Purge',
						value: 'purge',
						action: 'Purge dead letters',
						description: 'Delete dead letters for good',
					},
					{
						name: 'Replay',
						value: 'replay',
						action: 'Replay dead letters',
						description: 'Put them back in the outbox, due now, under the same event IDs',
					},
				],
				default: 'list',
			},
			{
				displayName: 'Platform',
				name: 'platform',
				type: 'options',
				options: PLATFORM_FILTER,
				default: 'all',
			},
			{
				displayName: 'Event IDs',
				name: 'eventIds',
				type: 'string',
				default: '',
				placeholder: 'e.g. 3f2a…, 9b1c…',
				description: 'Only these (comma-separated, from List with Include Event IDs); empty: all',
				displayOptions: { show: { operation: ['replay', 'purge'] } },
			},
			{
				displayName: 'Include Event IDs',
				name: 'includeEventIds',
				type: 'boolean',
				default: false,
				description: 'Whether to list the event IDs, to replay or purge some of them',
				displayOptions: { show: { operation: ['list'] } },
			},
			clientKeyProperty,
		],
	};

	methods = { credentialTest: { leadCapiRedisConnectionTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as 'list' | 'replay' | 'purge';
		const platform = this.getNodeParameter('platform', 0, 'all') as string;
		const redis = await this.getCredentials('leadCapiRedisApi');
		let prefix: string;
		try {
			prefix = namespacedPrefix(
				redis.keyPrefix ? String(redis.keyPrefix) : undefined,
				String(this.getNodeParameter('clientKey', 0, '')),
			);
		} catch (error) {
			throw new NodeOperationError(this.getNode(), (error as Error).message, { itemIndex: 0 });
		}
		const store = await outboxStoreOf(this, prefix);
		const queues = (await store.queues()).filter(
			(q) => platform === 'all' || q.platform === platform,
		);
		const out: IDataObject[] = [];
		if (operation === 'list') {
			const withIds = Boolean(this.getNodeParameter('includeEventIds', 0, false));
			for (const q of queues) {
				const listed = await listQueue(store, q, withIds);
				if (listed) out.push(listed);
			}
		} else {
			const text = String(this.getNodeParameter('eventIds', 0, '')).trim();
			const ids = text ? text.split(/[\s,]+/).filter(Boolean) : 'all';
			for (const q of queues) {
				const n =
					operation === 'replay'
						? await store.replay(q, ids, outbox.outboxNow())
						: await store.purge(q, ids);
				out.push({
					platform: q.platform,
					destination: q.destination,
					[operation === 'replay' ? 'replayed' : 'purged']: n,
				});
			}
		}
		return [out.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}
