import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Options → Partial Lead Conversion Action ID: undefined when empty, else the action in the
 * form the API takes (`toAction` of its digits); a value that is not an ID stops the run.
 */
export function readPartialAction(
	ctx: IExecuteFunctions,
	options: Record<string, unknown>,
	toAction: (id: string) => string | null,
): string | undefined {
	const raw = String(options.partialConversionActionId ?? '').trim();
	if (!raw) return undefined;
	const action = /^\d+$/.test(raw) ? toAction(raw) : null;
	if (!action) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Partial Lead Conversion Action ID must be digits: the ctId of the partial-lead action in Google Ads → Goals → Conversions',
		);
	}
	return action;
}
