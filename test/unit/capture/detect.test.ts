import { DETECTION_RULES } from '../../../shared/capture';
import { detectKey, isSensitiveKey, utmAttributeKey } from '../../../shared/capture/detect';

describe('detection table', () => {
	const aliases = DETECTION_RULES.flatMap((rule) =>
		rule.aliases.map((alias) => [alias, rule.target] as const),
	);

	it.each(aliases)('%j is detected', (alias, target) => {
		expect(detectKey(alias)).toEqual(target);
	});

	it.each<[string, object | null]>([
		['Email Address', { section: 'contact', field: 'email' }],
		['E_MAIL', { section: 'contact', field: 'email' }],
		['phoneNumber', { section: 'contact', field: 'phone' }],
		['First-Name', { section: 'contact', field: 'first_name' }],
		['Full Name', { section: 'name' }],
		['ZIP code', { section: 'contact', field: 'postal_code' }],
		['Landing Page URL', { section: 'landing' }],
		['_fbp', { section: 'click', field: 'fbp' }],
		['emails', null],
		['work_email', null],
		['company_size', null],
	])('%j → %j', (key, expected) => {
		expect(detectKey(key)).toEqual(expected);
	});
});

describe('utm attribute names', () => {
	it.each<[string, string | null]>([
		['utm_source', 'utm_source'],
		['UTM_Campaign', 'utm_campaign'],
		['utm-medium', 'utm_medium'],
		['utmSource', 'utm_source'],
		['utm content', 'utm_content'],
		['utm_custom_param', 'utm_custom_param'],
		['utmost', null],
		['utm', null],
		['source', null],
	])('%j → %j', (key, expected) => {
		expect(utmAttributeKey(key)).toBe(expected);
	});
});

describe('sensitive keys', () => {
	it.each<[string, boolean]>([
		['password', true],
		['confirm_password', true],
		['pwd', true],
		['card_number', true],
		['CreditCard', true],
		['cvv', true],
		['CVC', true],
		['ssn', true],
		['iban', true],
		['_token', true],
		['csrf_token', true],
		['g-recaptcha-response', true],
		['h-captcha-response', true],
		['api_key', true],
		['pin', true],
		['email', false],
		['company', false],
		['pincode', false],
		['message', false],
	])('%j → %s', (key, expected) => {
		expect(isSensitiveKey(key)).toBe(expected);
	});
});
