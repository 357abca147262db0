import { processCapture } from '../../../shared/capture';
import { config, fixtureBytes, NOW, request, SECRET, sign } from './helpers';

const signed = { kind: 'preset', secret: SECRET } as const;
const body = fixtureBytes('meta-leadgen.json');

describe("Lead Capture Trigger preset for Meta's leadgen webhook", () => {
	it('turns each leadgen change of a delivery into a lead carrying the lead id and creation time', () => {
		const outcome = processCapture(
			request(body, sign.metaLeadAds(body)),
			config('metaLeadAds', { signature: signed }),
			NOW,
		);
		expect(outcome.kind).toBe('accepted');
		if (outcome.kind !== 'accepted') return;
		expect(outcome.records).toEqual([
			{
				record_id: '1234567890123456',
				state: 'lead',
				occurred_at: new Date(1796029990 * 1000).toISOString(),
				source: { kind: 'metaLeadAds', form_id: '5550001112223' },
				attributes: {
					meta_lead_id: '1234567890123456',
					meta_page_id: '100000000000001',
					meta_ad_id: '120200000000001',
					meta_adgroup_id: '120200000000002',
				},
			},
			{
				record_id: '1234567890123457',
				state: 'lead',
				occurred_at: new Date(1796029995 * 1000).toISOString(),
				source: { kind: 'metaLeadAds', form_id: '5550001112223' },
				attributes: { meta_lead_id: '1234567890123457', meta_page_id: '100000000000001' },
			},
		]);
		expect(outcome.record).toBe(outcome.records?.[0]);
	});

	it.each([
		['missing', {}, 'missing X-Hub-Signature-256 header'],
		[
			'made with another secret',
			sign.metaLeadAds(body, 'someone-else'),
			'signature does not match',
		],
		[
			'without the sha256= prefix',
			{ 'x-hub-signature-256': sign.metaLeadAds(body)['x-hub-signature-256'].slice(7) },
			'signature does not match',
		],
	])('refuses a delivery whose X-Hub-Signature-256 is %s (401)', (_label, headers, reason) => {
		const outcome = processCapture(
			request(body, headers),
			config('metaLeadAds', { signature: signed }),
			NOW,
		);
		expect(outcome).toEqual({ kind: 'rejected', status: 401, reason });
	});

	it('refuses a body changed after signing', () => {
		const tampered = Buffer.from(
			body.toString('utf8').replace('1234567890123456', '1234567890123499'),
		);
		const outcome = processCapture(
			request(tampered, sign.metaLeadAds(body)),
			config('metaLeadAds', { signature: signed }),
			NOW,
		);
		expect(outcome).toMatchObject({ kind: 'rejected', status: 401 });
	});

	it('answers 200 without a lead for other Page webhooks and non-page objects', () => {
		const feed = JSON.stringify({
			object: 'page',
			entry: [{ changes: [{ field: 'feed', value: {} }] }],
		});
		expect(processCapture(request(feed), config('metaLeadAds'), NOW)).toMatchObject({
			kind: 'ignored',
			reason: 'no leadgen change in this delivery',
		});
		const user = JSON.stringify({ object: 'user', entry: [] });
		expect(processCapture(request(user), config('metaLeadAds'), NOW)).toMatchObject({
			kind: 'ignored',
		});
	});

	it('keeps the good leads of a delivery and says which change was left out', () => {
		const mixed = JSON.stringify({
			object: 'page',
			entry: [
				{
					changes: [
						{ field: 'leadgen', value: { form_id: '1', created_time: 1796029990 } },
						{
							field: 'leadgen',
							value: { leadgen_id: '222333444555666', created_time: 1796029990 },
						},
					],
				},
			],
		});
		const outcome = processCapture(request(mixed), config('metaLeadAds'), NOW);
		expect(outcome).toMatchObject({ kind: 'accepted', record: { record_id: '222333444555666' } });
		if (outcome.kind !== 'accepted') return;
		expect(outcome.records).toBeUndefined();
		expect(outcome.warnings.join(' ')).toMatch(/leadgen change 0 left out: /);
	});
});
