import { DEFAULT_MAX_BODY_BYTES, parseFormBody, processCapture } from '../../../shared/capture';
import { config, NOW, request, SECRET, sign } from './helpers';

describe('bad inputs are refused before any mapping', () => {
	it.each<[string, string | Buffer, Record<string, string>, number, string]>([
		[
			'malformed JSON',
			'{"id": "L", "email": ',
			{},
			400,
			'malformed JSON body: unexpected end of input',
		],
		[
			'a JSON syntax error',
			'{"id": "L" "email": "a@example.com"}',
			{},
			400,
			'malformed JSON body: ',
		],
		['an empty body', '   ', {}, 400, 'malformed JSON body: empty body'],
		[
			'a JSON array',
			'[{"email":"a@example.com"}]',
			{},
			400,
			'malformed JSON body: expected an object at the top level, got an array',
		],
		[
			'a JSON string',
			'"a@example.com"',
			{},
			400,
			'malformed JSON body: expected an object at the top level, got a string',
		],
		['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), {}, 400, 'malformed body: not valid UTF-8'],
		[
			'multipart',
			'--x\r\n',
			{ 'content-type': 'multipart/form-data; boundary=x' },
			415,
			'unsupported content type "multipart/form-data" (accepted: application/json, text/plain holding JSON, application/x-www-form-urlencoded)',
		],
		[
			'XML',
			'<lead/>',
			{ 'content-type': 'application/xml' },
			415,
			'unsupported content type "application/xml" (accepted: application/json, text/plain holding JSON, application/x-www-form-urlencoded)',
		],
	])('%s', (_case, body, headers, status, reason) => {
		const outcome = processCapture(request(body, headers), config('generic'), NOW);
		expect(outcome).toMatchObject({ kind: 'rejected', status });
		expect((outcome as { reason: string }).reason.startsWith(reason)).toBe(true);
	});

	it('never echoes body content in a JSON error', () => {
		const outcome = processCapture(
			request('{"email": secret.person@example.com}'),
			config('generic'),
			NOW,
		);
		expect(outcome).toMatchObject({ kind: 'rejected', status: 400 });
		expect((outcome as { reason: string }).reason).not.toContain('secret.person');
	});

	it.each([
		['application/json; charset=utf-8'],
		['application/vnd.api+json'],
		['text/plain;charset=UTF-8'],
		[undefined],
	])('reads %j as JSON', (contentType) => {
		const outcome = processCapture(
			request({ id: 'L', email: 'a@example.com' }, { 'content-type': contentType }),
			config('generic'),
			NOW,
		);
		expect(outcome.kind).toBe('accepted');
	});

	it('strips a UTF-8 byte order mark', () => {
		const body = Buffer.concat([
			Buffer.from([0xef, 0xbb, 0xbf]),
			Buffer.from('{"id":"L","email":"a@example.com"}'),
		]);
		expect(processCapture(request(body), config('generic'), NOW).kind).toBe('accepted');
	});
});

describe('size limit', () => {
	const big = (bytes: number) =>
		Buffer.from(JSON.stringify({ id: 'L', email: 'a@example.com', pad: 'x'.repeat(bytes) }));

	it('refuses a body above the default 256 KiB with 413', () => {
		const body = big(DEFAULT_MAX_BODY_BYTES);
		expect(processCapture(request(body), config('generic'), NOW)).toEqual({
			kind: 'rejected',
			status: 413,
			reason: `body too large (${body.length} bytes, limit 262144)`,
		});
	});

	it('honours a configured limit, and checks size before the signature', () => {
		const body = big(2000);
		const outcome = processCapture(
			request(body),
			config('typeform', { maxBodyBytes: 1024, signature: { kind: 'preset', secret: SECRET } }),
			NOW,
		);
		expect(outcome).toEqual({
			kind: 'rejected',
			status: 413,
			reason: `body too large (${body.length} bytes, limit 1024)`,
		});
	});

	it('checks the signature before parsing: a bad signature on malformed JSON is a 401', () => {
		const body = Buffer.from('{not json');
		const outcome = processCapture(
			request(body, sign.tally(Buffer.from('{}'))),
			config('tally', { signature: { kind: 'preset', secret: SECRET } }),
			NOW,
		);
		expect(outcome).toEqual({ kind: 'rejected', status: 401, reason: 'signature does not match' });
	});

	it('accepts a body at exactly the limit', () => {
		const body = Buffer.from(JSON.stringify({ id: 'L', email: 'a@example.com' }));
		expect(
			processCapture(request(body), config('generic', { maxBodyBytes: body.length }), NOW).kind,
		).toBe('accepted');
	});
});

describe('parseFormBody', () => {
	it.each<[string, Record<string, unknown>]>([
		['a=1&b=two+words', { a: '1', b: 'two words' }],
		[
			'contact[email]=a%40x.io&contact[address][city]=Oslo',
			{ contact: { email: 'a@x.io', address: { city: 'Oslo' } } },
		],
		['tag=a&tag=b&tag=c', { tag: ['a', 'b', 'c'] }],
		['list[]=1&list[]=2', { list: ['1', '2'] }],
		['a=1&a[b]=2', { a: '1' }],
		['__proto__[x]=1&constructor[prototype][y]=2&ok=1', { ok: '1' }],
		['weird]key=1', { 'weird]key': '1' }],
		['', {}],
	])('%j', (body, expected) => {
		expect(parseFormBody(body)).toEqual(expected);
	});
});
