import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	buildPreview,
	CaptureLog,
	captureLogKey,
	decideSend,
	DEFAULT_KEY_PREFIX,
	namespacedPrefix,
	readLeadRecord,
	recordsWithLedgerFacts,
	validateRuleSet,
	type LeadRecord,
	type LedgerLookup,
	type MatchType,
	type Platform,
	type SendMode,
	type SendPolicy,
} from '../../shared';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import { resolveStore } from '../common/dedupStores';
import { getRedisClient, redisConfigFromCredentials } from '../common/redisClients';
import { workflowIdOf } from '../common/workflowScope';
import { ruleFilterOutputs, ruleFilterProperties, ruleFilterSubtitle } from './description';

interface ConditionParameter {
	field: string;
	matchType: MatchType;
	pattern?: string;
	caseSensitive?: boolean;
}

/** The send policy from the node's parameters, read once per run. */
function readPolicy(ctx: IExecuteFunctions): SendPolicy {
	const mode = ctx.getNodeParameter('sendMode', 0) as SendMode;
	if (mode === 'manual') {
		return { mode, approvalField: (ctx.getNodeParameter('approvalField', 0) as string) || undefined };
	}
	if (mode !== 'automatic_match') return { mode };
	const conditions = ctx.getNodeParameter('rules.condition', 0, []) as ConditionParameter[];
	const policy: SendPolicy = {
		mode,
		rulesApplyTo: ctx.getNodeParameter('rulesApplyTo', 0) as 'partial' | 'all',
		rules: {
			combinator: ctx.getNodeParameter('combinator', 0) as 'and' | 'or',
			conditions: conditions.map((c) => ({
				field: c.field.trim(),
				match_type: c.matchType,
				pattern: c.pattern,
				case_sensitive: Boolean(c.caseSensitive),
			})),
		},
	};
	const problems = validateRuleSet(policy.rules!);
	if (problems.length > 0) {
		throw new NodeOperationError(ctx.getNode(), `The rules cannot run: ${problems[0]}`, {
			description: problems.join('\n'),
		});
	}
	return policy;
}

/**
 * Lead Rule Filter: routes each lead record to Send or Skip by a send mode and rules (no
 * code), and previews the rules on the last 7 days of captures. The preview and the live
 * filter run the same decideSend / evaluateRules.
 */
export class LeadRuleFilter implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead Rule Filter',
		name: 'leadRuleFilter',
		icon: { light: 'file:../../icons/rule-filter.svg', dark: 'file:../../icons/rule-filter.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: ruleFilterSubtitle,
		description: 'Decide with rules, not code, which leads fire conversions; preview rules on last week\'s captures',
		defaults: { name: 'Lead Rule Filter' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: ruleFilterOutputs,
		credentials: [
			{
				// The preview reads the capture log; the filter reads the stage ledger when Stage Facts
				// says so. n8n shows a credential by one displayOptions rule (no "or"), so it is
				// offered always and each operation that needs it says so when it is missing.
				name: 'leadCapiRedisApi',
				required: false,
				testedBy: 'leadCapiRedisConnectionTest',
			},
		],
		properties: ruleFilterProperties,
	};

	methods = {
		credentialTest: { leadCapiRedisConnectionTest },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const policy = readPolicy(this);
		if (this.getNodeParameter('operation', 0) === 'preview') {
			return [[{ json: await preview(this, policy), pairedItem: { item: 0 } }]];
		}
		const recordField = ((this.getNodeParameter('options.recordField', 0, '') as string) ?? '').trim();
		const send: INodeExecutionData[] = [];
		const skip: INodeExecutionData[] = [];
		const records = items.map((item) => readLeadRecord(item.json, recordField));
		let facts: Array<{ record: LeadRecord | null; lookup?: LedgerLookup }>;
		try {
			facts = await stageFacts(this, policy, records);
		} catch (error) {
			const failure =
				error instanceof NodeOperationError ? error : new NodeOperationError(this.getNode(), error as Error);
			if (!this.continueOnFail()) throw failure;
			// Fail closed: a stage rule is never decided on facts the ledger could not give.
			const reason = failure.message;
			return [[], items.map((item, i) => ({ json: { ...item.json, lead_filter: { send: false, reason } }, pairedItem: { item: i } }))];
		}
		items.forEach((item, i) => {
			const { record, lookup } = facts[i];
			if (!record) {
				skip.push({
					json: { ...item.json, lead_filter: { send: false, reason: 'input item is not a lead record' } },
					pairedItem: { item: i },
				});
				return;
			}
			const decision = decideSend(policy, record);
			if (decision.send) {
				send.push({ json: item.json, pairedItem: { item: i } });
				return;
			}
			const failed = decision.evaluation?.results.filter((r) => !r.passed).map((r) => r.reason);
			// The rule budget ran out on this lead (shared/rules/budget.ts): not matched, and said so.
			const overBudget = decision.evaluation?.overBudget;
			skip.push({
				json: {
					...item.json,
					lead_filter: {
						send: false,
						reason: decision.reason,
						...(failed?.length ? { failed } : {}),
						...(overBudget ? { over_budget: overBudget } : {}),
						...(lookup ? { stage_ledger: lookup } : {}),
					},
				},
				pairedItem: { item: i },
			});
		});
		return [send, skip];
	}
}

