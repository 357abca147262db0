import { IDENTITY_PROFILES } from '../../../shared/platforms';
import { estimateMatchQuality, normalizeIdentity, renderIdentity } from '../../../shared/identity';
import type { LeadRecord, Platform } from '../../../shared/types';

const quality = (platform: Platform, record: LeadRecord) =>
	estimateMatchQuality(IDENTITY_PROFILES[platform], renderIdentity(normalizeIdentity(record), IDENTITY_PROFILES[platform]));

const full: LeadRecord = {
	contact: { email: 'a@acme.com', phone: '+14155552671', first_name: 'A', last_name: 'B', city: 'SF', region: 'CA', postal_code: '94105', country: 'US', external_id: 'c-1' },
	click: { fbc: 'fb.1.1554763741205.AbC', fbp: 'fb.1.1596403881668.1116446470', gclid: 'Cj0K', ttclid: 'tt1', msclkid: 'ms1', epik: 'ep1' },
	client: { ip: '203.0.113.9', user_agent: 'Mozilla/5.0' },
};

describe('estimateMatchQuality', () => {
	it.each([
		['meta', { contact: { email: 'a@acme.com' } }, 3, 'fair'],
		['meta', { contact: { email: 'a@acme.com', phone: '+14155552671' }, client: { ip: '203.0.113.9', user_agent: 'UA' } }, 6, 'good'],
		['meta', full, 10, 'great'],
		['meta', { contact: { city: 'SF', country: 'US' } }, 0.3, 'poor'],
		['google', { contact: { email: 'a@acme.com' } }, 3, 'fair'],
		['google', { contact: { email: 'a@acme.com' }, click: { gclid: 'Cj0K' } }, 8, 'great'],
		['google', { click: { gclid: 'Cj0K', gbraid: 'gb' } }, 5, 'fair'],
		['tiktok', { contact: { email: 'a@acme.com', phone: '+14155552671' }, click: { ttclid: 'tt1' } }, 8, 'great'],
		['microsoft', { click: { msclkid: 'ms1' } }, 4, 'fair'],
		['pinterest', { contact: { email: 'a@acme.com', phone: '+14155552671' } }, 6, 'good'],
		// 0.75 + 0.75 + 0.25 + 0.25 + 0.15 + 0.15 + 0.15 = 2.45 exactly: rounded half up, not
		// down by a floating-point sum that comes out at 2.4499999…
		['pinterest', { contact: { first_name: 'A', last_name: 'B', city: 'SF', postal_code: '94105', country: 'US' }, client: { ip: '203.0.113.9', user_agent: 'UA' } }, 2.5, 'poor'],
	] as Array<[Platform, LeadRecord, number, string]>)('%s %j → %d (%s)', (platform, record, score, rating) => {
		expect(quality(platform, record)).toMatchObject({ score, rating });
	});

	it('names the heaviest missing keys, to say how to improve', () => {
		expect(quality('meta', { contact: { city: 'SF' } }).missing).toEqual(['email', 'phone', 'fbc']);
		expect(quality('google', { contact: { email: 'a@acme.com' } }).missing).toEqual(['gclid', 'gbraid', 'wbraid']);
	});

	it('never exceeds 10', () => {
		for (const platform of ['meta', 'pinterest', 'tiktok', 'google', 'microsoft'] as Platform[]) {
			expect(quality(platform, full).score).toBeLessThanOrEqual(10);
		}
	});
});

describe('Google click ids', () => {
	it('does not list gbraid or wbraid as missing when a gclid is there', () => {
		expect(quality('google', { contact: { email: 'a@acme.com' }, click: { gclid: 'Cj0K' } }).missing).toEqual(['phone']);
	});
});

describe('a profile handed to the identity floor (no platform named there)', () => {
	const profile = {
		...IDENTITY_PROFILES.google,
		matchWeights: { gclid: 5, gbraid: 4, wbraid: 3, email: 3 },
		alternativeClickIds: ['gclid', 'gbraid', 'wbraid'] as const,
	};
	const score = (record: LeadRecord) => estimateMatchQuality(profile, renderIdentity(normalizeIdentity(record), profile));

	it.each([
		[{ click: { gbraid: 'gb', wbraid: 'wb' } }, 4],
		[{ click: { gclid: 'Cj0K', gbraid: 'gb', wbraid: 'wb' } }, 5],
		[{ contact: { email: 'a@acme.com' }, click: { wbraid: 'wb' } }, 6],
	] as Array<[LeadRecord, number]>)('of click ids that stand in for one another only the heaviest counts: %j → %d', (record, expected) => {
		expect(score(record).score).toBe(expected);
	});

	it('with one of them present the others are not missing; without, the heaviest is', () => {
		expect(score({ click: { wbraid: 'wb' } }).missing).toEqual(['email']);
		expect(score({ contact: { email: 'a@acme.com' } }).missing).toEqual(['gclid', 'gbraid', 'wbraid']);
	});

	it('another profile gets its own weights (worked out per profile, not per platform key)', () => {
		const heavier = { ...profile, matchWeights: { ...profile.matchWeights, email: 6 } };
		const user = renderIdentity(normalizeIdentity({ contact: { email: 'a@acme.com' } }), heavier);
		expect(estimateMatchQuality(heavier, user).score).toBe(6);
		expect(score({ contact: { email: 'a@acme.com' } }).score).toBe(3);
	});
});
