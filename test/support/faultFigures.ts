import fs from 'node:fs';
import path from 'node:path';
import type Redis from 'ioredis';
import { deriveEventId, type ItemResult } from '../../shared';

/*
 * What the fault suite measures, counted from the platform stand-in's own log (what it
 * accepted, and whether its answer reached the client), and where each scenario writes its
 * figures for RELIABILITY.md (test/faults/reliability.js renders and checks it).
 */

/** The folder the suite writes its figures to (one JSON file per scenario); git-ignored. */
export const FIGURES_DIR = path.resolve(__dirname, '..', '..', '.faults', 'figures');

/** What the Meta stand-in logs (test/standins/meta.js), as far as the ledger reads it. */
export interface StandInLog {
	received: Array<{
		event: { event_id: string; event_name: string; event_time: number };
		receivedAt: number;
		request: number;
	}>;
	requests: Array<{ status: number; answeredAt?: number }>;
}

export interface Ledger {
	/** Distinct event ids the stand-in accepted. */
	accepted: Set<string>;
	/** Events the stand-in accepted, each repeat counted. */
	deliveries: number;
	/** Ids accepted again after a delivery of them had been acknowledged: a true duplicate. */
	duplicates: Set<string>;
	/**
	 * Ids delivered again while no earlier delivery of them had been acknowledged (the answer
	 * was lost: the ambiguous case). Resent as the same event, so the platform can drop the copy.
	 */
	resentAfterLostAnswer: Set<string>;
	/** Resends whose event differs from the first delivery (name or time): must stay empty. */
	changedOnResend: Set<string>;
	/** Ids with at least one acknowledged delivery. */
	acknowledged: Set<string>;
	/** Expected ids the stand-in never accepted. */
	lost: Set<string>;
	/** Accepted ids nobody asked for. */
	unexpected: Set<string>;
	/** POST requests that reached the stand-in. */
	requests: number;
}

/** Reads the stand-in's log against the event ids that should have reached it. */
export function deliveryLedger(log: StandInLog, expected: Set<string>): Ledger {
	const first = new Map<string, { event_name: string; event_time: number }>();
	/** Per id, when its first acknowledged delivery was answered. */
	const ackedAt = new Map<string, number>();
	const ledger: Ledger = {
		accepted: new Set(),
		deliveries: log.received.length,
		duplicates: new Set(),
		resentAfterLostAnswer: new Set(),
		changedOnResend: new Set(),
		acknowledged: new Set(),
		lost: new Set(),
		unexpected: new Set(),
		requests: log.requests.length,
	};
	for (const { event, receivedAt, request } of log.received) {
		const id = event.event_id;
		const before = first.get(id);
		if (before) {
			const acked = ackedAt.get(id);
			if (acked !== undefined && acked <= receivedAt) ledger.duplicates.add(id);
			else ledger.resentAfterLostAnswer.add(id);
			if (before.event_name !== event.event_name || before.event_time !== event.event_time) {
				ledger.changedOnResend.add(id);
			}
		} else {
			first.set(id, event);
		}
		ledger.accepted.add(id);
		const answeredAt = log.requests[request]?.answeredAt;
		if (answeredAt !== undefined) {
			ledger.acknowledged.add(id);
			ackedAt.set(id, Math.min(ackedAt.get(id) ?? Infinity, answeredAt));
		}
		if (!expected.has(id)) ledger.unexpected.add(id);
	}
	for (const id of expected) if (!ledger.accepted.has(id)) ledger.lost.add(id);
	return ledger;
}

/** The Meta event ids of `Lead` events for these record ids. */
export function leadEventIds(pixelId: string, recordIds: Iterable<string>): Set<string> {
	const ids = new Set<string>();
	for (const recordId of recordIds) ids.add(deriveEventId(pixelId, 'Lead', recordId));
	return ids;
}

/** Event ids marked sent (`s`) under a key prefix, read from the dedup keys themselves. */
export function markedSent(redis: Redis, prefix: string): Promise<Set<string>> {
	return markedAs(redis, prefix, 's');
}

/** The event ids held in Redis after an unknown outcome (value `u`), under `prefix`. */
export function markedHeld(redis: Redis, prefix: string): Promise<Set<string>> {
	return markedAs(redis, prefix, 'u');
}

