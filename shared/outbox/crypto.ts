import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Outbox entries are sealed with AES-256-GCM (authenticated encryption). The key is derived
 * (HKDF-SHA-256) from the secret of the leadCapiOutboxApi credential and never written to Redis;
 * a short key id (a hash of a separate derivation, not the key) is stored with each entry so a
 * wrong or rotated key is told apart from a tampered entry.
 */
export interface OutboxKey {
	readonly key: Buffer;
	readonly id: string;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Raised for an entry that cannot be opened: `reason` says why, never what it holds. */
export class OutboxDecryptError extends Error {
	constructor(readonly reason: 'wrong_key' | 'tampered' | 'malformed') {
		super(
			reason === 'wrong_key'
				? 'outbox entry sealed with another key (the Outbox Key credential was changed or rotated): it cannot be opened with this one'
				: reason === 'tampered'
					? 'outbox entry failed its integrity check (altered or corrupted in Redis): it cannot be opened'
					: 'outbox entry is not in the sealed format: it cannot be opened',
		);
		this.name = 'OutboxDecryptError';
	}
}

/** The key from the credential's secret; a secret under 16 characters is refused. */
export function outboxKey(secret: string): OutboxKey {
	const text = String(secret ?? '');
	if (text.length < 16) {
		throw new Error(
			'Outbox Key: enter a secret of at least 16 characters (e.g. openssl rand -base64 32)',
		);
	}
	const derive = (info: string) =>
		Buffer.from(hkdfSync('sha256', Buffer.from(text, 'utf8'), 'lead-capi-outbox', info, 32));
	const key = derive('aes-256-gcm');
	const id = createHash('sha256').update(derive('key-id')).digest('hex').slice(0, 12);
	return { key, id };
}

/** `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url); `aad` binds it to its place (queue, event id). */
export function seal(key: OutboxKey, value: unknown, aad: string): string {
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
	cipher.setAAD(Buffer.from(aad, 'utf8'));
	const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
	const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
	return [VERSION, key.id, ...parts].join('.');
}

export function open<T = unknown>(key: OutboxKey, sealed: string, aad: string): T {
	const parts = String(sealed).split('.');
	if (parts.length !== 5 || parts[0] !== VERSION) throw new OutboxDecryptError('malformed');
	if (parts[1] !== key.id) throw new OutboxDecryptError('wrong_key');
	const [iv, tag, body] = parts.slice(2).map((p) => Buffer.from(p, 'base64url'));
	if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new OutboxDecryptError('malformed');
	try {
		const decipher = createDecipheriv('aes-256-gcm', key.key, iv, { authTagLength: TAG_BYTES });
		decipher.setAAD(Buffer.from(aad, 'utf8'));
		decipher.setAuthTag(tag);
		const text = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
		return JSON.parse(text) as T;
	} catch {
		throw new OutboxDecryptError('tampered');
	}
}
