// @ts-check
/**
 * A hostile capture-script delivery of (almost) the maximum body size the Lead Capture Trigger
 * accepts by default (256 KiB): every field the capture log keeps is as long as it can be, and
 * distinct per capture (form id, page path, city, region, consent, 700 attributes with long
 * keys and values, nested objects), so nothing is shared between entries. Used by the tests
 * (test/integration/captureLogBudget.test.ts, test/nodes, test/faults) and by the bench
 * (bench/captureFlood.js).
 */

const MAX_BODY_BYTES = 256 * 1024;
/** The hostile capture's 700 attribute keys (to declare as the trigger's Capture Log Attributes). */
const HOSTILE_ATTRIBUTE_KEYS = Array.from({ length: 700 }, (_, k) => `attribute_${k}_${'k'.repeat(40)}`);

/**
 * @param {number} i  makes the capture distinct (form id, page path, values)
 * @param {{ maxBytes?: number }} [options]
 * @returns {string} the JSON body
 */
function hostileScriptBody(i, options = {}) {
	const maxBytes = options.maxBytes ?? MAX_BODY_BYTES - 1024;
	const tag = String(i).padStart(8, '0');
	// Letters, not digits, in values: a run of digits reads as a phone number and is not logged.
	const word = tag.replace(/\d/g, (d) => 'abcdefghij'[Number(d)]);
	/** @type {Record<string, unknown>} */
	const fields = {
		email: `lead.${tag}@example.com`,
		city: `City${word}${'c'.repeat(20_000)}`,
		region: `Region${word}${'r'.repeat(20_000)}`,
		ad_user_data: `granted${'g'.repeat(5_000)}${word}`,
		ad_personalization: { nested: { deeper: { deepest: 'x'.repeat(2_000) } } },
	};
	// Keys the same in every capture (a user can declare them: the log keeps declared attributes
	// only), values distinct and as long as a kept token can be (64 characters).
	for (const key of HOSTILE_ATTRIBUTE_KEYS) fields[key] = `${word}${'v'.repeat(56)}`;
	const body = {
		v: 1,
		type: 'submit',
		capture_id: `c_${tag}_hostile`,
		form_id: `form-${tag}-${'f'.repeat(20_000)}`,
		page_url: `https://www.example.com/${tag}/${'p'.repeat(30_000)}?utm_source=${'s'.repeat(10_000)}${word}&utm_campaign=${'c'.repeat(5_000)}`,
		referrer: `https://${'h'.repeat(60)}.example/${'q'.repeat(5_000)}`,
		fields,
		utm: { utm_medium: `${'m'.repeat(10_000)}${word}`, utm_content: `${'n'.repeat(10_000)}${word}` },
		ts: Date.now(),
	};
	let json = JSON.stringify(body);
	// Fill up to the limit with one more long attribute, or trim the attributes to fit it.
	const room = maxBytes - Buffer.byteLength(json);
	if (room > 64) {
		fields[`filler_${tag}`] = `${word}${'z'.repeat(room - 80)}`;
		json = JSON.stringify(body);
	}
	while (Buffer.byteLength(json) > maxBytes) {
		const keys = Object.keys(fields).filter((key) => key.startsWith('attribute_'));
		if (keys.length === 0) break;
		for (const key of keys.slice(-50)) delete fields[key];
		json = JSON.stringify(body);
	}
	return json;
}

module.exports = { hostileScriptBody, HOSTILE_ATTRIBUTE_KEYS, MAX_BODY_BYTES };
