import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { meta, outbox, testRedisConnection, tiktok, Transport } from '../../shared';
import { credentialTestExecutor } from './n8nExecutor';
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

/**
 * Platform calls of a credential test, through n8n's request helper (its proxy settings): one
 * retry for a blip, never a minute of backoff.
 */
const testTransport = (ctx: ICredentialTestFunctions) =>
	new Transport({
		executor: credentialTestExecutor(ctx),
		timeoutMs: 10_000,
		retry: { maxRetries: 1, maxTotalMs: 15_000 },
	});

const text = (value: unknown): string | undefined => (value ? String(value) : undefined);

/**
 * Meta: reads the dataset with the token and says Meta's own reason when it refuses (e.g.
 * "Invalid OAuth access token - Cannot parse access token [code 190 …]"). Programmatic, not a
 * declarative `test` on the credential: for a non-2xx answer n8n shows only its generic status
 * message ("Bad request - please check your parameters"), never Meta's.
 */
export async function leadCapiMetaApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const result = await meta.testMetaCredentials(
		{
			pixelId: String(data.pixelId ?? ''),
			accessToken: String(data.accessToken ?? ''),
			appSecret: text(data.appSecret),
			apiVersion: text(data.apiVersion),
			baseUrl: text(data.baseUrl),
		},
		testTransport(this),
	);
	return { status: result.ok ? 'OK' : 'Error', message: result.message };
}

/**
 * TikTok: posts to event/track with the pixel code and no events (records nothing) and says
 * TikTok's own reason when it refuses the token or the pixel (e.g. "Access token is incorrect or
 * has been revoked. … [code 40105, request_id …]").
 */
export async function leadCapiTiktokApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const result = await tiktok.testTiktokCredentials(
		{
			pixelCode: String(data.pixelCode ?? ''),
			accessToken: String(data.accessToken ?? ''),
			baseUrl: text(data.baseUrl),
		},
		testTransport(this),
	);
	return { status: result.ok ? 'OK' : 'Error', message: result.message };
}

/**
 * The outbox key has no remote side: this checks it can be used (16 characters or more) and
 * shows its key id — the id stored with each entry, so an entry sealed with another key is
 * recognised — never the key.
 */
export async function leadCapiOutboxKeyTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		const key = outbox.outboxKey(String(credential.data?.secret ?? ''));
		return { status: 'OK', message: `Outbox key usable (key id ${key.id})` };
	} catch (error) {
		return { status: 'Error', message: error instanceof Error ? error.message : String(error) };
	}
}
