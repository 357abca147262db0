import type { LeadRecord, LeadState } from '../types';

/** Where a capture comes from: a generic webhook, a form-tool preset, or our browser script. */
export type CaptureSource =
	| 'generic'
	| 'typeform'
	| 'tally'
	| 'calendly'
	| 'calcom'
	| 'metaLeadAds'
	| 'hubspot'
	| 'script';

export const CAPTURE_SOURCES: readonly CaptureSource[] = [
	'generic',
	'typeform',
	'tally',
	'calendly',
	'calcom',
	'metaLeadAds',
	'hubspot',
	'script',
];

/** One webhook request as the trigger received it; nothing parsed yet. */
export interface CaptureRequest {
	method: string;
	/** Lower-case header names, as Node's IncomingMessage has them. */
	headers: Record<string, string | string[] | undefined>;
	/** The body exactly as received: signatures are computed over these bytes. */
	rawBody: Buffer;
	query: Record<string, unknown>;
	/** The TCP peer (req.socket.remoteAddress). */
	remoteAddress?: string;
}

/**
 * Explicit field mapping: canonical lead record path → dotted path in the parsed body, e.g.
 * `'contact.email': 'data.attributes.email'`. Numeric segments index arrays
 * (`form_response.answers.0.email`).
 */
export interface FieldMapping {
	[canonicalPath: string]: string;
}

export interface SignatureConfig {
	kind: 'none' | 'preset' | 'hmac';
	secret?: string;
	/** hmac: the header carrying the signature (any case). */
	header?: string;
	/** hmac: default sha256. */
	algorithm?: 'sha256' | 'sha1' | 'sha512';
	/** hmac: default hex. */
	encoding?: 'hex' | 'base64';
	/** hmac: text before the digest, e.g. `sha256=`. */
	prefix?: string;
	/** Timestamped presets (Calendly, the only one): the accepted clock distance; default 180 s. */
	toleranceSeconds?: number;
}

export interface CaptureConfig {
	source: CaptureSource;
	signature: SignatureConfig;
	/**
	 * How the state is chosen: from the preset (typeform/tally → lead; calendly/calcom → schedule;
	 * script → partial|lead; generic → lead), from a field of the body, or fixed.
	 */
	state: { from: 'preset' | 'field' | 'fixed'; field?: string; value?: LeadState };
	/** Explicit paths win over detection (and over what a preset found). */
	mapping?: FieldMapping;
	/** Dotted path of the record id in the body; default: detection (see recordId.ts). */
	recordIdField?: string;
	/** When the source has no id: see deriveRecordId in recordId.ts for the exact formula. */
	deriveRecordId?: boolean;
	/** Used for derivation and as source.form_id when the body has none. */
	formId?: string;
	/** Honour X-Forwarded-For and X-Real-IP only when true (see readClientAddress). */
	trustProxy?: boolean;
	/** With trustProxy: how many proxies append to X-Forwarded-For before n8n; default 1. */
	trustedProxies?: number;
	/** Default 256 KiB. */
	maxBodyBytes?: number;
	/** For judging phone validity when deciding "has identity". */
	defaultCountry?: string;
}

export type CaptureOutcome =
	| {
			kind: 'accepted';
			record: LeadRecord;
			warnings: string[];
			/**
			 * Every record of a delivery that carries several leads (Meta batches leadgen changes),
			 * `record` being the first; absent for one-lead deliveries.
			 */
			records?: LeadRecord[];
			/**
			 * The elements of such a delivery refused on their own (by their position in the
			 * request), the others still captured; absent when none was.
			 */
			refused?: Array<{ index: number; status: 400 | 401 | 413 | 415 | 422; reason: string }>;
	  }
	/** Answered 200 and no execution, e.g. a Calendly cancellation. */
	| { kind: 'ignored'; status: 200; reason: string }
	/** One line, no secrets, no raw PII. */
	| { kind: 'rejected'; status: 400 | 401 | 413 | 415 | 422; reason: string };

export type SignatureResult = { ok: true } | { ok: false; reason: string };
