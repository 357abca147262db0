import { createHash } from 'node:crypto';
import { CAPTURE_SCRIPT } from './captureScript';

/** Content type to serve the capture script with. */
export const CAPTURE_SCRIPT_CONTENT_TYPE = 'application/javascript; charset=utf-8';

/** The browser capture script, exactly as it is served (see ./captureScript.ts). */
export function captureScriptSource(): string {
	return CAPTURE_SCRIPT;
}

let etag: string | undefined;

/** A strong ETag for the script (quoted), for `ETag` / `If-None-Match` on the GET. */
export function captureScriptEtag(): string {
	etag ??= `"${createHash('sha256').update(CAPTURE_SCRIPT).digest('base64url').slice(0, 27)}"`;
	return etag;
}
