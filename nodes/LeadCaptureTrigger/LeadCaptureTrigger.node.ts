import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
	CaptureLog,
	leadgenVerification,
	captureLogKey,
	captureScriptSource,
	namespacedPrefix,
	CAPTURE_SCRIPT_CONTENT_TYPE,
	DEFAULT_LOG_LOCATION,
	processCapture,
	readClientKey,
	type CaptureConfig,
	type CaptureSource,
	type LeadRecord,
	type LeadState,
	type LogLocation,
	type RedisClient,
	warnIfMarkersEvictable,
} from '../../shared';
import { leadCapiRedisConnectionTest, leadCaptureSecretTest } from '../common/credentialTests';
import { getRedisClient, redisConfigFromCredentials } from '../common/redisClients';
import { captureTriggerProperties, captureTriggerSubtitle } from './description';
import { workflowIdOf } from '../common/workflowScope';
import { readRawBody } from './readBody';
import { recordRefusal, type Refusal } from './refusals';

interface Settings extends IDataObject {
	allowedOrigins?: string;
	clientKey?: string;
	captureLogAttributes?: string;
	captureLogLocation?: LogLocation;
	captureLogMaxEntries?: number;
	captureLogMaxMb?: number;
	captureLogName?: string;
	defaultCountry?: string;
	deriveRecordId?: boolean;
	formId?: string;
	maxBodyKb?: number;
	toleranceSeconds?: number;
	trustProxy?: boolean;
	trustedProxies?: number;
}

type Req = IncomingMessage & { rawBody?: Buffer; query?: Record<string, unknown> };
type Res = ServerResponse & { status?: unknown };

