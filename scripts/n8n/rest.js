// @ts-check
/**
 * Drives a running n8n through the REST API its editor uses (the owner's session cookie): what
 * the end-to-end suite does instead of one n8n CLI start (~5 s on 1.x, ~10 s on 2.x) per import,
 * activation or run. Checked on n8n 1.123.81 and 2.41.1, which differ here only in:
 *  - `POST /rest/workflows` drops a client-given id in 1.x (2.x keeps it): callers get the id n8n
 *    chose and map their own ids to it (test/e2e/n8n.ts does);
 *  - 2.x publishes an activated workflow asynchronously (publication-status, see
 *    n8n.js waitForActiveWorkflows); 1.x has registered its webhooks when activate answers;
 *  - a manual run: 1.x wants the workflow in the body (`workflowData`), 2.x reads it from its
 *    database and strips unknown keys, so the body carries both.
 * The same in both: /rest/credentials (create, test, delete), /rest/workflows/:id/activate and
 * /deactivate ({ versionId }), /archive then DELETE, /rest/executions/:id (run data `flatted`).
 */
const path = require('node:path');

/** @typedef {{ status: number, body: any, text: string }} RestAnswer */

/**
 * A REST client for one n8n and one session.
 * @param {string} baseUrl
 * @param {string} cookie the owner's session (n8n.js ownerSession)
 */
