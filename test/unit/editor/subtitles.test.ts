/**
 * The canvas subtitle of every node, evaluated the way n8n's editor evaluates it: words a
 * marketer reads, never an internal value ("fromState", "automatic_match", "google, meta, …").
 */
import type { INodePropertyOptions } from 'n8n-workflow';
import { SEND_MODES } from '../../../shared';
import { describeNode, NODE_TYPES, subtitleOf } from './editorView';

const SENDERS = [
	'metaConversions',
	'pinterestConversions',
	'tiktokEvents',
	'googleAdsConversions',
	'microsoftConversions',
];

function eventOptions(name: string): INodePropertyOptions[] {
	const event = describeNode(name).properties.find((p) => p.name === 'event')!;
	return (event.options as INodePropertyOptions[]).filter(
		(o) => o.value !== 'fromState' && o.value !== 'fromStage' && o.value !== 'custom',
	);
}

/** Values that are internal: snake_case, camelCase, or a comma-joined list of lowercase ids. */
const INTERNAL = /\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]*\b|\b[a-z]+, [a-z]+\b/;

describe('canvas subtitles', () => {
	it.each(SENDERS)('%s: the default event reads "Event from lead state"', (name) => {
		expect(subtitleOf(name)).toBe('Event from lead state');
	});

	it.each(SENDERS)('%s: each standard event shows its display name', (name) => {
		const options = eventOptions(name);
		expect(options.length).toBeGreaterThan(3);
		for (const option of options) {
			expect(subtitleOf(name, { event: option.value })).toBe(`Event: ${option.name}`);
		}
	});

	it.each(SENDERS)('%s: the event from the lead stage says so', (name) => {
		expect(subtitleOf(name, { event: 'fromStage' })).toBe('Event from lead stage');
	});

	it.each(SENDERS)('%s: a custom event shows its name', (name) => {
		expect(subtitleOf(name, { event: 'custom', customEventName: 'QualifiedDemo' })).toBe(
			'Custom event: QualifiedDemo',
		);
	});

	it('Meta: Complete Registration reads as words, not CompleteRegistration', () => {
		expect(subtitleOf('metaConversions', { event: 'CompleteRegistration' })).toBe(
			'Event: Complete Registration',
		);
	});

	it('Microsoft: a page load event says so whatever the event', () => {
		expect(subtitleOf('microsoftConversions', { eventType: 'pageLoad', event: 'lead' })).toBe(
			'Page load event',
		);
	});

	it('Google Ads: Adjust names the adjustment, Get Request Status says so (never "Event: undefined")', () => {
		expect(subtitleOf('googleAdsConversions', { operation: 'adjust' })).toBe(
			'Adjust: Restatement (New Value)',
		);
		expect(subtitleOf('googleAdsConversions', { operation: 'adjust', adjustment: 'fromStage' })).toBe(
			'Adjust: From Lead Stage',
		);
		expect(
			subtitleOf('googleAdsConversions', { api: 'googleAdsApi', operation: 'adjust', adjustment: 'retraction' }),
		).toBe('Adjust: Retraction (Remove)');
		expect(subtitleOf('googleAdsConversions', { operation: 'getRequestStatus' })).toBe(
			'Get request status',
		);
	});

	it('Lead Rule Filter: each send mode in words, and the preview', () => {
		const expected: Record<string, string> = {
			booking: 'Send bookings',
			automatic_partial: 'Send completed and partial leads',
			automatic_completed: 'Send completed leads',
			manual: 'Send approved leads',
			automatic_match: 'Send matching leads',
		};
		expect(Object.keys(expected).sort()).toEqual([...SEND_MODES].sort());
		for (const [sendMode, text] of Object.entries(expected)) {
			expect(subtitleOf('leadRuleFilter', { operation: 'filter', sendMode })).toBe(text);
		}
		expect(
			subtitleOf('leadRuleFilter', { operation: 'preview', sendMode: 'automatic_match' }),
		).toBe('Preview: last 7 days');
	});

	it('Lead Capture Trigger: the source by name and the path', () => {
		const expected: Record<string, string> = {
			script: 'Site script: /lead-capture',
			generic: 'Webhook: /lead-capture',
			typeform: 'Typeform: /lead-capture',
			tally: 'Tally: /lead-capture',
			calendly: 'Calendly: /lead-capture',
			calcom: 'Cal.com: /lead-capture',
			metaLeadAds: 'Meta Lead Ads: /lead-capture',
			hubspot: 'HubSpot: /lead-capture',
		};
		const source = describeNode('leadCaptureTrigger').properties.find((p) => p.name === 'source')!;
		expect(Object.keys(expected).sort()).toEqual(
			(source.options as INodePropertyOptions[]).map((o) => String(o.value)).sort(),
		);
		for (const [value, text] of Object.entries(expected)) {
			expect(subtitleOf('leadCaptureTrigger', { source: value })).toBe(text);
		}
		expect(subtitleOf('leadCaptureTrigger', { source: 'typeform', path: 'demo-form' })).toBe(
			'Typeform: /demo-form',
		);
	});

	it('Identity Normalizer: a platform count, one platform by name, the report window', () => {
		expect(subtitleOf('identityNormalizer')).toBe('5 platforms');
		expect(subtitleOf('identityNormalizer', { platforms: ['meta', 'tiktok'] })).toBe('2 platforms');
		expect(subtitleOf('identityNormalizer', { platforms: ['microsoft'] })).toBe(
			'Microsoft Advertising',
		);
		expect(subtitleOf('identityNormalizer', { operation: 'report', hours: 24 })).toBe(
			'Health report: last 24 h',
		);
	});

	it.each(Object.keys(NODE_TYPES))('%s: the default subtitle shows no internal value', (name) => {
		const subtitle = subtitleOf(name);
		expect(subtitle).not.toBe('');
		expect(subtitle).not.toMatch(INTERNAL);
	});
});
