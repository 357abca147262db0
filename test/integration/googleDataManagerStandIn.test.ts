/**
 * The Data Manager stand-in answers like Google documents (docs/platforms/google-data-manager.md):
 * fast fail naming the event, nothing of a failed request recorded, request status, adjustments
 * by transaction id, OAuth bearer and scope checks. The sender tests rely on all of this.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startGoogleDataManagerStandIn } = require('../standins/googleDataManager.js');

type StandIn = Awaited<ReturnType<typeof startGoogleDataManagerStandIn>>;

const HASH = 'a'.repeat(64);
const destination = {
	operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1234567890' },
	productDestinationId: '987654321',
};
const event = (transactionId: string, extra: Record<string, unknown> = {}) => ({
	transactionId,
	eventTimestamp: '2026-11-30T10:00:00Z',
	userData: { userIdentifiers: [{ emailAddress: HASH }] },
	eventSource: 'WEB',
	...extra,
});

async function call(standIn: StandIn, path: string, body?: unknown, token = standIn.accessToken()) {
	const response = await fetch(`${standIn.url}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, data: (await response.json()) as any };
}

describe('Google Data Manager stand-in', () => {
	let standIn: StandIn;
	beforeAll(async () => {
		standIn = await startGoogleDataManagerStandIn({});
	});
	afterAll(() => standIn.close());
	beforeEach(() => standIn.reset());

	it('accepts a valid request with a request id whose status can be read', async () => {
		const ingest = await call(standIn, '/v1/events:ingest', {
			destinations: [destination],
			encoding: 'HEX',
			events: [event('t1', { conversionValue: 10, currency: 'USD' })],
		});
		expect(ingest.status).toBe(200);
		expect(typeof ingest.data.requestId).toBe('string');
		const status = await call(
			standIn,
			`/v1/requestStatus:retrieve?requestId=${encodeURIComponent(ingest.data.requestId)}`,
		);
		expect(status.status).toBe(200);
		expect(status.data.requestStatusPerDestination[0]).toMatchObject({
			requestStatus: 'SUCCESS',
			eventsIngestionStatus: { recordCount: '1' },
		});
		expect(standIn.received).toHaveLength(1);
	});

	it('fails the whole request for one bad event, naming its index, and records nothing', async () => {
		const { status, data } = await call(standIn, '/v1/events:ingest', {
			destinations: [destination],
			encoding: 'HEX',
			events: [
				event('t1'),
				event('t2', { userData: { userIdentifiers: [{ emailAddress: 'x@y' }] } }),
			],
		});
		expect(status).toBe(400);
		expect(data.error.status).toBe('INVALID_ARGUMENT');
		const badRequest = data.error.details.find((d: any) => d['@type'].endsWith('BadRequest'));
		expect(badRequest.fieldViolations[0]).toMatchObject({
			field: 'events[1].user_data.user_identifiers[0].email_address',
			reason: 'INVALID_HEX_ENCODING',
		});
		expect(standIn.received).toHaveLength(0);
	});

	it('records nothing under validateOnly, and its request id has no status', async () => {
		const ingest = await call(standIn, '/v1/events:ingest', {
			destinations: [destination],
			encoding: 'HEX',
			validateOnly: true,
			events: [event('t1')],
		});
		expect(ingest.status).toBe(200);
		expect(standIn.received).toHaveLength(0);
		const status = await call(
			standIn,
			`/v1/requestStatus:retrieve?requestId=${ingest.data.requestId}`,
		);
		expect(status.status).toBe(400);
		expect(JSON.stringify(status.data)).toContain('INVALID_REQUEST_ID');
	});

	it('treats a known transaction id with a new value as a restatement, the same value as nothing new', async () => {
		const body = (value: number) => ({
			destinations: [destination],
			encoding: 'HEX',
			events: [event('t1', { conversionValue: value, currency: 'USD' })],
		});
		await call(standIn, '/v1/events:ingest', body(10));
		await call(standIn, '/v1/events:ingest', body(10));
		await call(standIn, '/v1/events:ingest', body(25));
		expect(standIn.conversions()['1234567890/987654321/t1']).toEqual({
			value: 25,
			currency: 'USD',
			adjustments: 1,
			events: 3,
		});
	});

	it('refuses a wrong token (401) and a token without the Data Manager scope (403)', async () => {
		const wrong = await call(standIn, '/v1/events:ingest', { destinations: [destination] }, 'nope');
		expect(wrong.status).toBe(401);
		expect(wrong.data.error.status).toBe('UNAUTHENTICATED');
		const unscoped = await startGoogleDataManagerStandIn({
			scopes: ['https://www.googleapis.com/auth/adwords'],
		});
		try {
			const denied = await call(unscoped, '/v1/events:ingest', { destinations: [destination] });
			expect(denied.status).toBe(403);
			expect(JSON.stringify(denied.data)).toContain('ACCESS_TOKEN_SCOPE_INSUFFICIENT');
		} finally {
			await unscoped.close();
		}
	});

	it('refuses a conversion action the operating account does not own', async () => {
		const { status, data } = await call(standIn, '/v1/events:ingest', {
			destinations: [{ ...destination, productDestinationId: '111' }],
			encoding: 'HEX',
			events: [event('t1')],
		});
		expect(status).toBe(400);
		expect(JSON.stringify(data)).toContain('INVALID_CONVERSION_ACTION_ID');
	});
});
