import { firstFieldValue } from './field-values';
import type { FieldOutcome } from './fields';
import { compactLowercase, lookupKey } from './text';

const US_STATES: Readonly<Record<string, string>> = {
	al: 'Alabama',
	ak: 'Alaska',
	az: 'Arizona',
	ar: 'Arkansas',
	ca: 'California',
	co: 'Colorado',
	ct: 'Connecticut',
	de: 'Delaware',
	fl: 'Florida',
	ga: 'Georgia',
	hi: 'Hawaii',
	id: 'Idaho',
	il: 'Illinois',
	in: 'Indiana',
	ia: 'Iowa',
	ks: 'Kansas',
	ky: 'Kentucky',
	la: 'Louisiana',
	me: 'Maine',
	md: 'Maryland',
	ma: 'Massachusetts',
	mi: 'Michigan',
	mn: 'Minnesota',
	ms: 'Mississippi',
	mo: 'Missouri',
	mt: 'Montana',
	ne: 'Nebraska',
	nv: 'Nevada',
	nh: 'New Hampshire',
	nj: 'New Jersey',
	nm: 'New Mexico',
	ny: 'New York',
	nc: 'North Carolina',
	nd: 'North Dakota',
	oh: 'Ohio',
	ok: 'Oklahoma',
	or: 'Oregon',
	pa: 'Pennsylvania',
	ri: 'Rhode Island',
	sc: 'South Carolina',
	sd: 'South Dakota',
	tn: 'Tennessee',
	tx: 'Texas',
	ut: 'Utah',
	vt: 'Vermont',
	va: 'Virginia',
	wa: 'Washington',
	wv: 'West Virginia',
	wi: 'Wisconsin',
	wy: 'Wyoming',
	dc: 'District of Columbia',
	pr: 'Puerto Rico',
	gu: 'Guam',
	vi: 'U.S. Virgin Islands',
	as: 'American Samoa',
	mp: 'Northern Mariana Islands',
	aa: 'Armed Forces Americas',
	ae: 'Armed Forces Europe',
	ap: 'Armed Forces Pacific',
};

const CA_PROVINCES: Readonly<Record<string, string>> = {
	ab: 'Alberta',
	bc: 'British Columbia',
	mb: 'Manitoba',
	nb: 'New Brunswick',
	nl: 'Newfoundland and Labrador',
	ns: 'Nova Scotia',
	nt: 'Northwest Territories',
	nu: 'Nunavut',
	on: 'Ontario',
	pe: 'Prince Edward Island',
	qc: 'Quebec',
	sk: 'Saskatchewan',
	yt: 'Yukon',
};

const US_ALIASES: Readonly<Record<string, string>> = {
	'Washington DC': 'dc',
	'Washington D.C.': 'dc',
	'Virgin Islands': 'vi',
};

const CA_ALIASES: Readonly<Record<string, string>> = {
	Newfoundland: 'nl',
	'Yukon Territory': 'yt',
	PEI: 'pe',
};

function indexRegions(
	names: Readonly<Record<string, string>>,
	aliases: Readonly<Record<string, string>>,
): ReadonlyMap<string, string> {
	const index = new Map<string, string>();
	for (const [code, name] of Object.entries(names)) {
		index.set(lookupKey(name), code);
		index.set(code, code);
	}
	for (const [alias, code] of Object.entries(aliases)) index.set(lookupKey(alias), code);
	return index;
}

const US_REGION_BY_KEY = indexRegions(US_STATES, US_ALIASES);
const CA_REGION_BY_KEY = indexRegions(CA_PROVINCES, CA_ALIASES);

export interface RegionContext {
	/** The contact's country (lowercase alpha-2), when known. */
	country?: string | null;
}

/**
 * State / region (st): US states and Canadian provinces, by name or code, become their
 * 2-letter code (ca, ny, on). Names are mapped only when the country is us, ca or unknown;
 * elsewhere a region is lowercased with whitespace and punctuation removed.
 */
export function normalizeRegionText(text: string, context: RegionContext = {}): FieldOutcome {
	const country = context.country?.toLowerCase();
	const key = lookupKey(text);
	if (country === 'us' || country === 'ca') {
		const code = (country === 'us' ? US_REGION_BY_KEY : CA_REGION_BY_KEY).get(key);
		if (code !== undefined) return { value: code };
		// Meta wants the 2-letter code for the US; anything else would never match.
		return {
			omitted:
				country === 'us' ? 'not a US state or territory' : 'not a Canadian province or territory',
		};
	}
	if (!country) {
		const code = US_REGION_BY_KEY.get(key) ?? CA_REGION_BY_KEY.get(key);
		if (code !== undefined) return { value: code };
	}
	const region = compactLowercase(text);
	return region === ''
		? { omitted: 'no letters left after removing punctuation' }
		: { value: region };
}

export function normalizeRegion(raw: unknown, opts: RegionContext = {}): string | null {
	return firstFieldValue('region', raw, (text) => normalizeRegionText(text, opts));
}
