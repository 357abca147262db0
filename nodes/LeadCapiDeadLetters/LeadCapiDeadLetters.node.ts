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
	const dead = await store.deadLetters(q, outbox.outboxNow());
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

/** Replay's or Purge's selection from the panel: event ids (at least one), an age, or all. */
function readSelection(ctx: IExecuteFunctions): outbox.DeadLetterSelection {
	const by = ctx.getNodeParameter('selection', 0, 'ids') as 'ids' | 'age' | 'all';
	if (by === 'all') return { by };
	if (by === 'age')
		return { by, olderThanMs: Number(ctx.getNodeParameter('olderThanDays', 0, 7)) * 86_400_000 };
	const text = String(ctx.getNodeParameter('eventIds', 0, '')).trim();
	const ids = text.split(/[\s,]+/).filter(Boolean);
	if (ids.length === 0)
		throw new NodeOperationError(ctx.getNode(), 'No event IDs given', {
			description:
				'Enter the event IDs to act on (List with Include Event IDs shows them), or set Select to Older Than or All Dead Letters',
			itemIndex: 0,
		});
	return { by, ids };
}

/** One queue's counts: found, selected, replayed or purged, left. */
function actionJson(
	operation: 'replay' | 'purge',
	selection: outbox.DeadLetterSelection,
	done: outbox.DeadLetterAction,
): IDataObject {
	return {
		platform: done.platform,
		destination: done.destination,
		selection: outbox.selectionText(selection),
		found: done.found,
		selected: done.selected,
		[operation === 'replay' ? 'replayed' : 'purged']: done.done,
		left: done.left,
	};
}

/** Said first when the selection took no dead letter: what was looked at, so nothing is silent. */
function nothingSelected(
	operation: 'replay' | 'purge',
	selection: outbox.DeadLetterSelection,
	platform: string,
	destination: string,
): IDataObject {
	const where = `${platform === 'all' ? 'every platform' : platform}${destination ? `, destination ${destination}` : ''}`;
	return {
		[operation === 'replay' ? 'replayed' : 'purged']: 0,
		selection: outbox.selectionText(selection),
		message: `no dead letter matched ${outbox.selectionText(selection)} in ${where}: nothing was ${operation === 'replay' ? 'replayed' : 'purged'}`,
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
		subtitle:
			'={{ {"list": "List dead letters", "replay": "Replay dead letters", "purge": "Purge dead letters"}[$parameter["operation"]] }}',
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
				displayName: 'Destination',
				name: 'destination',
				type: 'string',
				default: '',
				placeholder: 'e.g. 1234567890',
				description:
					'Only the dead letters of this destination (pixel, dataset, ad account, tag, conversion action); empty: every destination of the platform chosen',
			},
			{
				displayName: 'Select',
				name: 'selection',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'By Event IDs',
						value: 'ids',
						description: 'The event IDs given (from List with Include Event IDs)',
					},
					{
						name: 'Older Than',
						value: 'age',
						description: 'Those that went to dead letters more than a number of days ago',
					},
					{
						name: 'All Dead Letters',
						value: 'all',
						description: 'Every dead letter of the platform and destination chosen',
					},
				],
				default: 'ids',
				description: 'Which dead letters to act on; all of them only when chosen here',
				displayOptions: { show: { operation: ['replay', 'purge'] } },
			},
			{
				displayName: 'Event IDs',
				name: 'eventIds',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'e.g. 3f2a…, 9b1c…',
				description: 'Comma-separated, from List with Include Event IDs',
				displayOptions: { show: { operation: ['replay', 'purge'], selection: ['ids'] } },
			},
			{
				displayName: 'Older Than (Days)',
				name: 'olderThanDays',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 7,
				description: 'Dead letters that arrived at least this many days ago',
				displayOptions: { show: { operation: ['replay', 'purge'], selection: ['age'] } },
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
		const destination = String(this.getNodeParameter('destination', 0, '')).trim();
		const queues = (await store.queues()).filter(
			(q) =>
				(platform === 'all' || q.platform === platform) &&
				(!destination || q.destination === destination),
		);
		const out: IDataObject[] = [];
		if (operation === 'list') {
			const withIds = Boolean(this.getNodeParameter('includeEventIds', 0, false));
			for (const q of queues) {
				const listed = await listQueue(store, q, withIds);
				if (listed) out.push(listed);
			}
		} else {
			const selection = readSelection(this);
			const now = outbox.outboxNow();
			for (const q of queues) {
				const done = await outbox.actOnDeadLetters(store, q, operation, selection, now);
				if (done.found) out.push(actionJson(operation, selection, done));
			}
			if (!out.some((o) => Number(o.selected) > 0)) out.unshift(nothingSelected(operation, selection, platform, destination));
		}
		return [out.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}
