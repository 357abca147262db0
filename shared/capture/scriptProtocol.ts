/**
 * The wire format between the browser capture script (served by the Lead Capture Trigger on a
 * GET of its path) and the trigger (POST on the same path). Version 1.
 *
 * The script sends `text/plain;charset=UTF-8` bodies (a CORS "simple request": no preflight)
 * with navigator.sendBeacon, or fetch(..., { keepalive: true, mode: 'no-cors' }) when
 * sendBeacon is unavailable. The body is this JSON object.
 */
export const SCRIPT_PROTOCOL_VERSION = 1;

export type ScriptCaptureType = 'partial' | 'submit';

export interface ScriptCapturePayload {
	/** Protocol version: 1. */
	v: 1;
	type: ScriptCaptureType;
	/**
	 * One id per form fill, created in the browser when the visitor first types into the form
	 * and kept (sessionStorage, per form) until a submit completes, so the partial and the
	 * completed capture of one fill share it. The record id of the lead.
	 */
	capture_id: string;
	/** The form's id, else its name, else its action path, else `form-<index>`. */
	form_id: string;
	/** location.href of the page (carries utm_* and click ids of the landing, when still there). */
	page_url: string;
	referrer?: string;
	/**
	 * Field values by normalized field name. Well-known names: email, phone, first_name,
	 * last_name, name (full name), company, city, region, postal_code, country. Other named
	 * inputs are included on submit only (not on partials), never password, file, hidden
	 * credit-card-like or inputs marked data-lead-capi="ignore".
	 */
	fields: Record<string, string>;
	/** Click ids and cookies the script found (URL first, then cookies / storage). */
	click: {
		fbclid?: string;
		/** Epoch ms when this fbclid was first seen by the script (stored in localStorage). */
		fbclid_at?: number;
		fbc?: string;
		fbp?: string;
		ttclid?: string;
		ttp?: string;
		gclid?: string;
		gbraid?: string;
		wbraid?: string;
		msclkid?: string;
		epik?: string;
	};
	/** utm_* parameters of the landing (first-touch, kept in sessionStorage) or of this page. */
	utm?: Record<string, string>;
	/** Epoch ms on the visitor's clock when the capture was made. */
	ts: number;
}
