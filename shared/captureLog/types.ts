/** The shapes of the capture log's entries: what redact.ts builds, bounds.ts bounds and sections.ts trims. */

/**
 * What the capture log keeps of a lead: what rules need, no raw email, phone or name.
 * Rules read it with the same field paths as a full record (contact.email_domain stands in for
 * contact.email in "email domain in" / "is work email"; contact.has_phone for "exists" on
 * contact.phone). `_redacted: true` tells the rule engine that PII fields are absent on purpose.
 */
export interface RedactedRecord {
	_redacted: true;
	state?: string;
	occurred_at?: string | number;
	/** The lead's stage (docs/stages.md): a token; its time as a date or timestamp. */
	stage?: string;
	stage_at?: string | number;
	lead_created_at?: string | number;
	previous_stage?: string;
	source?: { kind?: string; form_id?: string; page_url?: string; referrer_host?: string };
	contact?: {
		/** One domain, or the distinct domains of a list of addresses. */
		email_domain?: string | string[];
		has_email?: boolean;
		has_phone?: boolean;
		phone_country?: string;
		city?: string;
		region?: string;
		country?: string;
	};
	client?: { country?: string; region?: string };
	/** Which click ids were present (true), never their values. */
	click?: Record<string, true>;
	value?: { amount?: number | string; currency?: string };
	consent?: Record<string, unknown>;
	attributes?: Record<string, string | number | boolean>;
	/** The attribute keys declared in the trigger's Capture Log Attributes (when any). */
	_declared?: string[];
	/**
	 * The fields whose live value this entry does not hold exactly, each with the live shape
	 * `[visits, ...value lengths]` (shared/rules/redacted.ts; written by reduced.ts).
	 */
	_reduced?: Record<string, number[]>;
}

/** How much of the lead's location the log keeps (the trigger's Location in Capture Log). */
export type LogLocation = 'none' | 'country' | 'region' | 'city';
/** The default: the country only (docs/capture.md, "Location in Capture Log"). */
export const DEFAULT_LOG_LOCATION: LogLocation = 'country';

/** Options of redactForLog. */
export interface RedactOptions {
	defaultCountry?: string;
	/** Attribute keys the user declared (the trigger's Capture Log Attributes); others are not kept. */
	attributes?: readonly string[];
	/** Location fields kept (default DEFAULT_LOG_LOCATION). */
	location?: LogLocation;
}

/** What bounding cut from one entry; absent when nothing was cut. */
export interface EntryCut {
	/** Values shortened to their field's length. */
	clipped: number;
	/** Sections (or single fields) that lost keys or were dropped: `attributes`, `consent`, `source.page_url`… */
	dropped: string[];
}

export interface BoundedEntry {
	record: RedactedRecord & { _truncated?: EntryCut };
	json: string;
	bytes: number;
}