/**
 * The records as the rules see them. Stage Facts "From the Stage Ledger": each record's
 * lead_created_at and previous_stage, where the record is silent, from the ledger of the chosen
 * destination — one round trip for the batch (shared/rules/stage.ts). A lead the ledger does not
 * know keeps its own fields (`lookup: unknown`). Otherwise the records as they are.
 */
async function stageFacts(
	ctx: IExecuteFunctions,
	policy: SendPolicy,
	records: Array<LeadRecord | null>,
): Promise<Array<{ record: LeadRecord | null; lookup?: LedgerLookup }>> {
	if (policy.mode !== 'automatic_match' || ctx.getNodeParameter('stageFacts', 0, 'record') !== 'ledger') {
		return records.map((record) => ({ record }));
	}
	const destination = String(ctx.getNodeParameter('ledgerDestination', 0, '') ?? '').trim();
	if (!destination) {
		throw new NodeOperationError(ctx.getNode(), "Enter the Ledger Destination ID: the destination of the sender whose stage ledger to read");
	}
	const { store, keyPrefix } = await withRedisCredential(ctx, 'read the stage ledger', () =>
		resolveStore(ctx, 'redis'),
	);
	let prefix: string;
	try {
		prefix = namespacedPrefix(keyPrefix, ctx.getNodeParameter('ledgerClientKey', 0, '') as string);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message);
	}
	const scope = {
		prefix: prefix || DEFAULT_KEY_PREFIX,
		platform: ctx.getNodeParameter('ledgerPlatform', 0) as Platform,
		destination,
		hashTag: Boolean(store!.hashTagKeys),
	};
	try {
		return await recordsWithLedgerFacts(records, scope, (keys) => store!.readLedger(keys));
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`the stage ledger could not be read from ${store!.description} (${(error as Error).message}): no lead is sent on stage facts it could not check`,
		);
	}
}

/** Reads the optional Redis credential; missing, the error says what it is needed for. */
async function withRedisCredential<T>(ctx: IExecuteFunctions, purpose: string, read: () => Promise<T>): Promise<T> {
	try {
		return await read();
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Choose a Redis credential (the one your Lead Capi nodes use) to ${purpose}: ${(error as Error).message}`,
		);
	}
}

async function preview(ctx: IExecuteFunctions, policy: SendPolicy): Promise<IDataObject> {
	const name = (ctx.getNodeParameter('captureLogName', 0) as string).trim();
	if (!name) {
		throw new NodeOperationError(ctx.getNode(), 'Enter the capture log name of the Lead Capture Trigger to preview');
	}
	const credentials = await withRedisCredential(ctx, 'read the capture log', () =>
		ctx.getCredentials('leadCapiRedisApi'),
	);
	const { client, description } = getRedisClient(redisConfigFromCredentials(credentials));
	let prefix: string;
	try {
		prefix = namespacedPrefix(
			String(credentials.keyPrefix ?? ''),
			ctx.getNodeParameter('previewClientKey', 0, '') as string,
		);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), error instanceof Error ? error.message : String(error));
	}
	// Capture logs are kept per workflow: the trigger's is this workflow's unless told otherwise.
	const workflowId =
		String(ctx.getNodeParameter('previewWorkflowId', 0, '') ?? '').trim() || workflowIdOf(ctx);
	const log = new CaptureLog(client, { key: captureLogKey(prefix, name, workflowId) });
	let read;
	try {
		read = await log.readWindow();
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Could not read the capture log from ${description}: ${error instanceof Error ? error.message : String(error)}`,
		);
	}
	const report = buildPreview(
		policy,
		read.entries.map((e) => ({ id: e.id, at: e.at, record: e.record })),
		{ truncated: read.truncated },
	);
	return { capture_log: name, ...report } as unknown as IDataObject;
}
