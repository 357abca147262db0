import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { namespacedPrefix, Transport, type DedupStore } from '../../shared';
import {
	fetchDataManagerRequestStatus,
	googleDataManagerAdapter,
	normalizeCustomerId,
	type DataManagerEvent,
	type GoogleDataManagerConfig,
	type GoogleDataManagerConnection,
} from '../../shared/platforms/google';
import type { SenderSpec } from '../common/executeSender';
import { resolveStore } from '../common/dedupStores';
import { googleAdsExecutor, oauthSecrets } from './executor';
import { readPartialAction } from './partialAction';
import { recordDataManagerRequests, recordDataManagerStatuses } from './requestLog';

export const DATA_MANAGER_CREDENTIAL = 'leadCapiGoogleDataManagerOAuth2Api';

/** The node's parameters that only the Data Manager API has. */
export const dataManagerProperties: INodeProperties[] = [
	{
		displayName: 'Conversion Action ID',
		name: 'conversionActionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: '987654321',
		displayOptions: { show: { api: ['dataManager'], operation: ['send', 'adjust'] } },
		description:
			'The ID of the "Import → Conversions from clicks" action (Google Ads → Goals → Conversions → the action → ctId in the URL). Data Manager cannot list actions: the list needs the Google Ads API and a developer token.',
	},
	{
		displayName: 'Login Account ID',
		name: 'loginAccountId',
		type: 'string',
		default: '',
		placeholder: '555-000-1111',
		displayOptions: { show: { api: ['dataManager'], operation: ['send', 'adjust'] } },
		description:
			'Only when the signed-in Google user reaches the account through a manager (MCC) account: that manager account ID. Dashes are removed.',
	},
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		default: '={{ $json.response?.request_id }}',
		required: true,
		displayOptions: { show: { api: ['dataManager'], operation: ['getRequestStatus'] } },
		description:
			'The request ID Google gave when it accepted the conversions (response.request_id of a sent item)',
	},
	{
		displayName: 'Health Report Store',
		name: 'dedupStore',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { api: ['dataManager'], operation: ['getRequestStatus'] } },
		options: [
			{
				name: 'Redis',
				value: 'redis',
				description:
					"The Redis the sends use: the status read shows beside the request in the Identity Normalizer's Health Report",
			},
			{ name: 'In-Memory (Single Process)', value: 'memory' },
			{ name: 'Off', value: 'off', description: 'The status is only output' },
		],
		default: 'off',
	},
	{
		displayName: 'Client Key',
		name: 'statusClientKey',
		type: 'string',
		default: '',
		placeholder: 'acme',
		displayOptions: {
			show: { api: ['dataManager'], operation: ['getRequestStatus'] },
			hide: { dedupStore: ['off'] },
		},
		description:
			"Agencies: the Client Key of the node that sent the request, so the status lands in that client's health report",
	},
];

function connectionOf(
	ctx: IExecuteFunctions,
	credentials: Record<string, unknown>,
): GoogleDataManagerConnection {
	if (!credentials.oauthTokenData) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The Google Data Manager credential is not connected: open it and sign in with Google',
		);
	}
	return {
		baseUrl: credentials.baseUrl ? String(credentials.baseUrl).trim() : undefined,
		oauthSecrets: oauthSecrets(credentials as never),
	};
}

function digits(ctx: IExecuteFunctions, name: string, message: string): string {
	const value = normalizeCustomerId(ctx.getNodeParameter(name, 0));
	if (!value) throw new NodeOperationError(ctx.getNode(), message);
	return value;
}

