import { normalizeCountry, normalizeCountryText } from '../../../shared/identity';

describe('country: ISO 3166-1 alpha-2, lowercase, from codes, names and aliases', () => {
	test.each<[string, string]>([
		['United States', 'us'],
		['US', 'us'],
		['us', 'us'],
		['USA', 'us'],
		['U.S.', 'us'],
		['U.S.A.', 'us'],
		['United States of America', 'us'],
		['United Kingdom', 'gb'],
		['UK', 'gb'],
		['U.K.', 'gb'],
		['GB', 'gb'],
		['Great Britain', 'gb'],
		['England', 'gb'],
		['Germany', 'de'],
		['Deutschland', 'de'],
		['DEU', 'de'],
		['the Netherlands', 'nl'],
		['Holland', 'nl'],
		['Côte d’Ivoire', 'ci'],
		["Cote d'Ivoire", 'ci'],
		['Ivory Coast', 'ci'],
		['Bosnia and Herzegovina', 'ba'],
		['Bosnia & Herzegovina', 'ba'],
		['Saint Lucia', 'lc'],
		['St. Lucia', 'lc'],
		['South Korea', 'kr'],
		['Korea, Republic of', 'kr'],
		['Russian Federation', 'ru'],
		['Myanmar', 'mm'],
		['Türkiye', 'tr'],
		['Turkey', 'tr'],
		['Czech Republic', 'cz'],
		['Czechia', 'cz'],
		['Democratic Republic of the Congo', 'cd'],
		['Hong Kong', 'hk'],
		['Kosovo', 'xk'],
		['  brazil ', 'br'],
		['México', 'mx'],
	])('%j → %j', (input, expected) => {
		expect(normalizeCountry(input)).toBe(expected);
	});

	test.each<[string, string]>([
		['Atlantis', 'not a recognised country name or code'],
		['Congo', 'not a recognised country name or code'],
		['Somewhere over the rainbow, way up high', 'not a recognised country name or code'],
		['EU', 'two letters that are not an ISO 3166-1 country code'],
		['SU', 'two letters that are not an ISO 3166-1 country code'],
		['ZZ', 'two letters that are not an ISO 3166-1 country code'],
		['J.D.', 'two letters that are not an ISO 3166-1 country code'],
	])('%j is unknown: omitted with a warning that never quotes it', (input, reason) => {
		const outcome = normalizeCountryText(input);
		expect(outcome).toEqual({ omitted: reason });
		expect(JSON.stringify(outcome)).not.toContain(input);
	});
});