function answer(res: Res, status: number, body: unknown, headers: Record<string, string> = {}): void {
	res.statusCode = status;
	for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
	if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
	res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function header(req: Req, name: string): string | undefined {
	const value = req.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/**
 * The Client Key setting, validated: an invalid key (a space, a colon…) is a configuration error
 * that stops activation and every delivery with a clear message, never a warning that quietly
 * leaves the capture log unwritten.
 */
function clientKeyOf(ctx: IHookFunctions | IWebhookFunctions): string | undefined {
	const settings = ctx.getNodeParameter('settings', {}) as Settings;
	try {
		return readClientKey(settings.clientKey);
	} catch (error) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Options → Client Key: ${error instanceof Error ? error.message : String(error)}`,
			{ description: 'Use a short slug per client, e.g. acme or acme-eu, the same in its Lead Rule Filter and senders.' },
		);
	}
}

/** Applies the allow-list; returns why the origin is refused, or undefined when it may send. */
function checkOrigin(req: Req, res: Res, allowedOrigins: string): string | undefined {
	const origin = header(req, 'origin');
	const allowed = allowedOrigins
		.split(',')
		.map((o) => o.trim().replace(/\/+$/, ''))
		.filter(Boolean);
	if (!origin) return undefined;
	if (allowed.length === 0 || allowed.includes(origin)) {
		res.setHeader('Access-Control-Allow-Origin', origin);
		res.setHeader('Vary', 'Origin');
		return undefined;
	}
	res.removeHeader('Access-Control-Allow-Origin');
	return `origin ${origin.slice(0, 200)} is not allowed to send captures here`;
}

/** Answers a refused delivery, logs it (rate-limited) and counts it; starts nothing. */
async function refuse(
	ctx: IWebhookFunctions,
	res: Res,
	refusal: Refusal,
): Promise<IWebhookResponseData> {
	answer(res, refusal.status, { ok: false, error: refusal.reason });
	await recordRefusal(ctx, refusal);
	return { noWebhookResponse: true };
}

/** The capture core's configuration from the node's parameters and credential. */
async function captureConfig(
	ctx: IWebhookFunctions,
	source: CaptureSource,
	settings: Settings,
	maxBodyBytes: number,
): Promise<CaptureConfig> {
	const signed = source !== 'script' && ctx.getNodeParameter('authentication') === 'signature';
	const secret = signed
		? String((await ctx.getCredentials('leadCapiWebhookApi')).secret ?? '')
		: undefined;
	const stateFrom = ctx.getNodeParameter('stateFrom') as 'preset' | 'field' | 'fixed';
	const mapping: Record<string, string> = {};
	if (source === 'generic') {
		const fields = ctx.getNodeParameter('fieldMapping.field', []) as Array<{
			path: string;
			bodyPath: string;
		}>;
		for (const { path, bodyPath } of fields) if (bodyPath) mapping[path] = bodyPath;
	}
	return {
		source,
		signature: !signed
			? { kind: 'none' }
			: source === 'generic'
				? {
						kind: 'hmac',
						secret,
						header: ctx.getNodeParameter('hmacHeader') as string,
						algorithm: ctx.getNodeParameter('hmacAlgorithm') as 'sha1' | 'sha256' | 'sha512',
						encoding: ctx.getNodeParameter('hmacEncoding') as 'hex' | 'base64',
						prefix: (ctx.getNodeParameter('hmacPrefix') as string) || undefined,
						toleranceSeconds: settings.toleranceSeconds,
					}
				: { kind: 'preset', secret, toleranceSeconds: settings.toleranceSeconds },
		state: {
			from: stateFrom,
			field: stateFrom === 'field' ? (ctx.getNodeParameter('stateField') as string) : undefined,
			value: stateFrom === 'fixed' ? (ctx.getNodeParameter('fixedState') as LeadState) : undefined,
		},
		mapping: source === 'generic' ? mapping : undefined,
		recordIdField:
			source === 'generic' ? (ctx.getNodeParameter('recordIdField') as string) || undefined : undefined,
		deriveRecordId: Boolean(settings.deriveRecordId),
		formId: settings.formId || undefined,
		trustProxy: Boolean(settings.trustProxy),
		trustedProxies: settings.trustedProxies,
		maxBodyBytes,
		defaultCountry: settings.defaultCountry || undefined,
	};
}

/**
 * Writes the redacted capture to the capture log (bounded per entry and per log: see
 * shared/captureLog). The log serves the rule preview: a Redis hiccup — even a full Redis —
 * must not lose the lead itself, so failures are logged (with what fills Redis on OOM) and the
 * execution starts anyway.
 */
async function appendToCaptureLog(
	ctx: IWebhookFunctions,
	record: LeadRecord,
	settings: Settings,
	clientKey: string | undefined,
): Promise<void> {
	let client: RedisClient | undefined;
	try {
		const credentials = await ctx.getCredentials('leadCapiRedisApi');
		client = getRedisClient(redisConfigFromCredentials(credentials)).client;
		const name = (settings.captureLogName || (ctx.getNodeParameter('path') as string)).trim();
		const appended = await new CaptureLog(client, {
			key: captureLogKey(
				namespacedPrefix(String(credentials.keyPrefix ?? ''), clientKey),
				name,
				workflowIdOf(ctx),
			),
			maxEntries: settings.captureLogMaxEntries,
			maxBytes: settings.captureLogMaxMb ? settings.captureLogMaxMb * 1024 * 1024 : undefined,
		}).append(record, {
			defaultCountry: settings.defaultCountry || undefined,
			attributes: (settings.captureLogAttributes ?? '')
				.split(',')
				.map((key) => key.trim())
				.filter((key) => key !== ''),
			location: settings.captureLogLocation ?? DEFAULT_LOG_LOCATION,
		});
		if (appended.truncated) {
			ctx.logger.debug(
				`Lead Capture Trigger: capture log entry cut to its byte cap (${appended.truncated.clipped} values clipped; dropped from: ${appended.truncated.dropped.join(', ') || 'nothing'})`,
			);
		}
	} catch (error) {
		ctx.logger.warn(
			`Lead Capture Trigger: capture log not written (${error instanceof Error ? error.message : String(error)})`,
		);
	}
	// The eviction check ran when the connection came up (before the append): its warning, if any.
	// Waited for only once Redis answered, so an outage adds no delay to the answer.
	if (client?.status === 'ready') {
		await warnIfMarkersEvictable(client, (message) => ctx.logger.warn(`Lead Capture Trigger: ${message}`), {
			waitMs: 200,
		});
	}
}

/**
 * Lead Capture Trigger: one canonical lead record per accepted capture, from the project's
 * capture script, form tools (Typeform, Tally), schedulers (Calendly, Cal.com) or any webhook.
 * Every check (size, signature, parsing, record id, identity) happens before an execution
 * starts: a refused delivery gets its 4xx and starts nothing.
 */
export class LeadCaptureTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lead Capture Trigger',
		name: 'leadCaptureTrigger',
		icon: { light: 'file:../../icons/lead-capture.svg', dark: 'file:../../icons/lead-capture.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: captureTriggerSubtitle,
		description:
			'Starts the workflow with a canonical lead record for each capture from your site, a form tool, a scheduler or a CRM webhook',
		defaults: { name: 'Lead Capture Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'leadCapiWebhookApi',
				required: true,
				testedBy: 'leadCaptureSecretTest',
				displayOptions: { show: { authentication: ['signature'] }, hide: { source: ['script'] } },
			},
			{
				name: 'leadCapiRedisApi',
				required: true,
				testedBy: 'leadCapiRedisConnectionTest',
				displayOptions: { show: { captureLog: ['redis'] } },
			},
		],
		webhooks: [
			{
				name: 'setup',
				httpMethod: 'GET',
				responseMode: 'onReceived',
				path: '={{$parameter["path"]}}',
				isFullPath: true,
			},
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: '={{$parameter["path"]}}',
				isFullPath: true,
			},
		],
		properties: captureTriggerProperties,
	};

	methods = {
		credentialTest: { leadCapiRedisConnectionTest, leadCaptureSecretTest },
	};

	// Nothing to register remotely: the URL is pasted into the form tool (or the script tag).
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				// Activation (and "listen for test event") stops here on an invalid Client Key.
				clientKeyOf(this);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
		setup: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const req = this.getRequestObject() as unknown as Req;
		const res = this.getResponseObject() as unknown as Res;
		const source = this.getNodeParameter('source') as CaptureSource;
		const settings = this.getNodeParameter('settings', {}) as Settings;

		if (this.getWebhookName() === 'setup') {
			const verification =
				source === 'metaLeadAds'
					? leadgenVerification(req.query ?? {}, this.getNodeParameter('metaVerifyToken', '') as string)
					: null;
			if (verification) {
				answer(res, verification.status, verification.body, {
					'content-type': 'text/plain; charset=utf-8',
				});
			} else if (source !== 'script') {
				answer(res, 200, `Lead Capture Trigger (${source}): send POST deliveries to this URL.`, {
					'content-type': 'text/plain; charset=utf-8',
				});
			} else {
				answer(res, 200, captureScriptSource(), {
					'content-type': CAPTURE_SCRIPT_CONTENT_TYPE,
					'cache-control': 'public, max-age=300',
					'access-control-allow-origin': '*',
				});
			}
			return { noWebhookResponse: true };
		}

		const clientKey = clientKeyOf(this);
		const refused = (status: number, reason: string) =>
			refuse(this, res, { status, reason, source, clientKey });
		const originRefused = checkOrigin(req, res, settings.allowedOrigins ?? '');
		if (originRefused) return refused(403, originRefused);

		const limit = Math.max(1, Number(settings.maxBodyKb ?? 256)) * 1024;
		const body = await readRawBody(req, limit);
		if (!body.ok) return refused(413, `body too large (${body.size} bytes, limit ${limit})`);

		const config = await captureConfig(this, source, settings, limit);
		const outcome = processCapture(
			{
				method: req.method ?? 'POST',
				headers: req.headers,
				rawBody: body.body,
				query: req.query ?? {},
				remoteAddress: req.socket?.remoteAddress,
			},
			config,
		);
		if (outcome.kind === 'rejected') return refused(outcome.status, outcome.reason);
		if (outcome.kind === 'ignored') {
			answer(res, 200, { ok: true, ignored: outcome.reason });
			return { noWebhookResponse: true };
		}

		const { record } = outcome;
		// A Meta leadgen delivery or a HubSpot batch may carry several leads or stages: one item each.
		const records = outcome.records ?? [record];
		for (const warning of outcome.warnings) this.logger.warn(`Lead Capture Trigger: ${warning}`);
		// An element refused on its own is counted like a refused delivery; the others go on.
		const refusedElements = outcome.refused ?? [];
		for (const element of refusedElements) {
			await recordRefusal(this, { status: element.status, reason: element.reason, source, clientKey });
		}
		if (this.getNodeParameter('captureLog') === 'redis') {
			for (const each of records) await appendToCaptureLog(this, each, settings, clientKey);
		}
		answer(res, 200, {
			ok: true,
			record_id: record.record_id,
			state: record.state,
			leads: records.length,
			...(refusedElements.length > 0
				? { refused: refusedElements.map(({ index, reason }) => ({ index, reason })) }
				: {}),
		});
		return {
			workflowData: [records.map((each) => ({ json: each as IDataObject }))],
			noWebhookResponse: true,
		};
	}
}
