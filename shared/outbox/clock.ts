/**
 * The time the outbox reads — due times, deadlines, drain reservations — in the nodes (senders,
 * Outbox Trigger, Dead Letters). Date.now, unless a test or bench moves it (setOutboxClock), so
 * hours of backoff or a platform's Retry-After can be crossed without waiting.
 */
let clock: () => number = Date.now;

export const outboxNow = (): number => clock();

/** Sets the outbox's clock; without an argument, back to Date.now. */
export function setOutboxClock(next?: () => number): void {
	clock = next ?? Date.now;
}
