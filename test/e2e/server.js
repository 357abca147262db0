// @ts-check
/**
 * A real n8n for the end-to-end suite: its own user folder and SQLite database, the packed
 * package installed as n8n's community-package installer would, `n8n start` on a free loopback
 * port, the owner account set up once, driven through the REST API (scripts/n8n/rest.js).
 * The suite's runner (run.js) starts one per n8n major and every test file shares it; a test file
 * that needs an n8n of its own (a restart, another package beside ours, a proxy environment, the
 * whole log at debug level) starts one through the same function (n8n.ts).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('../../scripts/n8n/n8n.js');
const rest = require('../../scripts/n8n/rest.js');

const REPO = path.resolve(__dirname, '..', '..');

/** Our OAuth2 credential types (their token URL is pinned in n8n 2.x: see oauthRouter.js). */
function ourOAuthTypes() {
	const pkg = require(path.join(REPO, 'package.json'));
	return pkg.n8n.credentials
		.map((/** @type {string} */ file) => path.basename(file).split('.')[0])
		.filter((/** @type {string} */ name) => /OAuth2Api$/.test(name))
		.map((/** @type {string} */ name) => name.charAt(0).toLowerCase() + name.slice(1));
}

/**
 * @typedef {{
 *   home: string,
 *   userFolder: string,
 *   logFile: string,
 *   env: Record<string, string>,
 *   baseUrl: string,
 *   cookie: string,
 *   client: import('../../scripts/n8n/rest.js').RestClient,
 *   oauthRouter: string | null,
 *   child: import('node:child_process').ChildProcess,
 *   stop: () => Promise<void>,
 * }} TestServer
 */

/**
 * A user folder with the package installed and the environment of its n8n processes.
 * @param {{ home: string, tgz: string, oauthRouter?: string | null, env?: Record<string, string>, prefix?: string }} options
 */
async function prepareUserFolder(options) {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), options.prefix ?? 'lead-capi-e2e-'));
	const env = n8n.n8nEnv(options.home, userFolder, await n8n.freePort(), options.env ?? {});
	n8n.installPackage(userFolder, options.tgz);
	if (env.CREDENTIALS_OVERWRITE_DATA_FILE && options.oauthRouter) {
		const overwrites = Object.fromEntries(
			ourOAuthTypes().map((/** @type {string} */ type) => [type, { accessTokenUrl: `${options.oauthRouter}/token` }]),
		);
		fs.writeFileSync(env.CREDENTIALS_OVERWRITE_DATA_FILE, JSON.stringify(overwrites, null, 2));
	}
	return { userFolder, env };
}

/**
 * Starts n8n on a prepared user folder (again after a stop or a kill: the same database).
 * @param {{ home: string, userFolder: string, env: Record<string, string>, oauthRouter?: string | null }} options
 * @returns {Promise<TestServer>}
 */
async function startTestServer(options) {
	const logFile = path.join(options.userFolder, 'n8n.log');
	const server = await n8n.startServer(options.home, options.env, { port: await n8n.freePort(), logFile });
	let cookie;
	try {
		cookie = await n8n.ownerSession(server.baseUrl, n8n.LOCAL_OWNER);
	} catch (error) {
		await server.stop();
		throw error;
	}
	return {
		home: options.home,
		userFolder: options.userFolder,
		logFile,
		env: options.env,
		baseUrl: server.baseUrl,
		cookie,
		client: rest.restClient(server.baseUrl, cookie),
		oauthRouter: options.oauthRouter ?? null,
		child: server.child,
		stop: () => server.stop(),
	};
}

/** What the runner hands the test files about the shared n8n (JSON in LEAD_CAPI_E2E_SHARED). */
/** @param {TestServer} server */
function describeServer(server) {
	return {
		home: server.home,
		userFolder: server.userFolder,
		logFile: server.logFile,
		baseUrl: server.baseUrl,
		cookie: server.cookie,
		oauthRouter: server.oauthRouter,
		pid: server.child.pid,
	};
}

module.exports = { prepareUserFolder, startTestServer, describeServer, ourOAuthTypes, REPO };
