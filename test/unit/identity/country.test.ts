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

	test.each<[string]>([['Atlantis'], ['EU'], ['SU'], ['ZZ'], ['Congo'], ['XX']])(
		'%j is unknown: omitted with a warning',
		(input) => {
			expect(normalizeCountryText(input)).toEqual({
				omitted: `"${input}" is not a recognised country`,
			});
		},
	);

	it('echoes at most a short prefix of a long unknown value', () => {
		const outcome = normalizeCountryText('Somewhere over the rainbow, way up high');
		expect(outcome).toEqual({ omitted: '"Somewhere over the r…" is not a recognised country' });
	});
});
