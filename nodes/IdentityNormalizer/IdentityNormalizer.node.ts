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
	CL_MAX_LEADS_READ,
	compactFieldMap,
	conversionLeadsByDestination,
	evictionCheck,
	ledgerStart,
	type DedupStore,
	type DestinationStats,
	estimateMatchQuality,
	namespacedPrefix,
	readClientKey,
	normalizeIdentity,
	PLATFORM_ADAPTERS,
	PLATFORMS,
	phoneHashForm,
	readLeadRecord,
	renderIdentity,
	type Platform,
} from '../../shared';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import { resolveStore } from '../common/dedupStores';
import { optionNameExpression } from '../common/descriptions';
import { ownWorkflowScope } from '../common/workflowScope';

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
			"Normalize and hash a lead's identity exactly as each ad platform receives it, with match keys, a match-quality estimate and warnings",
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
							"Per destination: events sent, duplicate, skipped and failed, and the match keys and quality of what was sent (Meta Conversion Leads datasets: Meta's checklist); per capture path: deliveries the Lead Capture Trigger refused, by reason",
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
				description:
					"Agencies: the client's Client Key as set in its senders. Empty: see Without a Client Key.",
				displayOptions: { show: { operation: ['report'] } },
			},
			{
				displayName: 'Without a Client Key',
				name: 'unkeyedScope',
				type: 'options',
				options: [
					{
						name: "This Workflow's Destinations",
						value: 'workflow',
						description:
							'The destinations the senders of this workflow (without a Client Key) sent to, and the refusals of its triggers; in a report workflow of its own (its senders sent nothing and its triggers refused nothing in the window), every destination of this credential without a Client Key',
					},
					{
						name: 'All Destinations Without a Client Key',
						value: 'all',
						description:
							'Every workflow on this Redis whose senders have no Client Key: for a single business, never for an agency',
					},
				],
				default: 'workflow',
				description: 'What the report covers when Client Key is empty',
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
		if (this.getNodeParameter('operation', 0) === 'report')
			return [await healthReport(this, platforms)];
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
				const user = renderIdentity(identity, adapter.identity);
				const { data, matchKeys, warnings: shaping = [] } = adapter.userData(user, record);
				warnings.push(...[...user.warnings, ...shaping].map((w) => `${platform}: ${w}`));
				rendered[platform] = {
					user_data: data as IDataObject,
					match_keys: matchKeys,
					match_quality: estimateMatchQuality(adapter.identity, user) as unknown as IDataObject,
				};
				const phone = phoneFor(platform, user.values.phone, identity.hashedInput.phone === true);
				if (phone) (rendered[platform] as IDataObject).phone = phone;
			}
			if (identity.hashedInput.phone === true && platforms.length > 1) {
				warnings.push(PREHASHED_PHONE_WARNING);
			}
			const result: IDataObject = { platforms: rendered, warnings };
			if (!options.hashedOnly) result.normalized = compactFieldMap(identity.values) as IDataObject;
			out.push({ json: { ...items[i].json, [field]: result }, pairedItem: { item: i } });
		}
		return [out];
	}
}

/**
 * Meta datasets that received Conversion Leads (CRM) events get `conversion_leads`: Meta's own
 * checklist against the stage ledger (shared/health/conversionLeads.ts). A dataset with CRM leads
 * but no send in the window gets an item of its own (zero counts): a stopped upload is what the
 * check is for. `own`: only these datasets (the report's workflow scope).
 */
async function withConversionLeadsHealth(
	store: DedupStore,
	prefix: string,
	stats: DestinationStats[],
	own: Set<string> | undefined,
	hours: number,
): Promise<DestinationStats[]> {
	const start = ledgerStart(prefix, 'meta');
	const read = await store.scanLedger(start, CL_MAX_LEADS_READ);
	const health = conversionLeadsByDestination(read.entries, start, {
		nowMs: Date.now(),
		sampled: read.truncated,
	});
	const out = [...stats];
	for (const [destination, conversionLeads] of health) {
		if (own && !own.has(destination)) continue;
		let item = out.find((s) => s.platform === 'meta' && s.destination === destination);
		if (!item) {
			item = {
				platform: 'meta',
				destination,
				window_hours: hours,
				sent: 0,
				duplicate: 0,
				skipped: 0,
				failed: 0,
				match_quality: null,
				match_keys: {},
			};
			out.push(item);
		}
		item.conversion_leads = conversionLeads;
	}
	return out;
}

const PREHASHED_PHONE_WARNING =
	"phone: arrived hashed and goes to every platform as it is, but Meta and Pinterest match the hash of the digits without '+' and TikTok, Google and Microsoft the hash of E.164 with '+': one hash matches only one group. Send the phone in clear, or map each sender's contact.phone to its own platforms.<platform>.phone.sha256";

/**
 * The lead's phone as this platform matches it: the hashes it receives (wire them into that
 * platform's sender as contact.phone to send pre-hashed phones), and the form a pre-hashed phone
 * must have for it. Undefined when the lead has no phone for this platform.
 */
function phoneFor(
	platform: Platform,
	hashes: string[] | undefined,
	arrivedHashed: boolean,
): IDataObject | undefined {
	if (!hashes || hashes.length === 0) return undefined;
	return {
		sha256: [...hashes],
		expects: phoneHashForm(PLATFORM_ADAPTERS[platform].identity),
		arrived_hashed: arrivedHashed,
	};
}

