import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { namespacedPrefix, outbox } from '../../shared';
import { leadCapiOutboxKeyTest, leadCapiRedisConnectionTest } from '../common/credentialTests';
import {
	clientKeyProperty,
	outboxStoreOf,
	PLATFORM_FILTER,
	readOutboxKey,
} from '../common/outboxes';

/**
 * Polls the encrypted outbox on n8n's polling schedule and emits one item per due event — a
 * reference (platform, destination, event id), never the event itself, which stays sealed in
 * Redis until the sender opens it. Each emitted event is reserved for this drain, so several
 * workers polling at once never emit the same one; entries it cannot open (wrong or rotated key)
 * and entries past their platform's window go to dead letters with the reason.
 */
export class LeadCapiOutboxTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead CAPI Outbox Trigger',
		name: 'leadCapiOutboxTrigger',
		icon: { light: 'file:../../icons/redis.svg', dark: 'file:../../icons/redis.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: `={{ ${JSON.stringify(Object.fromEntries(PLATFORM_FILTER.map((p) => [p.value, `Drains ${p.name}`])))}[$parameter["platform"]] }}`,
		description:
			'Emits conversion events waiting in the outbox whose next try is due, for the senders to deliver',
		defaults: { name: 'Lead CAPI Outbox Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'leadCapiRedisApi',
				displayName: 'Redis (Where the Outbox Lives)',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
			},
			{
				name: 'leadCapiOutboxApi',
				displayName: 'Outbox Key (Opens the Queued Events)',
				required: true,
				testedBy: 'leadCapiOutboxKeyTest',
			},
		],
		properties: [
			{
				displayName: 'Platform',
				name: 'platform',
				type: 'options',
				options: PLATFORM_FILTER,
				default: 'all',
				description: 'Emit only the events of this platform (route the others with a Switch node)',
			},
			{
				displayName: 'Max Events per Poll',
				name: 'maxEvents',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 10000 },
				default: 1000,
				description: 'Events left over are emitted by the next poll',
			},
			clientKeyProperty,
		],
	};

	methods = { credentialTest: { leadCapiRedisConnectionTest, leadCapiOutboxKeyTest } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const key = await readOutboxKey(this);
		if (!key) throw new NodeOperationError(this.getNode(), 'Set the Outbox Key credential');
		const redis = await this.getCredentials('leadCapiRedisApi');
		let prefix: string;
		try {
			prefix = namespacedPrefix(
				redis.keyPrefix ? String(redis.keyPrefix) : undefined,
				String(this.getNodeParameter('clientKey', '')),
			);
		} catch (error) {
			throw new NodeOperationError(this.getNode(), (error as Error).message);
		}
		const store = await outboxStoreOf(this, prefix);
		const platform = this.getNodeParameter('platform', 'all') as string;
		const drained = await outbox.drainDue(store, key, {
			now: outbox.outboxNow(),
			limit: Number(this.getNodeParameter('maxEvents', 1000)),
			platform: platform === 'all' ? undefined : platform,
		});
		for (const dead of drained.deadLettered) {
			this.logger.warn(
				`Lead CAPI outbox: ${dead.platform} ${dead.destination} event ${dead.event_id} moved to dead letters (${dead.reason})`,
			);
		}
		if (drained.due.length === 0) return null;
		return [drained.due.map((ref) => ({ json: { outbox: ref as unknown as IDataObject } }))];
	}
}
