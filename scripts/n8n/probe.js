#!/usr/bin/env node
// @ts-check
/**
 * Readiness probe for an n8n install (scripts/n8n/install.sh runs it before marking a runtime
 * installed): starts `n8n start` from that folder once, with a throwaway user folder, on free
 * loopback ports, and succeeds only when n8n logs "Editor is now accessible" and answers
 * /healthz/readiness. An install that cannot start (a command missing, a module that does not
 * load) fails here, with the end of n8n's log, instead of at the user's first `npm run dev`.
 *   node scripts/n8n/probe.js <n8n install folder>
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const n8n = require('./n8n.js');

async function main() {
	const home = process.argv[2];
	if (!home) throw new Error('usage: probe.js <n8n install folder>');
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'lead-capi-n8n-probe-'));
	const logFile = path.join(userFolder, 'n8n.log');
	const t0 = Date.now();
	try {
		const env = n8n.n8nEnv(home, userFolder, await n8n.freePort());
		const server = await n8n.startServer(home, env, {
			port: await n8n.freePort(),
			logFile,
			timeoutMs: 240_000,
		});
		await server.stop();
		process.stderr.write(
			`n8n-probe: n8n started and answered /healthz/readiness in ${Date.now() - t0} ms\n`,
		);
	} catch (error) {
		const tail = fs.existsSync(logFile)
			? fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n')
			: '';
		process.stderr.write(
			`n8n-probe: ${error instanceof Error ? error.message : String(error)}\n${tail}\n`,
		);
		process.exitCode = 1;
	} finally {
		fs.rmSync(userFolder, { recursive: true, force: true });
	}
}

main();
