import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { testRedisConnection } from '../../shared';
import { redisConfigFromCredentials } from './redisClients';

/** Connects to the dedup Redis and PINGs it, with a timeout and a friendly message. */
export async function leadCapiRedisConnectionTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	let config;
	try {
		config = redisConfigFromCredentials(credential.data ?? {});
	} catch (error) {
		return { status: 'Error', message: error instanceof Error ? error.message : String(error) };
	}
	const result = await testRedisConnection(config, 5_000);
	if (result.ok) return { status: 'OK', message: 'Connection successful: Redis answered PING' };
	return { status: 'Error', message: result.message };
}

/**
 * A webhook secret has no remote API to test against: the deliveries themselves prove it. This
 * checks what can be checked before the first delivery: that a secret is there, without the
 * stray spaces a copy-paste brings (the sender signs with the exact secret).
 */
export async function leadCaptureSecretTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const secret = String(credential.data?.secret ?? '');
	if (secret === '') return { status: 'Error', message: 'The signing secret is empty' };
	if (secret.trim() !== secret) {
		return {
			status: 'Error',
			message: 'The signing secret starts or ends with spaces; senders sign with the exact secret',
		};
	}
	const advice = secret.length < 16 ? ' (short: 32 or more random characters are safer)' : '';
	return {
		status: 'OK',
		message: `Signing secret set: ${secret.length} characters${advice}. Deliveries are verified with it.`,
	};
}
