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
	namespacedPrefix,
	readLeadRecord,
	validateRuleSet,
	type MatchType,
	type SendMode,
	type SendPolicy,
} from '../../shared';
import { leadCapiRedisConnectionTest } from '../common/credentialTests';
import { getRedisClient, redisConfigFromCredentials } from '../common/redisClients';
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
				name: 'leadCapiRedisApi',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
				displayOptions: { show: { operation: ['preview'] } },
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
		items.forEach((item, i) => {
			const record = readLeadRecord(item.json, recordField);
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
			skip.push({
				json: {
					...item.json,
					lead_filter: { send: false, reason: decision.reason, ...(failed?.length ? { failed } : {}) },
				},
				pairedItem: { item: i },
			});
		});
		return [send, skip];
	}
}

async function preview(ctx: IExecuteFunctions, policy: SendPolicy): Promise<IDataObject> {
	const name = (ctx.getNodeParameter('captureLogName', 0) as string).trim();
	if (!name) {
		throw new NodeOperationError(ctx.getNode(), 'Enter the capture log name of the Lead Capture Trigger to preview');
	}
	const credentials = await ctx.getCredentials('leadCapiRedisApi');
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
	const log = new CaptureLog(client, { key: captureLogKey(prefix, name) });
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
