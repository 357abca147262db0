import { readEventContext } from '../events/context';
import { matchQualityScore, normalizeIdentity, renderIdentity } from '../identity';
import { keptFacts } from './keep';
import type { Candidate, RunState } from './runState';
import type { KeptFacts } from './types';

/**
 * Stage 2, prepare: the identity normalized and rendered for the platform, the event context
 * (consent, LDU, value, page URL, California) read once, then the platform's builder. Returns the payload, or null when the item fails or is skipped
 * on its own merits (its result says why).
 */
export function prepareEvent<Config, Payload>(
	run: RunState<Config, Payload>,
	c: Candidate,
): Payload | null {
	const r = run.results[c.index];
	if (c.item.prebuilt) return c.item.prebuilt.payload as Payload;
	const identity = normalizeIdentity(c.item.record, {
		defaultCountry: run.options.defaultCountry,
		eventTimeMs: c.eventTime * 1000,
		clock: run.clock,
	});
	const user = renderIdentity(identity, run.adapter.identity);
	r.match_quality = matchQualityScore(run.adapter.identity, user);
	const built = run.adapter.buildEvent(
		{
			record: c.item.record,
			eventName: c.item.eventName,
			eventId: c.eventId,
			eventTime: c.eventTime,
			ledger: c.ledger,
			identity,
			user,
			event: readEventContext(c.item.record, { identity }),
		},
		run.config,
	);
	r.match_keys = built.matchKeys;
	if (identity.warnings.length) r.warnings.push(...identity.warnings);
	if (built.warnings.length) r.warnings.push(...built.warnings);
	if (!built.ok) {
		r.status = built.status;
		r.error = built.reason;
		return null;
	}
	if (run.options.includePayload || run.options.mode?.kind === 'dryRun') r.payload = built.payload;
	return built.payload;
}

/** A dry run: every event prepared, one request previewed, nothing claimed or sent. */
export function prepareDryRun<Config, Payload>(
	run: RunState<Config, Payload>,
	candidates: Candidate[],
): void {
	const payloads: Payload[] = [];
	const built: Candidate[] = [];
	for (const c of candidates) {
		const payload = prepareEvent(run, c);
		if (payload !== null) {
			payloads.push(payload);
			built.push(c);
		}
	}
	const request = payloads.length ? run.adapter.previewRequest(payloads, run.config) : undefined;
	for (const c of built) {
		const r = run.results[c.index];
		r.status = 'skipped';
		r.dry_run = true;
		r.warnings.push('dry run: nothing was claimed or sent');
		r.response = { request_preview: request };
	}
}

/**
 * Built for the outbox (Deliver → Via Outbox): every event prepared and handed to `onBuilt`
 * with what its later send needs; nothing claimed, sent or previewed. A built event's result is
 * `skipped` until the caller queues it.
 */
export function prepareForOutbox<Config, Payload>(
	run: RunState<Config, Payload>,
	candidates: Candidate[],
	onBuilt: (index: number, payload: Payload, kept: KeptFacts) => void,
): void {
	for (const c of candidates) {
		const payload = prepareEvent(run, c);
		if (payload === null) continue;
		run.results[c.index].status = 'skipped';
		onBuilt(c.index, payload, keptFacts(run, c));
	}
}
