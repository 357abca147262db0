import type { IdentityField } from './fields';
import type { IdentityProfile } from './profiles';
import type { PlatformIdentity } from './render-identity';

/*
 * A match-quality estimate per platform from the keys present, in the spirit of Meta's Event
 * Match Quality (0–10). It is our documented estimate — platforms do not publish their
 * formulas — meant to compare leads and spot a drop, not to predict a platform's own score.
 * The weights are each platform's own declaration (its profile's `matchWeights`).
 */

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

interface Weights {
	/** Weights in hundredths: a score is then an exact integer sum, the same in any order. */
	hundredths: Map<IdentityField, number>;
	/** Heaviest first, for "how to improve". */
	list: Array<[IdentityField, number]>;
	alternatives: ReadonlySet<IdentityField>;
}

/** Each profile's weights, worked out once per profile (this runs per event). */
const WEIGHTS = new WeakMap<IdentityProfile, Weights>();

function weightsOf(profile: IdentityProfile): Weights {
	let weights = WEIGHTS.get(profile);
	if (weights === undefined) {
		const entries = Object.entries(profile.matchWeights) as Array<[IdentityField, number]>;
		weights = {
			hundredths: new Map(entries.map(([field, weight]) => [field, Math.round(weight * 100)])),
			list: [...entries].sort((a, b) => b[1] - a[1]),
			alternatives: new Set(profile.alternativeClickIds ?? []),
		};
		WEIGHTS.set(profile, weights);
	}
	return weights;
}

/**
 * The score alone (0–10, one decimal), without the "how to improve" list: senders report it
 * per event, so it reads only the keys the lead has. Of click ids that stand in for one another,
 * only the heaviest present counts.
 */
export function matchQualityScore(profile: IdentityProfile, user: PlatformIdentity): number {
	const { hundredths: weights, alternatives } = weightsOf(profile);
	let hundredths = 0;
	let heaviestAlternative = 0;
	for (let i = 0; i < user.matchKeys.length; i++) {
		const field = user.matchKeys[i];
		const weight = weights.get(field) ?? 0;
		if (alternatives.has(field)) heaviestAlternative = Math.max(heaviestAlternative, weight);
		else hundredths += weight;
	}
	return Math.min(10, Math.round((hundredths + heaviestAlternative) / 10) / 10);
}

export function estimateMatchQuality(profile: IdentityProfile, user: PlatformIdentity): MatchQuality {
	const score = matchQualityScore(profile, user);
	const { list, alternatives } = weightsOf(profile);
	// With one of the alternative click ids present, the others are not "missing".
	const hasAlternative = [...alternatives].some((f) => user.values[f]?.length);
	const missing = list
		.filter(([field]) => !user.values[field]?.length)
		.filter(([field]) => !(hasAlternative && alternatives.has(field)))
		.map(([field]) => field);
	return { score, rating: rating(score), missing: missing.slice(0, 3) };
}