async function markedAs(redis: Redis, prefix: string, value: string): Promise<Set<string>> {
	const sent = new Set<string>();
	let cursor = '0';
	do {
		const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:meta:*`, 'COUNT', 5000);
		cursor = next;
		if (keys.length === 0) continue;
		const values = await redis.mget(...keys);
		keys.forEach((key, i) => {
			if (values[i] === value) sent.add(key.slice(key.lastIndexOf(':') + 1));
		});
	} while (cursor !== '0');
	return sent;
}

/** How many items ended in each status. */
export function statusCounts(results: ItemResult[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
	return counts;
}

/** One row of RELIABILITY.md. */
export interface ScenarioFigures {
	/** Stable key (file name); rows are sorted by `order`. */
	id: string;
	order: number;
	scenario: string;
	/** What was done to the system. */
	done: string;
	/** What was expected. */
	expected: string;
	measured: Measured;
	/** Anything else worth keeping in the JSON (not in the table). */
	details?: Record<string, unknown>;
	/** One line of figures beyond the columns, rendered under the table (e.g. Redis memory). */
	notes?: string;
}

export interface Measured {
	/** Distinct events that should reach the platform. */
	events: number;
	/** Distinct of them the stand-in accepted. */
	accepted: number;
	/** Events the stand-in accepted, each repeat counted. */
	deliveries: number;
	duplicates: number;
	lost: number;
	resentAfterLostAnswer: number;
	/** Event ids marked sent in Redis that the stand-in never acknowledged. */
	markedSentUnacknowledged: number;
	/**
	 * Event ids held in Redis at the end after an unknown outcome (accepted, answer lost, on a
	 * platform that may count a resend twice): not resent, not marked sent.
	 */
	held: number;
	/** Items that ended failed (each with its message) in the runs under fault. */
	errorsReported: number;
	/** POST requests the stand-in saw, all runs together. */
	requests: number;
	/** Events the recovery re-run sent (0 where no re-run was needed). */
	rerunSent: number;
	/** Accepted ids nobody asked for. */
	unexpected: number;
	/** Resent events that differ from their first delivery (name or time). */
	changedOnResend: number;
	/** Expected events neither marked sent nor held in Redis at the end. */
	notMarkedSent: number;
}

/** The measured figures of a scenario: its ledger, the dedup keys marked sent, and its own counts. */
export function measure(
	ledger: Ledger,
	sent: Set<string>,
	expected: Set<string>,
	counts: { errorsReported: number; rerunSent: number },
	held: Set<string> = new Set(),
): Measured {
	return {
		events: expected.size,
		accepted: ledger.accepted.size,
		deliveries: ledger.deliveries,
		duplicates: ledger.duplicates.size,
		lost: ledger.lost.size,
		resentAfterLostAnswer: ledger.resentAfterLostAnswer.size,
		markedSentUnacknowledged: [...sent].filter((id) => !ledger.acknowledged.has(id)).length,
		held: held.size,
		errorsReported: counts.errorsReported,
		requests: ledger.requests,
		rerunSent: counts.rerunSent,
		unexpected: ledger.unexpected.size,
		changedOnResend: ledger.changedOnResend.size,
		notMarkedSent: [...expected].filter((id) => !sent.has(id) && !held.has(id)).length,
	};
}

/**
 * Writes one scenario's figures for the report (first, so that a broken promise shows there
 * too), then asserts what every scenario promises: every event accepted, none lost, none
 * accepted again after it was acknowledged, none nobody asked for, resends identical to the
 * first delivery, nothing marked sent that was not acknowledged, every event marked sent (or
 * held, where its answer was lost and the platform may count a resend twice — and accepted).
 */
export function recordFigures(figures: ScenarioFigures): void {
	fs.mkdirSync(FIGURES_DIR, { recursive: true });
	fs.writeFileSync(
		path.join(FIGURES_DIR, `${figures.id}.json`),
		`${JSON.stringify(figures, null, 2)}\n`,
	);
	const m = figures.measured;
	expect({
		accepted: m.accepted,
		lost: m.lost,
		duplicates: m.duplicates,
		unexpected: m.unexpected,
		changedOnResend: m.changedOnResend,
		markedSentUnacknowledged: m.markedSentUnacknowledged,
		notMarkedSent: m.notMarkedSent,
	}).toEqual({
		accepted: m.events,
		lost: 0,
		duplicates: 0,
		unexpected: 0,
		changedOnResend: 0,
		markedSentUnacknowledged: 0,
		notMarkedSent: 0,
	});
}
