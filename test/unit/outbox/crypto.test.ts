import { open, OutboxDecryptError, outboxKey, seal } from '../../../shared/outbox';

const key = outboxKey('a-long-enough-outbox-secret-1');
const event = { event_id: 'e1', payload: { user_data: { em: ['ab12'] } } };

describe('outbox encryption (AES-256-GCM)', () => {
	it('opens what it sealed, and the sealed text shows nothing of the event', () => {
		const sealed = seal(key, event, 'meta|px|e1');
		expect(open(key, sealed, 'meta|px|e1')).toEqual(event);
		expect(sealed).not.toContain('ab12');
		expect(sealed).not.toContain('user_data');
		// A fresh IV each time: the same event never seals the same way twice.
		expect(seal(key, event, 'meta|px|e1')).not.toBe(sealed);
	});

	it('a tampered entry is a clear error, not garbage', () => {
		const sealed = seal(key, event, 'meta|px|e1');
		const parts = sealed.split('.');
		const body = Buffer.from(parts[4], 'base64url');
		body[0] ^= 1;
		parts[4] = body.toString('base64url');
		expect(() => open(key, parts.join('.'), 'meta|px|e1')).toThrow(OutboxDecryptError);
		expect(() => open(key, parts.join('.'), 'meta|px|e1')).toThrow(/integrity check/);
	});

	it('an entry moved to another event id or queue does not open', () => {
		const sealed = seal(key, event, 'meta|px|e1');
		expect(() => open(key, sealed, 'meta|px|e2')).toThrow(/integrity check/);
	});

	it('a wrong or rotated key says so', () => {
		const sealed = seal(key, event, 'meta|px|e1');
		const rotated = outboxKey('another-long-outbox-secret-2');
		expect(() => open(rotated, sealed, 'meta|px|e1')).toThrow(/another key/);
		expect(
			(() => {
				try {
					open(rotated, sealed, 'meta|px|e1');
				} catch (error) {
					return (error as OutboxDecryptError).reason;
				}
				return 'opened';
			})(),
		).toBe('wrong_key');
	});

	it('refuses a short secret, without echoing it', () => {
		expect(() => outboxKey('short')).toThrow(/at least 16 characters/);
		expect(() => outboxKey('short')).not.toThrow(/short'/);
	});

	it('the key id is not the key', () => {
		expect(key.id).toHaveLength(12);
		expect(key.key.toString('hex')).not.toContain(key.id);
	});
});