export const dataManagerSpec: SenderSpec<GoogleDataManagerConfig, DataManagerEvent> = {
	adapter: googleDataManagerAdapter,
	credentialName: DATA_MANAGER_CREDENTIAL,
	executor: (ctx) => googleAdsExecutor(ctx, DATA_MANAGER_CREDENTIAL),
	afterDispatch: (results, run) => recordDataManagerRequests(run.store, run.keyPrefix, results),
	readConfig(ctx, credentials, options) {
		const connection = connectionOf(ctx, credentials);
		const operatingAccountId = digits(
			ctx,
			'customerId',
			'Customer ID must be the Google Ads account that owns the conversion action: 10 digits, dashes allowed (e.g. 123-456-7890)',
		);
		const conversionActionId = digits(
			ctx,
			'conversionActionId',
			'Conversion Action ID must be digits: the ctId of the action in Google Ads → Goals → Conversions',
		);
		const rawLogin = String(ctx.getNodeParameter('loginAccountId', 0, '') ?? '').trim();
		const loginAccountId = rawLogin ? normalizeCustomerId(rawLogin) : undefined;
		if (loginAccountId === null) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Login Account ID must be a manager account ID: 10 digits, dashes allowed',
			);
		}
		const partialConversionActionId = readPartialAction(ctx, options, (id) => id);
		if (partialConversionActionId === conversionActionId) {
			throw new NodeOperationError(
				ctx.getNode(),
				'Partial Lead Conversion Action ID is the Conversion Action ID itself: partial leads need an action of their own (or leave the option empty to skip them)',
			);
		}
		return {
			...connection,
			operatingAccountId,
			conversionActionId,
			...(partialConversionActionId ? { partialConversionActionId } : {}),
			loginAccountId,
			validateOnly: Boolean(options.validateOnly),
		};
	},
};

/**
 * Get Request Status: Google accepts conversions before it processes them; this reads each
 * item's request id back (requestStatus:retrieve), so "accepted" is not taken for "counted".
 */
/** Where the statuses read are recorded for the health report (none when Off). */
async function statusStore(
	ctx: IExecuteFunctions,
): Promise<{ store: DedupStore | null; keyPrefix: string }> {
	const kind = ctx.getNodeParameter('dedupStore', 0, 'off') as 'redis' | 'memory' | 'off';
	const resolved = await resolveStore(ctx, kind);
	try {
		const clientKey = ctx.getNodeParameter('statusClientKey', 0, '') as string;
		return { store: resolved.store, keyPrefix: namespacedPrefix(resolved.keyPrefix, clientKey) };
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message);
	}
}

export async function executeRequestStatus(
	ctx: IExecuteFunctions,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const health = await statusStore(ctx);
	const connection = connectionOf(ctx, await ctx.getCredentials(DATA_MANAGER_CREDENTIAL));
	const transport = new Transport({ executor: googleAdsExecutor(ctx, DATA_MANAGER_CREDENTIAL) });
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const requestId = String(ctx.getNodeParameter('requestId', i, '') ?? '').trim();
		if (!requestId) {
			const message = 'Request ID is empty: give the response.request_id of a sent item';
			if (!ctx.continueOnFail())
				throw new NodeOperationError(ctx.getNode(), message, { itemIndex: i });
			out.push({ json: { request_id: null, error: message }, pairedItem: { item: i } });
			continue;
		}
		const result = await fetchDataManagerRequestStatus(connection, requestId, transport);
		if (!result.ok) {
			if (!ctx.continueOnFail()) {
				throw new NodeApiError(ctx.getNode(), (result.response ?? {}) as JsonObject, {
					itemIndex: i,
					message: `Could not read the status of request ${requestId}: ${result.message}`,
				});
			}
			out.push({
				json: { request_id: requestId, error: result.message, retryable: result.retryable },
				pairedItem: { item: i },
			});
			continue;
		}
		await recordDataManagerStatuses(health.store, health.keyPrefix, requestId, result.statuses);
		const states = result.statuses.map((s) => s.request_status);
		const json: IDataObject = {
			request_id: requestId,
			request_status:
				states.length === 1 ? states[0] : states.join(', ') || 'REQUEST_STATUS_UNKNOWN',
			processed: states.length > 0 && states.every((s) => s !== 'PROCESSING'),
			statuses: result.statuses as unknown as IDataObject[],
		};
		out.push({ json, pairedItem: { item: i } });
	}
	return [out];
}
