import type { Platform } from '../types';
import type { IdentityField } from './fields';
import type { PlatformIdentity } from './render-identity';

/**
 * A match-quality estimate per platform from the keys present, in the spirit of Meta's Event
 * Match Quality (0–10). It is our documented estimate — platforms do not publish their
 * formulas — meant to compare leads and spot a drop, not to predict a platform's own score.
 * Weights reflect each platform's documented priorities: click ids and email first, then
 * phone and external ids, then network and address fields.
 */
export const MATCH_QUALITY_WEIGHTS: Readonly<Record<Platform, Partial<Record<IdentityField, number>>>> = {
	meta: {
		email: 3,
		phone: 2,
		fbc: 1.5,
		external_id: 1,
		fbp: 0.75,
		ip: 0.75,
		user_agent: 0.25,
		first_name: 0.25,
		last_name: 0.25,
		date_of_birth: 0.15,
		city: 0.15,
		postal_code: 0.15,
		region: 0.1,
		country: 0.1,
		gender: 0.05,
	},
	pinterest: {
		email: 4,
		phone: 2,
		epik: 1,
		external_id: 1,
		ip: 0.75,
		user_agent: 0.75,
		first_name: 0.25,
		last_name: 0.25,
		date_of_birth: 0.15,
		city: 0.15,
		postal_code: 0.15,
		region: 0.15,
		country: 0.15,
		gender: 0.05,
	},
	tiktok: {
		email: 3.5,
		phone: 2.5,
		ttclid: 2,
		ttp: 0.75,
		external_id: 0.75,
		ip: 0.25,
		user_agent: 0.25,
	},
	google: { gclid: 5, gbraid: 4, wbraid: 4, email: 3, phone: 2 },
	microsoft: { msclkid: 4, email: 3, phone: 2, ip: 0.5, user_agent: 0.5 },
};

export interface MatchQuality {
	/** 0–10, one decimal. */
	score: number;
	rating: 'poor' | 'fair' | 'good' | 'great';
	/** The heaviest keys this lead lacks, for "how to improve". */
	missing: IdentityField[];
}

function rating(score: number): MatchQuality['rating'] {
	if (score >= 8) return 'great';
	if (score >= 6) return 'good';
	if (score >= 3) return 'fair';
	return 'poor';
}

/** Each platform's weights as a list, heaviest first, computed once (this runs per event). */
const WEIGHT_LISTS = new Map(
	(Object.keys(MATCH_QUALITY_WEIGHTS) as Platform[]).map((platform) => [
		platform,
		(Object.entries(MATCH_QUALITY_WEIGHTS[platform]) as Array<[IdentityField, number]>).sort(
			(a, b) => b[1] - a[1],
		),
	]),
);

const GOOGLE_CLICK_IDS: readonly IdentityField[] = ['gclid', 'gbraid', 'wbraid'];

/**
 * Each platform's weights in hundredths: a score is then an exact integer sum, the same in any
 * order, rounded half up to one decimal.
 */
const WEIGHT_HUNDREDTHS = new Map(
	(Object.keys(MATCH_QUALITY_WEIGHTS) as Platform[]).map((platform) => [
		platform,
		new Map(
			(Object.entries(MATCH_QUALITY_WEIGHTS[platform]) as Array<[IdentityField, number]>).map(
				([field, weight]) => [field, Math.round(weight * 100)],
			),
		),
	]),
);

/**
 * The score alone (0–10, one decimal), without the "how to improve" list: senders report it
 * per event, so it reads only the keys the lead has.
 */
export function matchQualityScore(platform: Platform, user: PlatformIdentity): number {
	const weights = WEIGHT_HUNDREDTHS.get(platform)!;
	let hundredths = 0;
	let googleClicks = 0;
	let gclid = false;
	for (let i = 0; i < user.matchKeys.length; i++) {
		const field = user.matchKeys[i];
		hundredths += weights.get(field) ?? 0;
		if (platform === 'google' && GOOGLE_CLICK_IDS.includes(field)) {
			googleClicks++;
			if (field === 'gclid') gclid = true;
		}
	}
	// gbraid/wbraid stand in for gclid: one click id is what counts.
	if (googleClicks > 1) hundredths -= gclid ? 400 * (googleClicks - 1) : 400;
	return Math.min(10, Math.round(hundredths / 10) / 10);
}

export function estimateMatchQuality(platform: Platform, user: PlatformIdentity): MatchQuality {
	const score = matchQualityScore(platform, user);
	const missing = WEIGHT_LISTS.get(platform)!
		.filter(([field]) => !user.values[field]?.length)
		.map(([field]) => field);
	// With one Google click id present, the others are not "missing".
	const hasGoogleClick = platform === 'google' && GOOGLE_CLICK_IDS.some((f) => user.values[f]?.length);
	return {
		score,
		rating: rating(score),
		missing: (hasGoogleClick ? missing.filter((f) => !GOOGLE_CLICK_IDS.includes(f)) : missing).slice(0, 3),
	};
}
