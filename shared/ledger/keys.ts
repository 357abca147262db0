import { DEFAULT_KEY_PREFIX } from '../clientKey';
import { hashSha256 } from '../identity/hash';
import type { Platform } from '../types';

/**
 * `<prefix>:ledger:<platform>:<destination>:<sha256(record_id)>` — beside the dedup keys of the
 * same client prefix. With `hashTag` (Redis Cluster) the destination is `{<destination>}`, so a
 * lead's ledger shares the hash slot of its dedup keys and the settle script can write both.
 * The record id is hashed: it may be an email or a phone number on a generic webhook.
 */
export function ledgerKey(
	prefix: string,
	platform: Platform,
	destination: string,
	recordId: string,
	options: { hashTag?: boolean } = {},
): string {
	const dest = options.hashTag ? `{${destination}}` : destination;
	return `${prefix || DEFAULT_KEY_PREFIX}:ledger:${platform}:${dest}:${hashSha256(recordId)}`;
}
