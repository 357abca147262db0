import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	compactFieldMap,
	estimateMatchQuality,
	namespacedPrefix,
	normalizeIdentity,
	PLATFORM_ADAPTERS,
	PLATFORMS,
	readLeadRecord,
	renderIdentity,
	type Platform,
} from '../../shared';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import { resolveStore } from '../common/dedupStores';
import { optionNameExpression } from '../common/descriptions';

interface NormalizerOptions extends IDataObject {
	defaultCountry?: string;
	hashedOnly?: boolean;
	outputField?: string;
	recordField?: string;
}

/** The platforms a lead can be rendered for, by display name. */
const PLATFORM_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Google Ads', value: 'google' },
	{ name: 'Meta', value: 'meta' },
	{ name: 'Microsoft Advertising', value: 'microsoft' },
	{ name: 'Pinterest', value: 'pinterest' },
	{ name: 'TikTok', value: 'tiktok' },
];

/**
 * Identity Normalizer: shows what the senders would send. It calls the very functions the
 * senders call (normalizeIdentity once, renderIdentity and the platform's userData per
 * platform), so nothing is normalized twice in two ways.
 */
export class IdentityNormalizer implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Identity Normalizer',
		name: 'identityNormalizer',
		icon: { light: 'file:../../icons/identity.svg', dark: 'file:../../icons/identity.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: `={{ $parameter["operation"] === "report" ? "Health report: last " + $parameter["hours"] + " h" : [].concat($parameter["platforms"] || []).length === 1 ? ${optionNameExpression('[].concat($parameter["platforms"])[0]', PLATFORM_OPTIONS, '"1 platform"')} : [].concat($parameter["platforms"] || []).length + " platforms" }}`,
		description:
			'Normalize and hash a lead\'s identity exactly as each ad platform receives it, with match keys, a match-quality estimate and warnings',
		defaults: { name: 'Identity Normalizer' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'leadCapiRedisApi',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
				displayOptions: { show: { operation: ['report'], store: ['redis'] } },
			},
		],
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Normalize',
						value: 'normalize',
						action: 'Normalize and hash the identity of each lead',
						description: 'Show what each platform would receive for each lead',
					},
					{
						name: 'Health Report',
						value: 'report',
						action: 'Report sends and match keys per destination',
						description:
							'Per destination: events sent, duplicate, skipped and failed, and the match keys and quality of what was sent; per capture path: deliveries the Lead Capture Trigger refused, by reason',
					},
				],
				default: 'normalize',
			},
			{
				displayName: 'Counters Store',
				name: 'store',
				type: 'options',
				options: [
					{ name: 'Redis', value: 'redis' },
					{ name: 'In-Memory (This Process)', value: 'memory' },
				],
				default: 'redis',
				description: 'Where the senders keep their counters: the dedup store they use',
				displayOptions: { show: { operation: ['report'] } },
			},
			{
				displayName: 'Hours',
				name: 'hours',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 48 },
				default: 24,
				description: 'How far back to count (counters are kept 49 hours)',
				displayOptions: { show: { operation: ['report'] } },
			},
			{
				displayName: 'Client Key',
				name: 'clientKey',
				type: 'string',
				default: '',
				placeholder: 'acme',
				description: "Agencies: the client's Client Key as set in its senders; empty for none",
				displayOptions: { show: { operation: ['report'] } },
			},
			{
				displayName: 'Platforms',
				name: 'platforms',
				type: 'multiOptions',
				options: PLATFORM_OPTIONS,
				default: ['google', 'meta', 'microsoft', 'pinterest', 'tiktok'],
				description: 'The platforms to render the user data for, or to report on',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: { show: { operation: ['normalize'] } },
				options: [
					{
						displayName: 'Default Country',
						name: 'defaultCountry',
						type: 'string',
						default: '',
						placeholder: 'US',
						description:
							'Country used to read phone numbers without an international prefix when the lead has no country of its own',
					},
					{
						displayName: 'Lead Record Field',
						name: 'recordField',
						type: 'string',
						default: '',
						placeholder: 'lead',
						description:
							'Where the lead record is inside each input item (dot notation). Leave empty when the item itself is the record.',
					},
					{
						displayName: 'Only Hashed Output',
						name: 'hashedOnly',
						type: 'boolean',
						default: false,
						description:
							'Whether to leave out the normalized identity in clear (identity.normalized) and keep only what the platforms receive',
					},
					{
						displayName: 'Output Field',
						name: 'outputField',
						type: 'string',
						default: 'identity',
						description: 'Name of the field added to each item',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: { leadCapiRedisConnectionTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const platforms = (this.getNodeParameter('platforms', 0) as Platform[]).filter((p) =>
			PLATFORMS.includes(p),
		);
		if (this.getNodeParameter('operation', 0) === 'report') return [await healthReport(this, platforms)];
		const options = this.getNodeParameter('options', 0, {}) as NormalizerOptions;
		const field = (options.outputField || 'identity').trim();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const record = readLeadRecord(items[i].json, options.recordField);
			if (!record) {
				const error = new NodeOperationError(
					this.getNode(),
					options.recordField
						? `input item has no lead record at "${options.recordField}"`
						: 'input item is not a lead record object',
					{ itemIndex: i },
				);
				if (!this.continueOnFail()) throw error;
				out.push({ json: { ...items[i].json, error: error.message }, pairedItem: { item: i } });
				continue;
			}
			const identity = normalizeIdentity(record, {
				defaultCountry: options.defaultCountry || undefined,
			});
			const rendered: IDataObject = {};
			const warnings = [...identity.warnings];
			for (const platform of platforms) {
				const adapter = PLATFORM_ADAPTERS[platform];
				const user = renderIdentity(identity, platform);
				const { data, matchKeys, warnings: shaping = [] } = adapter.userData(user, record);
				warnings.push(...[...user.warnings, ...shaping].map((w) => `${platform}: ${w}`));
				rendered[platform] = {
					user_data: data as IDataObject,
					match_keys: matchKeys,
					match_quality: estimateMatchQuality(platform, user) as unknown as IDataObject,
				};
			}
			const result: IDataObject = { platforms: rendered, warnings };
			if (!options.hashedOnly) result.normalized = compactFieldMap(identity.values) as IDataObject;
			out.push({ json: { ...items[i].json, [field]: result }, pairedItem: { item: i } });
		}
		return [out];
	}
}

/**
 * One item per destination with its counters of the last hours, then one per capture path with
 * its refused deliveries.
 */
async function healthReport(
	ctx: IExecuteFunctions,
	platforms: Platform[],
): Promise<INodeExecutionData[]> {
	const kind = ctx.getNodeParameter('store', 0) as 'redis' | 'memory';
	const hours = Math.min(48, Math.max(1, Number(ctx.getNodeParameter('hours', 0))));
	const { store, keyPrefix } = await resolveStore(ctx, kind);
	let prefix: string;
	try {
		prefix = namespacedPrefix(keyPrefix, ctx.getNodeParameter('clientKey', 0, '') as string);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), error instanceof Error ? error.message : String(error));
	}
	let stats;
	let refused;
	try {
		stats = await store!.readStats(prefix, { hours });
		refused = await store!.readRefusals(prefix, { hours });
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), error instanceof Error ? error.message : String(error));
	}
	// Then one item per Lead Capture Trigger path that refused deliveries (bad signature, origin,
	// size, body…): what would otherwise only show as "nothing arrives".
	return [
		...stats.filter((s) => platforms.includes(s.platform)),
		...refused,
	].map((s) => ({ json: s as unknown as IDataObject, pairedItem: { item: 0 } }));
}
