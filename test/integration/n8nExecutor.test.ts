import type { IExecuteFunctions } from 'n8n-workflow';
import { classifyHttpStatus, Transport } from '../../shared';
import { n8nExecutor } from '../../nodes/common/n8nExecutor';
import { n8nHttpRequest } from '../nodes/support/n8nHttp';
import { scriptedServer } from '../support/scriptedServer';

/**
 * The executor every sender uses inside n8n, over n8n's `httpRequest` as test/nodes/support
 * models it (real HTTP, n8n's option semantics; n8n lets axios's own errors through), against a
 * scripted loopback server. The real helper runs in the end-to-end suite (proxy, secrets).
 */
const TOKEN = 'n8n-executor-token-0123456789';
const ctx = { helpers: { httpRequest: n8nHttpRequest } } as unknown as IExecuteFunctions;
const transport = (timeoutMs = 5_000) =>
	new Transport({
		executor: n8nExecutor(ctx),
		timeoutMs,
		retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20, maxTotalMs: 10_000 },
	});
const post = (url: string) => ({
	method: 'POST' as const,
	url: `${url}/events`,
	params: { access_token: TOKEN },
	headers: { authorization: `Bearer ${TOKEN}` },
	body: { data: [{ event_name: 'Lead' }] },
});

describe("the n8n executor (n8n's httpRequest, one attempt)", () => {
	it('hands every status to the transport with its headers and JSON body: a 429 is retried after Retry-After', async () => {
		const server = await scriptedServer([
			{ status: 429, headers: { 'Retry-After': '0' }, body: { error: { message: 'slow down' } } },
			{ status: 200, body: { events_received: 1 } },
		]);
		try {
			const result = await transport().request(post(server.url), classifyHttpStatus, [TOKEN]);
			expect(result).toMatchObject({
				ok: true,
				attempts: 2,
				response: { status: 200, data: { events_received: 1 } },
			});
			expect(JSON.parse(server.requests[1].body)).toEqual({ data: [{ event_name: 'Lead' }] });
			expect(server.requests[1].headers['content-type']).toBe('application/json');
		} finally {
			await server.close();
		}
	});

	it('turns a dropped connection into its Node code, retried, with no token in the message', async () => {
		const server = await scriptedServer([{ kind: 'reset' }]);
		try {
			const result = await transport().request(post(server.url), classifyHttpStatus, [TOKEN]);
			expect(result).toMatchObject({ ok: false, failure: 'retryable', attempts: 3 });
			expect(result.ok || result.message).toBe(
				'network error ECONNRESET: socket hang up (gave up after 3 attempts)',
			);
			expect(JSON.stringify(result)).not.toContain(TOKEN);
			expect(server.requests).toHaveLength(3);
		} finally {
			await server.close();
		}
	});

	it("passes the attempt's timeout to n8n: a platform that never answers is given up on", async () => {
		const server = await scriptedServer([{ kind: 'hang' }]);
		try {
			const result = await transport(300).request(post(server.url), classifyHttpStatus, [TOKEN]);
			expect(result).toMatchObject({
				ok: false,
				failure: 'retryable',
				attempts: 3,
				message: expect.stringMatching(/^no response within 300 ms/),
			});
		} finally {
			await server.close();
		}
	});
});
