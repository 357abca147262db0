import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { workflowDestinationMarks, workflowScope, type DedupStore, type Platform } from '../../shared';

/** This workflow's id as n8n knows it (`unsaved` before the first save). */
export function workflowIdOf(ctx: IExecuteFunctions | IWebhookFunctions): string {
	return String(ctx.getWorkflow().id ?? '').trim() || 'unsaved';
}

/** `<prefix>:workflow:<this workflow's id>`: see shared/stats workflowScope. */
export function ownWorkflowScope(ctx: IExecuteFunctions | IWebhookFunctions, prefix: string): string {
	return workflowScope(prefix, workflowIdOf(ctx));
}

/**
 * A sender without a Client Key marks the destinations it dispatched to as this workflow's own,
 * for the Health Report without a Client Key. One round trip per destination, never fatal: the
 * counters are a report, not the send.
 */
export async function markOwnDestinations(
	ctx: IExecuteFunctions,
	store: DedupStore | null,
	keyPrefix: string,
	clientKey: string | undefined,
	results: ReadonlyArray<{ platform: Platform; destination: string }>,
): Promise<void> {
	if (!store || clientKey) return;
	try {
		const marks = workflowDestinationMarks(ownWorkflowScope(ctx, keyPrefix), results, Date.now(), {
			hashTag: Boolean(store.hashTagKeys),
		});
		for (const mark of marks) await store.recordStats(mark);
	} catch (error) {
		ctx.logger.debug(
			`health counters: destinations not marked (${error instanceof Error ? error.message : String(error)})`,
		);
	}
}
