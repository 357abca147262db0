import type { IWebhookFunctions } from 'n8n-workflow';
import {
	describeRefusal,
	namespacedPrefix,
	RedisDedupStore,
	refusalIncrement,
	RefusalLogLimiter,
	refusalReason,
	type DedupStore,
} from '../../shared';
import { memoryStore } from '../common/dedupStores';
import { getRedisClient, redisConfigFromCredentials } from '../common/redisClients';
import { ownWorkflowScope } from '../common/workflowScope';

/** One warn line per path and reason per minute, for this n8n process. */
const refusalLog = new RefusalLogLimiter(60_000);

export interface Refusal {
	status: number;
	/** From the capture core or the trigger: one line, no secret, no raw personal data. */
	reason: string;
	source: string;
	clientKey?: string;
}

/**
 * Makes a refused delivery visible: a warn line in n8n's log (rate-limited) and a counter per
 * capture path and reason for the Identity Normalizer's Health Report — in the capture log's
 * Redis when the trigger keeps one, else in this process's in-memory store; under the Client Key
 * when set, else in this workflow's own scope (the Health Report without a Client Key shows only
 * its own workflow's triggers). Never throws: a counter that cannot be written is only logged at
 * debug level.
 */
export async function recordRefusal(ctx: IWebhookFunctions, refusal: Refusal): Promise<void> {
	const path = String(ctx.getNodeParameter('path', '')).replace(/^\/+/, '');
	const reason = refusalReason(refusal.status);
	const decision = refusalLog.admit(path, reason);
	if (decision.log) {
		ctx.logger.warn(describeRefusal({ ...refusal, path, suppressed: decision.suppressed }));
	}
	try {
		const { store, keyPrefix } = await refusalStore(ctx);
		const base = namespacedPrefix(keyPrefix, undefined);
		const scope = refusal.clientKey?.trim()
			? namespacedPrefix(keyPrefix, refusal.clientKey)
			: ownWorkflowScope(ctx, base);
		await store.recordRefusal(refusalIncrement(scope, path, reason));
	} catch (error) {
		ctx.logger.debug(
			`Lead Capture Trigger: refused delivery not counted (${error instanceof Error ? error.message : String(error)})`,
		);
	}
}

async function refusalStore(
	ctx: IWebhookFunctions,
): Promise<{ store: DedupStore; keyPrefix?: string }> {
	if (ctx.getNodeParameter('captureLog', 'off') !== 'redis') return { store: memoryStore };
	const credentials = await ctx.getCredentials('leadCapiRedisApi');
	const { client, description } = getRedisClient(redisConfigFromCredentials(credentials));
	return {
		store: new RedisDedupStore(client, { description }),
		keyPrefix: credentials.keyPrefix ? String(credentials.keyPrefix) : undefined,
	};
}
