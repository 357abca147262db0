import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	googleConversionActionsRequest,
	normalizeCustomerId,
	readConversionActions,
} from '../../shared/platforms/google';
import { GOOGLE_ADS_CREDENTIAL, readConnection } from './executor';

/**
 * The account's enabled "upload clicks" conversion actions (GoogleAdsService search), for the
 * Conversion Action list. Filtered here by name or ID: GAQL string literals would need escaping.
 */
export async function searchConversionActions(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const customerId = normalizeCustomerId(this.getCurrentNodeParameter('customerId'));
	if (!customerId) {
		throw new NodeOperationError(
			this.getNode(),
			'Enter the Customer ID first (10 digits, dashes allowed) to list its conversion actions',
		);
	}
	const connection = readConnection(this, await this.getCredentials(GOOGLE_ADS_CREDENTIAL));
	const request = googleConversionActionsRequest(
		connection,
		customerId,
		typeof paginationToken === 'string' && paginationToken ? paginationToken : undefined,
	);
	const data: unknown = await this.helpers.httpRequestWithAuthentication.call(
		this,
		GOOGLE_ADS_CREDENTIAL,
		{
			method: request.method,
			url: request.url,
			headers: request.headers,
			body: request.body as object,
			json: true,
			timeout: request.timeoutMs,
		},
	);
	const { actions, nextPageToken } = readConversionActions(data);
	const needle = (filter ?? '').trim().toLowerCase();
	const results = actions
		.filter((a) => !needle || a.name.toLowerCase().includes(needle) || a.id.includes(needle))
		.sort((a, b) => a.name.localeCompare(b.name))
		.map((a) => ({ name: `${a.name} (${a.id})`, value: a.resourceName }));
	return { results, paginationToken: nextPageToken };
}
