// @ts-check
/**
 * A dispatching OS process of its own, for the fault suite: the built core (dist/shared, as
 * `npm run build` makes it), a Redis dedup store on its own connection, the Meta adapter and a
 * Transport — what one n8n worker runs for a Meta Conversions node. Forked by
 * test/support/dispatcherProcess.ts with one JSON argument (see `Setup`), then driven over IPC:
 *
 *   { type: 'prepare', items, options } → { type: 'prepared' }  (items held, nothing sent yet)
 *   { type: 'go' }                      → { type: 'done', summary } once dispatch() returned
 *
 * so that several processes can be made to start their dispatches at the same moment.
 */
const path = require('node:path');

const core = require(path.join(__dirname, '..', '..', 'dist', 'shared', 'index.js'));

/**
 * @typedef {{ redisUrl: string, standInUrl: string, token: string, pixelId: string,
 *   keyPrefix: string, retry?: object, commandTimeoutMs?: number }} Setup
 * @typedef {{ claimTtlMs?: number, inFlightWaitMs?: number, concurrency?: number, afterUnknownOutcome?: 'auto' | 'hold' | 'resend' }} Options
 */

/** @type {Setup} */
const setup = JSON.parse(process.argv[2] || '{}');
const client = core.createRedisClient({
	url: setup.redisUrl,
	commandTimeoutMs: setup.commandTimeoutMs,
});
const store = new core.RedisDedupStore(client, { description: `Redis ${setup.redisUrl}` });
const transport = new core.Transport({ retry: setup.retry });
const config = {
	pixelId: setup.pixelId,
	accessToken: setup.token,
	baseUrl: setup.standInUrl,
	actionSource: 'auto',
	limitedDataUse: 'auto',
};

/**
 * What the parent needs of the results: counts by status and by dedup state, and each error
 * and warning message with how often it came.
 * @param {Array<{ status: string, dedup?: string, error?: string, retryable?: boolean, warnings: string[] }>} results
 */
function summarize(results) {
	/** @type {Record<string, Record<string, number>>} */
	const summary = { status: {}, dedup: {}, errors: {}, warnings: {} };
	/** @param {Record<string, number>} into @param {string} key */
	const add = (into, key) => {
		into[key] = (into[key] ?? 0) + 1;
	};
	for (const r of results) {
		add(summary.status, r.status);
		add(summary.dedup, r.dedup ?? 'none');
		if (r.status === 'failed')
			add(summary.errors, `${r.retryable ? 'retryable' : 'final'}: ${r.error}`);
		for (const w of r.warnings) add(summary.warnings, w);
	}
	return summary;
}

/** @type {{ items: unknown[], options: Options } | undefined} */
let prepared;

/** @param {any} message */
async function onMessage(message) {
	if (message.type === 'prepare') {
		prepared = { items: message.items, options: message.options || {} };
		process.send?.({ type: 'prepared' });
	} else if (message.type === 'go' && prepared) {
		const { items, options } = prepared;
		prepared = undefined;
		const results = await core.dispatch(items, {
			adapter: core.metaAdapter,
			config,
			transport,
			store,
			keyPrefix: setup.keyPrefix,
			...options,
		});
		process.send?.({ type: 'done', summary: summarize(results) });
	} else if (message.type === 'exit') {
		client.disconnect();
		process.exit(0);
	}
}

core
	.waitForReady(client, 10_000)
	.then(() => {
		process.on('message', (message) => {
			onMessage(message).catch((error) => {
				process.send?.({
					type: 'error',
					message: String(error && error.stack ? error.stack : error),
				});
			});
		});
		process.send?.({ type: 'ready' });
	})
	.catch((/** @type {unknown} */ error) => {
		console.error(`dispatcher: Redis not ready: ${String(error)}`);
		process.exit(1);
	});
