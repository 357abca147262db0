import type { RedisClient } from './client';

/**
 * What an entry costs Redis beyond its JSON: the stream id, the `o` and `r` fields and the
 * stream's bookkeeping per entry (ENTRY_OVERHEAD_BYTES), and the allocator's rounding of the
 * listpack that holds it (up to a quarter on top: jemalloc's size classes between 4 and 8 KiB
 * are 1 KiB apart; with the smaller entries the allow-list leaves, the listpacks' own headers and
 * half-filled nodes add more: measured 5% over a 1.25 factor). Counted as `ceil(json × 1.4) + 64`, so the budget bounds what MEMORY USAGE
 * reports for the key, for maximum-size entries (each in a listpack of its own) as for small
 * ones (many per listpack): measured in test/integration/captureLogBudget.test.ts and by the
 * bench (`npm run bench`, "capture flood").
 */
export const ENTRY_OVERHEAD_BYTES = 64;
/** The factor for the allocator's rounding (see above). */
export const ENTRY_ROUNDING = 1.4;

/** The bytes an entry whose JSON is `jsonBytes` long counts for in the budget. */
export function entryCost(jsonBytes: number): number {
	return Math.ceil(jsonBytes * ENTRY_ROUNDING) + ENTRY_OVERHEAD_BYTES;
}

function field(fields: string[], name: string): string | undefined {
	for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
	return undefined;
}

/**
 * Entries and counted bytes of one capture log, from the offsets its entries carry (the newest
 * entry's end minus the oldest entry's start): two reads of one entry each, whatever the size.
 */
export async function captureLogSize(
	client: RedisClient,
	key: string,
): Promise<{ entries: number; bytes: number }> {
	const [entries, newest, oldest] = await Promise.all([
		client.xlen(key),
		client.xrevrange(key, '+', '-', 'COUNT', 1) as Promise<Array<[string, string[]]>>,
		client.xrange(key, '-', '+', 'COUNT', 1) as Promise<Array<[string, string[]]>>,
	]);
	if (!newest.length || !oldest.length) return { entries: 0, bytes: 0 };
	const end =
		Number(field(newest[0][1], 'o') ?? 0) + entryCost(Buffer.byteLength(field(newest[0][1], 'r') ?? '', 'utf8'));
	return { entries, bytes: Math.max(0, end - Number(field(oldest[0][1], 'o') ?? 0)) };
}
