import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INodeExecutionData, INodeType } from 'n8n-workflow';
import { webhookContext, type LogLine, type NodeSetup } from './context';

export interface WebhookServer {
	url: string;
	/** The items each accepted request started an execution with, in order of arrival. */
	executions: INodeExecutionData[][];
	logs: LogLine[];
	close(): Promise<void>;
}

/** The webhook n8n routes a request to: the node's webhook with that HTTP method. */
function webhookName(node: INodeType, method: string): string | undefined {
	return node.description.webhooks?.find((w) => w.httpMethod === method)?.name;
}

/**
 * A loopback HTTP server standing where n8n's webhook server stands: each request goes to
 * `node.webhook` with a mocked IWebhookFunctions holding the real request and response, as a
 * trigger with a raw body (options.binaryData) gets them. What the webhook returns as
 * workflowData is recorded in `executions`; when it leaves the answer to n8n, this answers as n8n
 * does for responseMode onReceived (200 "Workflow was started"); when it throws, 500.
 */
export async function startWebhookServer(
	node: INodeType,
	setup: NodeSetup,
): Promise<WebhookServer> {
	const executions: INodeExecutionData[][] = [];
	const logs: LogLine[] = [];
	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const name = webhookName(node, req.method ?? '');
		if (!name) {
			res.statusCode = 404;
			res.end(JSON.stringify({ code: 404, message: 'webhook not registered for this method' }));
			return;
		}
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		Object.assign(req, { query: Object.fromEntries(url.searchParams.entries()) });
		const { ctx, record } = webhookContext(node, { req, res, webhookName: name }, setup);
		try {
			const answer = await node.webhook!.call(ctx);
			logs.push(...record.logs);
			if (answer.workflowData) executions.push(...answer.workflowData);
			if (!res.writableEnded) {
				res.setHeader('content-type', 'application/json');
				res.end(JSON.stringify({ message: 'Workflow was started' }));
			}
		} catch (error) {
			logs.push(...record.logs);
			if (!res.writableEnded) {
				res.statusCode = 500;
				res.end(JSON.stringify({ code: 0, message: (error as Error).message }));
			}
		}
	};
	const server: Server = createServer((req, res) => void handle(req, res));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/lead-capture`,
		executions,
		logs,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
