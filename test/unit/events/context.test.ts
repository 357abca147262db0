import {
	CONSENT_DENIED_SKIP_REASON,
	consentDeniedSkip,
	limitedDataUseFor,
	readEventContext,
	type LimitedDataUseSetting,
} from '../../../shared/events';
import { normalizeIdentity } from '../../../shared/identity';
import type { LeadRecord } from '../../../shared/types';

const read = (record: LeadRecord) =>
	readEventContext(record, { identity: normalizeIdentity(record, { eventTimeMs: Date.now() }) });

describe('readEventContext: the one reading of a lead’s event context', () => {
	it('reads consent, Limited Data Use, value, page URL, referrer and region at once', () => {
		const context = read({
			contact: { email: 'a@example.com', country: 'DE' },
			consent: { ad_user_data: 'yes', ad_personalization: false, limited_data_use: 'granted' },
			value: { amount: '49.90', currency: 'eur' },
			source: { page_url: ' https://example.com/form?x=1 ', referrer: 'https://google.com/' },
		});
		expect(context).toEqual({
			consent: {
				adUserData: 'granted',
				adPersonalization: 'denied',
				limitedDataUse: 'granted',
				noSignal: false,
				region: 'consent-required',
			},
			value: { amount: 49.9, currency: 'EUR', warnings: [] },
			pageUrl: 'https://example.com/form?x=1',
			referrer: 'https://google.com/',
			california: false,
		});
	});

	it('leaves out what is not there or not usable, and says why for the value', () => {
		const context = read({
			contact: { email: 'a@example.com' },
			value: { amount: 10 },
			source: { page_url: 'example.com/form', referrer: 'android-app://com.x' },
		});
		expect(context.consent).toEqual({
			adUserData: undefined,
			adPersonalization: undefined,
			limitedDataUse: undefined,
			noSignal: true,
			region: 'unknown',
		});
		expect(context.value.amount).toBeUndefined();
		expect(context.value.warnings).toEqual([
			'value.amount given without value.currency: value not sent (currency is never guessed)',
		]);
		expect(context.pageUrl).toBeUndefined();
		expect(context.referrer).toBeUndefined();
	});

	it.each<[string, LeadRecord, boolean]>([
		['contact address in California', { contact: { country: 'US', region: 'CA' } }, true],
		['visitor in California', { client: { country: 'US', region: 'California' } }, true],
		['contact in Texas', { contact: { country: 'US', region: 'TX' } }, false],
		[
			'contact abroad, visitor in California',
			{ contact: { country: 'FR' }, client: { country: 'US', region: 'CA' } },
			false,
		],
		['nothing known', {}, false],
	])('California: %s → %s', (_label, record, expected) => {
		expect(read(record).california).toBe(expected);
	});
});

describe('consentDeniedSkip: the one consent-denied rule', () => {
	it.each<[unknown, 'skip' | 'click-id-only', string | undefined]>([
		['denied', 'skip', CONSENT_DENIED_SKIP_REASON],
		[false, 'skip', CONSENT_DENIED_SKIP_REASON],
		['granted', 'skip', undefined],
		[undefined, 'skip', undefined],
		// Google sends the click id with the denial instead of skipping the lead.
		['denied', 'click-id-only', undefined],
	])('ad_user_data %j under rule %s → %j', (adUserData, rule, expected) => {
		const context = read({
			contact: { email: 'a@example.com' },
			consent: { ad_user_data: adUserData as string },
		});
		expect(consentDeniedSkip(context, rule)).toBe(expected);
	});

	it('ad_personalization denied alone does not skip the lead', () => {
		const context = read({ consent: { ad_personalization: 'denied' } });
		expect(consentDeniedSkip(context, 'skip')).toBeUndefined();
	});
});

describe('limitedDataUseFor: the one Limited Data Use rule', () => {
	const california: LeadRecord = { contact: { country: 'US', region: 'CA' } };
	const flagged: LeadRecord = { consent: { limited_data_use: 'yes' } };
	const declined: LeadRecord = { consent: { limited_data_use: 'no' } };
	const texas: LeadRecord = { contact: { country: 'US', region: 'TX' } };
	it.each<[string, LeadRecord, LimitedDataUseSetting, boolean]>([
		['California', california, 'auto', true],
		['flagged by consent.limited_data_use', flagged, 'auto', true],
		['declined flag', declined, 'auto', false],
		['Texas', texas, 'auto', false],
		['Texas', texas, 'always', true],
		['California', california, 'never', false],
		['flagged', flagged, 'never', false],
	])('%s, setting %s → %s', (_label, record, setting, expected) => {
		expect(limitedDataUseFor(read(record), setting)).toBe(expected);
	});
});
