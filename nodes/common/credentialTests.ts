import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { meta, microsoft, outbox, pinterest, testRedisConnection, tiktok, Transport } from '../../shared';
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
const required = (value: unknown): string => String(value ?? '');

/**
 * A platform credential's test, the one way every platform's is made: the platform folder's own
 * check (it calls the platform and says the platform's own reason when it refuses, e.g. Meta's
 * "Invalid OAuth access token - Cannot parse access token [code 190 …]"), on the credential's
 * fields, through n8n's request helper. Programmatic rather than a declarative `test` on the
 * credential: for a non-2xx answer n8n shows only its generic status message ("Bad request -
 * please check your parameters"), never the platform's. (The Google OAuth2 credentials keep a
 * declarative test: only that way does n8n sign the request with the OAuth2 token and refresh
 * it; their rules carry Google's reasons.)
 */
function platformCredentialTest<Credentials>(
	read: (data: ICredentialDataDecryptedObject) => Credentials,
	check: (credentials: Credentials, transport: Transport) => Promise<{ ok: boolean; message: string }>,
) {
	return async function (
		this: ICredentialTestFunctions,
		credential: ICredentialsDecrypted,
	): Promise<INodeCredentialTestResult> {
		const result = await check(read(credential.data ?? {}), testTransport(this));
		return { status: result.ok ? 'OK' : 'Error', message: result.message };
	};
}

/** Meta: reads the dataset with the token (and appsecret_proof when an app secret is set). */
export const leadCapiMetaApiTest = platformCredentialTest(
	(data) => ({
		pixelId: required(data.pixelId),
		accessToken: required(data.accessToken),
		appSecret: text(data.appSecret),
		apiVersion: text(data.apiVersion),
		baseUrl: text(data.baseUrl),
	}),
	meta.testMetaCredentials,
);

/** TikTok: posts to event/track with the pixel code and no events (records nothing). */
export const leadCapiTiktokApiTest = platformCredentialTest(
	(data) => ({
		pixelCode: required(data.pixelCode),
		accessToken: required(data.accessToken),
		baseUrl: text(data.baseUrl),
	}),
	tiktok.testTiktokCredentials,
);

/**
 * Pinterest: one synthetic event sent with `?test=true` (validated by Pinterest, not recorded),
 * since a conversion token may not be allowed to read the ad account itself.
 */
export const leadCapiPinterestApiTest = platformCredentialTest(
	(data) => ({
		adAccountId: required(data.adAccountId),
		accessToken: required(data.accessToken),
		baseUrl: text(data.baseUrl),
	}),
	(credentials, transport) => pinterest.testPinterestCredentials(credentials, transport),
);

/** Microsoft: posts an empty batch (records nothing) and tells a refused token from one that got through. */
export const leadCapiMicrosoftApiTest = platformCredentialTest(
	(data) => ({
		uetTagId: required(data.uetTagId),
		apiToken: required(data.apiToken),
		baseUrl: text(data.baseUrl),
	}),
	microsoft.probeMicrosoftCredential,
);

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

/** The tests of the credentials every sender declares (senderCredentials in descriptions.ts). */
export const SENDER_CREDENTIAL_TESTS = { leadCapiRedisConnectionTest, leadCapiOutboxKeyTest };