function restClient(baseUrl, cookie) {
	/**
	 * @param {string} method
	 * @param {string} restPath
	 * @param {unknown} [body]
	 * @returns {Promise<RestAnswer>}
	 */
	const call = async (method, restPath, body) => {
		// n8n answers 503 "Database is not ready!" while its database ping (every 2 s, 5 s timeout)
		// waits behind a busy pool (queue mode under load): the editor's user would try again.
		const deadline = Date.now() + 30_000;
		for (;;) {
			const answer = await callOnce(method, restPath, body);
			if (answer.status !== 503 || !/Database is not ready/.test(answer.text) || Date.now() > deadline) return answer;
			await new Promise((r) => setTimeout(r, 500));
		}
	};
	/**
	 * @param {string} method
	 * @param {string} restPath
	 * @param {unknown} [body]
	 * @returns {Promise<RestAnswer>}
	 */
	const callOnce = async (method, restPath, body) => {
		const res = await fetch(`${baseUrl}/rest${restPath}`, {
			method,
			headers: { 'content-type': 'application/json', cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		let parsed;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = text;
		}
		return { status: res.status, body: parsed, text };
	};
	/**
	 * The answer's `data`, or an error naming the call and n8n's message.
	 * @param {string} method @param {string} restPath @param {unknown} [body]
	 */
	const ok = async (method, restPath, body) => {
		const answer = await call(method, restPath, body);
		if (answer.status >= 400) {
			const message = typeof answer.body === 'object' && answer.body?.message ? answer.body.message : answer.text;
			throw new Error(`${method} /rest${restPath}: HTTP ${answer.status} ${String(message).slice(0, 2000)}`);
		}
		return answer.body && typeof answer.body === 'object' && 'data' in answer.body ? answer.body.data : answer.body;
	};
	return { baseUrl, cookie, call, ok };
}

/** @typedef {ReturnType<typeof restClient>} RestClient */

/**
 * Creates a credential (data in clear, as `import:credentials` takes it); returns n8n's id.
 * @param {RestClient} rest
 * @param {{ name: string, type: string, data: Record<string, unknown> }} credential
 * @returns {Promise<string>}
 */
async function createCredential(rest, credential) {
	const created = await rest.ok('POST', '/credentials', {
		name: credential.name,
		type: credential.type,
		data: credential.data,
	});
	return String(created.id);
}

/**
 * Creates a workflow (nodes, connections, settings as exported); returns its id and version.
 * @param {RestClient} rest
 * @param {{ name: string, nodes: unknown[], connections: unknown, settings?: unknown, staticData?: unknown, pinData?: unknown }} workflow
 * @returns {Promise<{ id: string, versionId: string }>}
 */
async function createWorkflow(rest, workflow) {
	const created = await rest.ok('POST', '/workflows', {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings ?? { executionOrder: 'v1' },
		...(workflow.staticData ? { staticData: workflow.staticData } : {}),
		...(workflow.pinData ? { pinData: workflow.pinData } : {}),
		active: false,
	});
	return { id: String(created.id), versionId: String(created.versionId) };
}

/**
 * Activates a workflow (its webhooks and pollers go live); rejects with n8n's reason when n8n
 * refuses (a trigger that cannot start, a webhook path in use).
 * @param {RestClient} rest @param {string} id @param {string} versionId
 */
async function activateWorkflow(rest, id, versionId) {
	await rest.ok('POST', `/workflows/${id}/activate`, { versionId });
}

/**
 * Deactivates, archives and deletes a workflow (its executions go with it). Missing: no error.
 * @param {RestClient} rest @param {string} id
 */
async function deleteWorkflow(rest, id) {
	const current = await rest.call('GET', `/workflows/${id}`);
	if (current.status === 404) return;
	const workflow = current.body?.data ?? {};
	if (workflow.active || workflow.activeVersionId) await rest.ok('POST', `/workflows/${id}/deactivate`, {});
	// 2.x unpublishes asynchronously: archive and delete answer 409 "still being unpublished" for a moment.
	if (!workflow.isArchived) await whileUnpublishing(() => rest.ok('POST', `/workflows/${id}/archive`, {}));
	await whileUnpublishing(() => rest.ok('DELETE', `/workflows/${id}`));
}

/**
 * Retries a call n8n 2.x refuses while a workflow is still being unpublished (up to 30 s).
 * @template T @param {() => Promise<T>} call @returns {Promise<T>}
 */
async function whileUnpublishing(call) {
	const deadline = Date.now() + 30_000;
	for (;;) {
		try {
			return await call();
		} catch (error) {
			if (!/HTTP 409 .*still being unpublished/.test(String(error)) || Date.now() > deadline) throw error;
			await new Promise((r) => setTimeout(r, 200));
		}
	}
}

/** @param {RestClient} rest @param {string} id */
async function deleteCredential(rest, id) {
	const answer = await rest.call('DELETE', `/credentials/${id}`);
	if (answer.status >= 400 && answer.status !== 404) {
		throw new Error(`DELETE /rest/credentials/${id}: HTTP ${answer.status} ${answer.text.slice(0, 500)}`);
	}
}

/**
 * Runs a workflow from its Manual Trigger, as the editor's "Execute workflow" does, and waits for
 * the execution to finish; returns the run in the shape `n8n execute --rawOutput` prints
 * (status, data.resultData.runData, …).
 * @param {RestClient} rest
 * @param {string} home the n8n install (for its `flatted`)
 * @param {string} id
 * @param {{ timeoutMs?: number }} [options]
 */
async function runManually(rest, home, id, options = {}) {
	const workflow = await rest.ok('GET', `/workflows/${id}`);
	const trigger = workflow.nodes.find(
		(/** @type {{ type: string }} */ n) => n.type === 'n8n-nodes-base.manualTrigger',
	);
	if (!trigger) throw new Error(`workflow ${id} (${workflow.name}) has no Manual Trigger`);
	const started = await rest.ok('POST', `/workflows/${id}/run`, {
		workflowData: workflow,
		triggerToStartFrom: { name: trigger.name },
	});
	if (!started?.executionId) throw new Error(`run of ${id} started no execution: ${JSON.stringify(started)}`);
	return await finishedExecution(rest, home, String(started.executionId), options.timeoutMs ?? 300_000);
}

/**
 * Polls an execution until it has finished; returns it with its run data decoded.
 * @param {RestClient} rest @param {string} home @param {string} executionId @param {number} timeoutMs
 */
async function finishedExecution(rest, home, executionId, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	let wait = 50;
	for (;;) {
		const answer = await rest.call('GET', `/executions/${executionId}`);
		const execution = answer.body?.data;
		// 1.x answers 404 for a moment until the manual run has been saved.
		const finished = answer.status === 200 && execution && !['new', 'running', 'waiting'].includes(execution.status);
		// The status can be saved a moment before the run data.
		if (finished && execution.data) {
			const data = typeof execution.data === 'string' ? flatted(home).parse(execution.data) : execution.data;
			if (data?.resultData) return { ...execution, data, status: execution.status };
		}
		if (answer.status >= 400 && answer.status !== 404) {
			throw new Error(`GET /rest/executions/${executionId}: HTTP ${answer.status} ${answer.text.slice(0, 500)}`);
		}
		if (Date.now() > deadline) {
			throw new Error(`execution ${executionId} not finished after ${timeoutMs} ms: ${answer.text.slice(0, 1000)}`);
		}
		await new Promise((r) => setTimeout(r, wait));
		wait = Math.min(wait * 2, 250);
	}
}

/** n8n's own `flatted` (execution data is stored with it). @param {string} home */
function flatted(home) {
	return require(require.resolve('flatted', { paths: [path.join(home, 'node_modules', 'n8n')] }));
}

module.exports = {
	restClient,
	createCredential,
	createWorkflow,
	activateWorkflow,
	deleteWorkflow,
	deleteCredential,
	runManually,
	finishedExecution,
};
