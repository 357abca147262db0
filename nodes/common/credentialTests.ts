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
	const result = await testRedisConnection(redisConfigFromCredentials(credential.data ?? {}), 5_000);
	if (result.ok) return { status: 'OK', message: 'Connection successful: Redis answered PING' };
	return { status: 'Error', message: result.message };
}