/**
 * One item per destination with its counters of the last hours, then one per capture path with
 * its refused deliveries. With a Client Key: that client's destinations and paths. Without one:
 * only this workflow's own — the destinations its senders (without a Client Key) sent to and the
 * paths of its triggers — never those of other workflows sharing the Redis, unless the user
 * chose every destination without a Client Key (a single business with a separate report
 * workflow).
 */
async function healthReport(
	ctx: IExecuteFunctions,
	platforms: Platform[],
): Promise<INodeExecutionData[]> {
	const kind = ctx.getNodeParameter('store', 0) as 'redis' | 'memory';
	const hours = Math.min(48, Math.max(1, Number(ctx.getNodeParameter('hours', 0))));
	const { store, keyPrefix, client } = await resolveStore(ctx, kind);
	let prefix: string;
	let clientKey: string | undefined;
	try {
		clientKey = readClientKey(ctx.getNodeParameter('clientKey', 0, ''));
		prefix = namespacedPrefix(keyPrefix, clientKey);
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			error instanceof Error ? error.message : String(error),
		);
	}
	let stats;
	let refused;
	let scoped: ReportScope;
	try {
		scoped = await reportScope(ctx, store!, prefix, clientKey, hours);
		const { scope, everyUnkeyed } = scoped;
		stats = await store!.readStats(prefix, { hours });
		if (scope !== prefix) {
			const own = new Set(scoped.own.map((s) => `${s.platform}\u0000${s.destination}`));
			stats = stats.filter((s) => own.has(`${s.platform}\u0000${s.destination}`));
		}
		// Unkeyed triggers count refusals in their workflow's scope: "all" reads every workflow's
		// (a SCAN pattern: the Redis store; the in-memory store has no patterns).
		refused = await store!.readRefusals(everyUnkeyed ? `${prefix}:workflow:*` : scope, { hours });
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			error instanceof Error ? error.message : String(error),
		);
	}
	const { scope } = scoped;
	if (platforms.includes('meta')) {
		const own = scope !== prefix ? new Set(stats.map((s) => s.destination)) : undefined;
		try {
			stats = await withConversionLeadsHealth(store!, prefix, stats, own, hours);
		} catch (error) {
			throw new NodeOperationError(
				ctx.getNode(),
				error instanceof Error ? error.message : String(error),
			);
		}
	}
	// Then one item per Lead Capture Trigger path that refused deliveries (bad signature, origin,
	// size, body…): what would otherwise only show as "nothing arrives".
	// And, when Redis may evict the dedup "sent" markers, one item that says so (checked at connect).
	const eviction = client ? await evictionCheck(client) : undefined;
	const evictable = eviction?.warning
		? [
				{
					dedup_store: store!.description,
					maxmemory_policy: eviction.policy ?? 'unknown',
					maxmemory: eviction.maxmemory ?? null,
					markers_safe: false,
					warning: eviction.warning,
				},
			]
		: [];
	const report: object[] = [
		...stats.filter((s) => platforms.includes(s.platform)),
		...refused,
		...evictable,
	];
	if (report.length === 0) report.push(emptyReport(scoped, store!.description, platforms, hours));
	return report.map((s) => ({ json: s as unknown as IDataObject, pairedItem: { item: 0 } }));
}

/** What a Health Report covers: the counters' scope, and in words. */
interface ReportScope {
	/** Where the counters are read: the credential's prefix (with the Client Key) or this workflow's scope. */
	scope: string;
	/** Refusals of every unkeyed workflow's triggers are read too. */
	everyUnkeyed: boolean;
	/** This workflow's own destinations (its scope's marks), when the scope is the workflow's. */
	own: DestinationStats[];
	/** The scope in words, for an empty report. */
	described: string;
}

/**
 * The report's scope. With a Client Key: that client's. Without one: every unkeyed destination
 * when chosen, else this workflow's own, unless this workflow's senders sent nothing and its
 * triggers refused nothing in the window (a report workflow of its own): then what the credential's dedup store holds
 * without a Client Key, as a report workflow expects.
 */
async function reportScope(
	ctx: IExecuteFunctions,
	store: DedupStore,
	prefix: string,
	clientKey: string | undefined,
	hours: number,
): Promise<ReportScope> {
	if (clientKey)
		return { scope: prefix, everyUnkeyed: false, own: [], described: `Client Key "${clientKey}"` };
	const every = 'every destination without a Client Key';
	if (ctx.getNodeParameter('unkeyedScope', 0, 'workflow') === 'all') {
		return { scope: prefix, everyUnkeyed: true, own: [], described: every };
	}
	const scope = ownWorkflowScope(ctx, prefix);
	const own = await store.readStats(scope, { hours });
	// A workflow whose senders sent or whose triggers refused something is reported on its own.
	if (own.length > 0 || (await store.readRefusals(scope, { hours })).length > 0) {
		return { scope, everyUnkeyed: false, own, described: "this workflow's destinations" };
	}
	return {
		scope: prefix,
		everyUnkeyed: true,
		own: [],
		described: `${every} (this workflow's senders sent nothing and its triggers refused nothing in the window: a report workflow of its own)`,
	};
}

/** The one item of a report with nothing to show: what it looked at, so that "nothing" is an answer. */
function emptyReport(
	scoped: ReportScope,
	store: string,
	platforms: Platform[],
	hours: number,
): IDataObject {
	return {
		report: 'empty',
		scope: scoped.described,
		dedup_store: store,
		platforms: [...platforms],
		window_hours: hours,
		message: `No sends, refusals or warnings in the last ${hours} h for ${scoped.described} on ${store} (${platforms.join(', ')}). Check the report's Redis credential and Client Key against the senders'.`,
	};
}
