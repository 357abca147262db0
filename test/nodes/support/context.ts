import {
	NodeHelpers,
	NodeOperationError,
	type ICredentialDataDecryptedObject,
	type IDataObject,
	type IExecuteFunctions,
	type IHttpRequestOptions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type IPairedItemData,
	type IPollFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';
import { withCredentialDefaults } from './credentials';
import { n8nHttpRequest, n8nHttpRequestWithAuthentication } from './n8nHttp';

/** n8n's Settings → On Error of a node. */
export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

export interface NodeSetup {
	/** The parameters set in the workflow (unset ones take the defaults of the node's description). */
	params?: INodeParameters;
	/** Parameters that are expressions: their value per item (`itemIndex`) as n8n resolves them. */
	expressions?: Record<string, (itemIndex: number) => unknown>;
	/** Credentials by type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	onError?: OnError;
	/** The id of the workflow the node is in (n8n's getWorkflow().id); default `workflow-test`. */
	workflowId?: string;
}

export interface LogLine {
	level: 'debug' | 'info' | 'warn' | 'error';
	message: string;
}

/** What a test reads after a run: everything the node logged. */
export interface ContextRecord {
	logs: LogLine[];
}

/**
 * The node's parameters as n8n holds them for a saved workflow: what was set, plus the defaults
 * of every displayed parameter, minus what displayOptions hide (n8n's own getNodeParameters).
 */
function nodeParameters(node: INodeType, params: INodeParameters): INodeParameters {
	const { description } = node;
	return (
		NodeHelpers.getNodeParameters(
			description.properties,
			params,
			true,
			false,
			{ typeVersion: 1 },
			description,
		) ?? {}
	);
}

function pathValue(source: unknown, path: string): unknown {
	let value = source;
	for (const part of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[part];
	}
	return value;
}

/** A resource locator's value, as getNodeParameter(..., { extractValue: true }) returns it. */
function extractValue(value: unknown): unknown {
	if (value && typeof value === 'object' && 'mode' in value && 'value' in value) {
		return (value as { value: unknown }).value;
	}
	return value;
}

/**
 * getNodeParameter as n8n implements it: a dotted path into the node's parameters, the fallback
 * when the path holds nothing, and n8n's "Could not get parameter" when there is no fallback.
 */
function parameterReader(parameters: INodeParameters, expressions: NodeSetup['expressions'] = {}) {
	return (
		name: string,
		itemIndex: number,
		hasFallback: boolean,
		fallback: unknown,
		options?: { extractValue?: boolean },
	): unknown => {
		const expression = expressions[name];
		let value = expression ? expression(itemIndex) : pathValue(parameters, name);
		if (value === undefined) value = fallback;
		if (value === undefined) {
			throw new Error(`Could not get parameter "${name}"${hasFallback ? '' : ' (no fallback)'}`);
		}
		value = structuredClone(value);
		return options?.extractValue ? extractValue(value) : value;
	};
}

/**
 * The parameters as the workflow stores them: a parameter the test makes an expression holds an
 * expression there (`={{ … }}`, as n8n stores one), so a node that checks for expressions sees it.
 */
function storedParameters(parameters: INodeParameters, expressions: NodeSetup['expressions'] = {}): INodeParameters {
	const stored = structuredClone(parameters);
	for (const name of Object.keys(expressions)) {
		const parts = name.split('.');
		let parent = stored as Record<string, unknown>;
		for (const part of parts.slice(0, -1)) {
			if (parent[part] === null || typeof parent[part] !== 'object') parent[part] = {};
			parent = parent[part] as Record<string, unknown>;
		}
		parent[parts[parts.length - 1]] = `={{ /* ${name}: set by the test per item */ }}`;
	}
	return stored;
}

function makeNode(node: INodeType, parameters: INodeParameters, onError: OnError): INode {
	return {
		id: 'node-under-test',
		name: node.description.defaults.name ?? node.description.displayName,
		type: `n8n-nodes-lead-capi.${node.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		onError,
	};
}

/** getCredentials: the credential of the type asked, with the type's defaults filled in. */
function credentialReader(node: INode, store: NodeSetup['credentials'] = {}) {
	return async (type: string): Promise<ICredentialDataDecryptedObject> => {
		const data = store[type];
		if (data) return withCredentialDefaults(type, structuredClone(data));
		throw new NodeOperationError(node, `Node does not have any credentials set for "${type}"`);
	};
}

function logger(logs: LogLine[]) {
	const at = (level: LogLine['level']) => (message: string) => {
		logs.push({ level, message });
	};
	return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** n8n's returnJsonArray: plain objects become { json }, items already shaped stay as they are. */
function returnJsonArray(data: IDataObject | IDataObject[]): INodeExecutionData[] {
	return (Array.isArray(data) ? data : [data]).map((entry) =>
		entry?.json ? ({ ...entry, json: entry.json } as INodeExecutionData) : { json: entry },
	);
}

/** n8n's constructExecutionMetaData: each item paired with the given input item(s). */
function constructExecutionMetaData(
	items: INodeExecutionData[],
	{ itemData }: { itemData: IPairedItemData | IPairedItemData[] },
): INodeExecutionData[] {
	return items.map(({ json, ...rest }) => ({ json, pairedItem: itemData, ...rest }));
}

function helpers(node: INode, getCredentials: ReturnType<typeof credentialReader>) {
	return {
		returnJsonArray,
		constructExecutionMetaData,
		httpRequest: (options: IHttpRequestOptions) => n8nHttpRequest(options),
		httpRequestWithAuthentication: (type: string, options: IHttpRequestOptions) =>
			n8nHttpRequestWithAuthentication(node, getCredentials, type, options),
	};
}

/**
 * Anything the node asks of the context that is not built here fails the test with its name,
 * instead of quietly returning undefined as a deep mock would.
 */
function strict<T extends object>(target: T, kind: string): T {
	return new Proxy(target, {
		get(obj, prop, receiver) {
			if (typeof prop === 'symbol' || prop in obj || prop === 'then' || prop === 'toJSON') {
				return Reflect.get(obj, prop, receiver);
			}
			throw new Error(`mocked ${kind}: ${prop} is not implemented in test/nodes/support`);
		},
	});
}

/** n8n's metadata of the workflow the node runs in. */
function workflowOf(setup: NodeSetup): { id: string; name: string; active: boolean } {
	return { id: setup.workflowId ?? 'workflow-test', name: 'Test workflow', active: true };
}

/**
 * An IExecuteFunctions for `node.execute`: n8n's context mocked, nothing of ours. `items` are
 * the input items (plain objects become { json }).
 */
export function executeContext(
	node: INodeType,
	items: Array<INodeExecutionData | IDataObject>,
	setup: NodeSetup = {},
): { ctx: IExecuteFunctions; record: ContextRecord } {
	const parameters = nodeParameters(node, setup.params ?? {});
	const onError = setup.onError ?? 'stopWorkflow';
	const n8nNode = makeNode(node, storedParameters(parameters, setup.expressions), onError);
	const read = parameterReader(parameters, setup.expressions);
	const getCredentials = credentialReader(n8nNode, setup.credentials);
	const input = returnJsonArray(items as IDataObject[]);
	const record: ContextRecord = { logs: [] };
	const ctx = {
		getNodeParameter: (name: string, itemIndex: number, ...rest: unknown[]) =>
			read(name, itemIndex, rest.length > 0, rest[0], rest[1] as { extractValue?: boolean }),
		getCredentials,
		getInputData: () => input,
		getNode: () => n8nNode,
		getWorkflow: () => workflowOf(setup),
		continueOnFail: () => onError !== 'stopWorkflow',
		logger: logger(record.logs),
		helpers: helpers(n8nNode, getCredentials),
	};
	return { ctx: strict(ctx, 'IExecuteFunctions') as unknown as IExecuteFunctions, record };
}

/** Runs `node.execute` with a mocked context; returns its outputs and what it logged. */
export async function runExecute(
	node: INodeType,
	items: Array<INodeExecutionData | IDataObject>,
	setup: NodeSetup = {},
): Promise<{ outputs: INodeExecutionData[][]; record: ContextRecord }> {
	const { ctx, record } = executeContext(node, items, setup);
	const outputs = (await node.execute!.call(ctx)) as INodeExecutionData[][];
	return { outputs, record };
}

/** Runs `node.execute` expecting it to throw; returns the error and what the node logged. */
export async function executeError(
	node: INodeType,
	items: Array<INodeExecutionData | IDataObject>,
	setup: NodeSetup = {},
): Promise<{
	error: Error & { context?: IDataObject; description?: string | null };
	record: ContextRecord;
}> {
	const { ctx, record } = executeContext(node, items, setup);
	try {
		await node.execute!.call(ctx);
	} catch (error) {
		return { error: error as Error & { context?: IDataObject }, record };
	}
	throw new Error('expected execute() to throw, it returned');
}

/** An IWebhookFunctions for one request to `node.webhook`. */
export function webhookContext(
	node: INodeType,
	request: { req: unknown; res: unknown; webhookName: string },
	setup: NodeSetup = {},
): { ctx: IWebhookFunctions; record: ContextRecord } {
	const parameters = nodeParameters(node, setup.params ?? {});
	const n8nNode = makeNode(node, storedParameters(parameters, setup.expressions), setup.onError ?? 'stopWorkflow');
	const read = parameterReader(parameters, setup.expressions);
	const getCredentials = credentialReader(n8nNode, setup.credentials);
	const record: ContextRecord = { logs: [] };
	const ctx = {
		getNodeParameter: (name: string, ...rest: unknown[]) =>
			read(name, 0, rest.length > 0, rest[0], rest[1] as { extractValue?: boolean }),
		getCredentials,
		getNode: () => n8nNode,
		getWorkflow: () => workflowOf(setup),
		getRequestObject: () => request.req,
		getResponseObject: () => request.res,
		getWebhookName: () => request.webhookName,
		logger: logger(record.logs),
		helpers: helpers(n8nNode, getCredentials),
	};
	return { ctx: strict(ctx, 'IWebhookFunctions') as unknown as IWebhookFunctions, record };
}

/**
 * A poll context for the Lead CAPI Outbox Trigger as the fault suite drives it: every platform,
 * no Client Key, `maxEvents` per poll, the credentials by name, a quiet logger.
 */
export function outboxPollContext(credentials: Record<string, IDataObject>, maxEvents: number): IPollFunctions {
	return {
		getNodeParameter: (name: string, fallback?: unknown) =>
			({ platform: 'all', maxEvents, clientKey: '' })[name] ?? fallback,
		getCredentials: async (name: string) => credentials[name],
		getNode: () => ({ name: 'Lead CAPI Outbox Trigger', type: 'leadCapiOutboxTrigger' }) as INode,
		logger: { warn: () => undefined, debug: () => undefined, info: () => undefined },
	} as unknown as IPollFunctions;
}
