/**
 * Every sender declares the same dedup-store and outbox credentials, tested the same way, after
 * its platform's own. The declarations stay literal in each node (n8n's community-node lint
 * reads node descriptions statically: a spread in `credentials` crashes its rules), so this
 * holds them to the one reference, SENDER_STORE_CREDENTIALS.
 */
import { SENDER_CREDENTIAL_TESTS } from '../../../nodes/common/credentialTests';
import { SENDER_STORE_CREDENTIALS } from '../../../nodes/common/descriptions';
import { NODE_TYPES } from './editorView';

const SENDERS = ['metaConversions', 'pinterestConversions', 'tiktokEvents', 'microsoftConversions', 'googleAdsConversions'];

describe('the senders credential block', () => {
	test.each(SENDERS)('%s: its platform credential, then the dedup Redis and the Outbox Key, each with its test', (name) => {
		const node = NODE_TYPES[name];
		const credentials = node.description.credentials ?? [];
		expect(credentials.slice(-SENDER_STORE_CREDENTIALS.length)).toEqual(SENDER_STORE_CREDENTIALS);
		const platform = credentials.slice(0, -SENDER_STORE_CREDENTIALS.length);
		expect(platform.length).toBeGreaterThan(0);
		const tests = (node.methods?.credentialTest ?? {}) as Record<string, unknown>;
		for (const [test, fn] of Object.entries(SENDER_CREDENTIAL_TESTS)) expect([test, tests[test]]).toEqual([test, fn]);
		// Each platform credential is tested by a function the node has (Google's OAuth2 ones by their declarative test).
		for (const credential of platform) {
			if (credential.testedBy) expect([credential.name, typeof tests[credential.testedBy as string]]).toEqual([credential.name, 'function']);
			else expect(credential.name).toMatch(/OAuth2Api$/);
		}
	});
});
