import { randomUUID } from 'node:crypto';
import type { DedupStore, RenewOutcome } from '../dedup/types';

/** Why the run may no longer send an event it claimed. */
export type LeaseLoss =
	| { kind: 'sent' | 'taken' | 'expired' }
	/** Renewal failed (the store did not answer) while less than a third of the lease was left. */
	| { kind: 'unconfirmed'; message: string };

/**
 * A run's lease on the claims it holds: one owner token for the whole run, the keys it has
 * claimed and not yet settled, and a renewal of all of them in one round trip every third of
 * the claim TTL (and on demand before a request goes out late in a lease). A crashed run stops
 * renewing, so its claims expire one TTL after its last renewal.
 */
export class Lease {
	readonly token = randomUUID();
	private readonly inFlight = new Set<string>();
	private readonly lost = new Map<string, LeaseLoss>();
	/** Until when every in-flight key is surely held (the earliest expiry among them). */
	private safeUntil = Infinity;
	private timer: ReturnType<typeof setInterval> | undefined;
	private renewing: Promise<void> | undefined;

	constructor(
		private readonly store: DedupStore,
		private readonly ttlMs: number,
		private readonly clock: () => number,
	) {}

	/** Keys just claimed (at `claimedAt`, before the claim's round trip): renewed from now on. */
	hold(keys: string[], claimedAt: number): void {
		if (keys.length === 0) return;
		if (this.inFlight.size === 0) this.safeUntil = claimedAt + this.ttlMs;
		for (const key of keys) this.inFlight.add(key);
		if (!this.timer) {
			this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3)));
			this.timer.unref?.();
		}
	}

	/** Keys settled (committed or released): no longer renewed. */
	letGo(keys: string[]): void {
		for (const key of keys) this.inFlight.delete(key);
	}

	/** Until when every in-flight key is surely held (last renewal or claim + the claim TTL). */
	expiresAt(): number {
		return this.safeUntil;
	}

	/** Why this key may no longer be sent by this run, if it may not. */
	lossOf(key: string): LeaseLoss | undefined {
		return this.lost.get(key);
	}

	/**
	 * Of `keys`, those this run may still send: not lost to another run, and held for at least
	 * a third of the lease (renewed here first when less is left).
	 */
	async confirm(keys: string[]): Promise<string[]> {
		if (this.clock() >= this.safeUntil - this.ttlMs / 3) await this.renew();
		if (this.clock() >= this.safeUntil - this.ttlMs / 3) {
			const loss: LeaseLoss = { kind: 'unconfirmed', message: this.lastError };
			for (const key of keys) if (!this.lost.has(key)) this.lost.set(key, loss);
		}
		return keys.filter((key) => !this.lost.has(key));
	}

	/** One round trip for every in-flight key; a renewal already under way is joined. */
	renew(): Promise<void> {
		this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
		return this.renewing;
	}

	stop(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = undefined;
	}

	private lastError = 'the dedup store did not answer';

	private async renewOnce(): Promise<void> {
		const keys = [...this.inFlight].filter((key) => !this.lost.has(key));
		if (keys.length === 0) return;
		const startedAt = this.clock();
		let outcomes: RenewOutcome[];
		try {
			outcomes = await this.store.renewClaims(this.token, keys, this.ttlMs);
		} catch (error) {
			// Not fatal by itself: the next renewal may succeed before the lease runs out.
			this.lastError = error instanceof Error ? error.message : String(error);
			return;
		}
		outcomes.forEach((outcome, i) => {
			if (outcome !== 'held') this.lost.set(keys[i], { kind: outcome });
		});
		this.safeUntil = startedAt + this.ttlMs;
	}
}
