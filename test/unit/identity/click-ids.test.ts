import {
	normalizeClickId,
	normalizeClickIdText,
	type ClickIdField,
} from '../../../shared/identity';

describe('click ids: trimmed, passed through, never lowercased', () => {
	test.each<[ClickIdField, unknown, string | null]>([
		['gclid', ' Cj0KCQiA-AbCdEf_123 ', 'Cj0KCQiA-AbCdEf_123'],
		['gbraid', '0AAAAAoBcDeF', '0AAAAAoBcDeF'],
		['wbraid', 'CkAaBbCc', 'CkAaBbCc'],
		['ttclid', 'E.C.P.AbCdEfGh', 'E.C.P.AbCdEfGh'],
		['ttp', '2AbCdEfGhIjKlMnOp', '2AbCdEfGhIjKlMnOp'],
		['msclkid', '1d2C3b4A5f', '1d2C3b4A5f'],
		// the _uetmsclkid cookie value: prefix stripped (platforms.md §5.4)
		['msclkid', '_uet1d2C3b4A5f', '1d2C3b4A5f'],
		['epik', 'dj0yJnU9AbC', 'dj0yJnU9AbC'],
		['gclid', ['', 'Second'], 'Second'],
		['gclid', '', null],
	])('%s %j → %j', (field, input, expected) => {
		expect(normalizeClickId(field, input)).toBe(expected);
	});

	it('omits a click id mangled with whitespace', () => {
		expect(normalizeClickIdText('Cj0K CQiA')).toEqual({ omitted: 'contains whitespace' });
	});
});
