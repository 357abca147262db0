/**
 * How much one capture-log entry may hold (the capture endpoint is public: every byte a stranger
 * can make us store is bounded). Read by the redaction (redact.ts) and the bounding (bounds.ts).
 */

/**
 * The byte cap of one capture-log entry (the JSON of its redacted record). The capture endpoint
 * is public, so whatever a stranger posts must cost Redis a known, small amount: every value is
 * clipped to its field's length, lists of keys are cut to a count, and an entry still over the
 * cap loses attributes (last first), then consent values, then whole optional sections, until
 * it fits. The lead itself is never dropped: its entry keeps `_redacted`, its state and
 * `_truncated`, which says how many values were clipped and which sections lost something.
 */
export const DEFAULT_MAX_ENTRY_BYTES = 4096;
/** The smallest entry cap accepted: room for a state and the `_truncated` note. */
export const MIN_MAX_ENTRY_BYTES = 1024;

/** Characters kept of a text value (state, form id, city, region, attribute values…). */
export const MAX_TEXT_CHARS = 200;
/** Characters kept of the page URL (origin + path + utm_* parameters). */
export const MAX_URL_CHARS = 512;
/** Longest attribute or consent key kept; longer keys are dropped with their value. */
export const MAX_KEY_CHARS = 64;
/** Attributes kept per entry, in the order the capture had them. */
export const MAX_ATTRIBUTES = 50;
/** Consent keys kept per entry. */
export const MAX_CONSENT_KEYS = 20;
