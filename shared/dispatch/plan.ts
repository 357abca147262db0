import { dedupKey, type LedgerRead } from '../dedup/types';
import { deriveEventId, readRecordId } from '../events/eventId';
import { parseTimeMs, resolveEventTime } from '../events/eventTime';
import { ledgerKey, stageOf, type LedgerEntry } from '../ledger';
import type { Candidate, RunState } from './runState';
import type { DispatchItem, ItemResult } from './types';

/** A later item carrying an event already in this run, and the index of its first item. */
export interface Repeat {
	index: number;
	first: number;
}

/** What the plan stage found: the events to claim and send, and the repeats within the run. */
export interface Plan {
	candidates: Candidate[];
	repeats: Repeat[];
}

export const MISSING_RECORD_ID =
	'record_id is missing: give this lead the stable ID of its business record (form submission, capture session, CRM deal), e.g. with Lead Fields → Map Fields → record_id. The event ID is derived from it, so without one the event cannot be sent exactly once';

/**
 * Stage 1, plan: per item its result, record id, event id and event time; the repeats of an
 * event within the run; no identity work yet. Items that cannot be sent end here, failed or
 * skipped with their reason.
 */
export function planRun(run: RunState<unknown, unknown>, items: DispatchItem[]): Plan {
	const plan: Plan = { candidates: [], repeats: [] };
	const firstIndexOfEvent = new Map<string, number>();
	items.forEach((item, index) => {
		const result = startResult(run, item);
		run.results[index] = result;
		const eventId = eventIdOf(run, item, result);
		if (eventId === undefined) return;
		const first = firstIndexOfEvent.get(eventId);
		if (first !== undefined) {
			plan.repeats.push({ index, first });
			return;
		}
		firstIndexOfEvent.set(eventId, index);
		const eventTime = eventTimeOf(run, item, result);
		if (eventTime === undefined) return;
		plan.candidates.push(new PlannedCandidate(run, index, item, eventId, eventTime));
	});
	return plan;
}

/**
 * A candidate whose dedup and ledger keys are made when first asked for — when its batch is
 * claimed — and let go of with the batch: a run of 100,000 leads does not hold 200,000 key
 * strings from its plan to its last batch.
 */
class PlannedCandidate implements Candidate {
	ledgerRead?: LedgerRead;
	ledger?: LedgerEntry | null;
	private dedupKeyText?: string;
	private ledgerKeyText?: string | null;

	constructor(
		private readonly run: RunState<unknown, unknown>,
		readonly index: number,
		readonly item: DispatchItem,
		readonly eventId: string,
		readonly eventTime: number,
	) {}

	get key(): string {
		const { run } = this;
		this.dedupKeyText ??= dedupKey(run.prefix, run.adapter.platform, run.destination, this.eventId, {
			hashTag: run.hashTag,
		});
		return this.dedupKeyText;
	}

	get ledgerKey(): string | undefined {
		this.ledgerKeyText ??= this.makeLedgerKey() ?? null;
		return this.ledgerKeyText ?? undefined;
	}

	private makeLedgerKey(): string | undefined {
		const { run, item } = this;
		if (!run.ledger) return undefined;
		// A drained outbox event (prebuilt) carries no record: its ledger key was kept with it.
		const kept = item.prebuilt?.ledger?.key;
		if (kept !== undefined) return kept;
		const recordId = readRecordId(item.record?.record_id);
		return recordId
			? ledgerKey(run.prefix, run.adapter.platform, run.destination, recordId, { hashTag: run.hashTag })
			: undefined;
	}
}

function startResult(run: RunState<unknown, unknown>, item: DispatchItem): ItemResult {
	return {
		status: 'failed',
		platform: run.adapter.platform,
		destination: run.destination,
		event_name: item.eventName,
		match_keys: [],
		warnings: item.warnings ? [...item.warnings] : [],
	};
}

/** The item's event id, or undefined (and the reason on its result) when it has none. */
function eventIdOf(
	run: RunState<unknown, unknown>,
	item: DispatchItem,
	result: ItemResult,
): string | undefined {
	if (item.error) {
		result.error = item.error;
		return undefined;
	}
	if (item.prebuilt) return (result.event_id = item.prebuilt.eventId);
	const recordId = readRecordId(item.record?.record_id);
	if (!recordId) {
		result.error = MISSING_RECORD_ID;
		return undefined;
	}
	if (!item.eventName) {
		result.error = 'event name is empty';
		return undefined;
	}
	result.event_id = deriveEventId(run.destination, item.eventName, recordId, run.options.clientKey);
	return result.event_id;
}

/**
 * The event time within the platform's window, or undefined (with the reason on the result). The
 * one timing rule of every sender. A stage event — the record has a `stage`, or the adapter
 * times every event of its config as one (Meta's Conversion Leads: `stageTimed`) — is timed by
 * `stage_at` (else `occurred_at`) and is never rewritten: older than the window it is `expired`,
 * with the reason; an unreadable `stage_at` fails (docs/stages.md). Other events follow the
 * node's Event Window Policy.
 */
function eventTimeOf(
	run: RunState<unknown, unknown>,
	item: DispatchItem,
	result: ItemResult,
): number | undefined {
	if (item.prebuilt) return (result.event_time = item.prebuilt.eventTime);
	const stage = stageOf(item.record);
	const stageTimed = stage !== undefined || run.adapter.stageTimed?.(run.config) === true;
	const stageAt = item.record.stage_at;
	const byStageAt = stageTimed && stageAt !== undefined && stageAt !== null && stageAt !== '';
	if (byStageAt && parseTimeMs(stageAt) === null) {
		result.error = 'stage_at: not a valid time (ISO-8601 or epoch expected); the stage time is never guessed';
		return undefined;
	}
	const time = resolveEventTime({
		occurredAt: byStageAt ? stageAt : item.record.occurred_at,
		window: run.adapter.eventTimeWindow,
		policy: stageTimed ? 'skip' : run.options.eventWindowPolicy,
		now: run.now,
		field: byStageAt ? 'stage_at' : 'occurred_at',
		neverClamp: stageTimed,
	});
	if (time.warnings.length) result.warnings.push(...time.warnings);
	if (!time.ok) {
		result.status = stageTimed ? 'expired' : 'skipped';
		result.error = stageTimed
			? `${stage !== undefined ? 'stage' : 'event'} "${stage ?? item.eventName}" expired: ${time.reason}`
			: time.reason;
		return undefined;
	}
	result.event_time = time.unixSeconds;
	return time.unixSeconds;
}

/** The last stage for repeats: each reports what happened to its run's first item of the event. */
export function resolveRepeats(run: RunState<unknown, unknown>, repeats: Repeat[]): void {
	for (const { index, first } of repeats) {
		const r = run.results[index];
		const original = run.results[first];
		if (original.status === 'sent' || original.status === 'duplicate') {
			r.status = 'duplicate';
			r.dedup = 'in_batch';
			r.warnings.push(`same event as item ${first} of this batch: sent once`);
		} else {
			r.status = original.status;
			r.retryable = original.retryable;
			r.error =
				`same event as item ${first} of this batch, which was ${original.status}: ${original.error ?? ''}`.trim();
		}
	}
}
