import { stageOf } from '../../ledger/entry';
import type { BuildOutcome, PlatformAdapter } from '../contract';
import type { GoogleAdjustment } from './adjustments';

/** The Adjust operation's Original Event when the stage ledger names it. */
export const LEDGER_ORIGINAL = 'ledger';

export const NO_ORIGINAL_IN_LEDGER =
	'the stage ledger has no conversion sent for this lead at this conversion action (sent before the ledger was kept, with the ledger off, or longer ago than its TTL): choose the Original Event and Conversion Time instead';

/** The stages that retract a conversion and those that restate it (case-blind). */
export interface StageAdjustments {
	retraction: string[];
	restatement: string[];
}

export const DEFAULT_STAGE_ADJUSTMENTS: StageAdjustments = {
	retraction: ['lost', 'disqualified'],
	restatement: ['won'],
};

/** Which adjustment a lead's stage asks for, or null (the reason is said by the caller). */
export function stageAdjustment(
	record: { stage?: unknown },
	stages: StageAdjustments = DEFAULT_STAGE_ADJUSTMENTS,
): GoogleAdjustment | null {
	const stage = stageOf(record)?.toLowerCase();
	if (stage === undefined) return null;
	const has = (list: string[]) => list.some((s) => s.trim().toLowerCase() === stage);
	if (has(stages.retraction)) return 'retraction';
	if (has(stages.restatement)) return 'restatement';
	return null;
}

/**
 * An adjustment adapter whose original conversion is the one the stage ledger holds for each
 * lead: the first event sent to this conversion action — its name gives the transaction id
 * (the event id it was sent with), its time is the conversion time the 54-day window and the
 * adjustment time are measured from. Nothing is typed by the user; a lead the ledger does not
 * know is skipped with the reason.
 */
export function originalFromLedger<Config, Payload>(
	adapterFor: (originalEvent: string) => PlatformAdapter<Config, Payload>,
): PlatformAdapter<Config, Payload> {
	const base = adapterFor(LEDGER_ORIGINAL);
	return {
		...base,
		buildEvent(context, config): BuildOutcome<Payload> {
			const first = context.ledger?.first;
			if (!first) {
				return {
					ok: false,
					status: 'skipped',
					reason: NO_ORIGINAL_IN_LEDGER,
					matchKeys: [],
					warnings: [],
				};
			}
			return adapterFor(first.event).buildEvent({ ...context, eventTime: first.time }, config);
		},
	};
}
