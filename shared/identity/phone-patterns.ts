import * as path from 'node:path';

/**
 * libphonenumber-js checks a number against its metadata's patterns with
 * `new RegExp('^(?:' + pattern + ')$').test(text)` (build/helpers/matchesEntirely.js), compiling
 * an expression at every check: parsing and validating one number makes a dozen of them, and
 * that is about 60 % of the time a phone number takes. The patterns are a few hundred strings
 * of the metadata, repeated for every number, so this keeps their compiled expressions in a
 * bounded map instead — the same patterns and the same answers (no `g`/`y` flag, so a reused
 * expression carries no state between tests).
 *
 * It replaces the helper's export on the library's own CommonJS module, which every caller inside
 * the library reads at call time (`(0, _matchesEntirely["default"])(…)`). When the installed
 * version is laid out differently, nothing is changed and numbers are parsed as before, only
 * slower. `phonePatternCache()` tells which is the case.
 */

/** Distinct patterns kept at most (the full metadata has a few thousand; a run sees a few). */
const MAX_PATTERNS = 4096;

interface MatchesEntirelyModule {
	default: (text: string, pattern: string) => boolean;
}

let installed = false;

function installPatternCache(): boolean {
	let helper: MatchesEntirelyModule;
	try {
		// The helper is not an exported path of the package: resolve it next to the entry point
		// phone.ts imports, so it is the very module the library's parser uses.
		const entry = require.resolve('libphonenumber-js/max');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		helper = require(path.join(path.dirname(entry), '..', 'build', 'helpers', 'matchesEntirely.js'));
	} catch {
		return false;
	}
	const original = helper?.default;
	if (typeof original !== 'function' || original.length !== 2) return false;
	// Only replace a helper that answers like the one this was written against.
	if (original('212', '\\d{3}') !== true || original('2125', '\\d{3}') !== false) return false;
	const compiled = new Map<string, RegExp>();
	helper.default = function matchesEntirely(text: string, pattern: string): boolean {
		let expression = compiled.get(pattern);
		if (expression === undefined) {
			if (compiled.size >= MAX_PATTERNS) compiled.clear();
			expression = new RegExp('^(?:' + pattern + ')$');
			compiled.set(pattern, expression);
		}
		return expression.test(text || '');
	};
	return true;
}

installed = installPatternCache();

/** Whether phone patterns are checked through the compiled-pattern cache (see above). */
export function phonePatternCache(): boolean {
	return installed;
}
