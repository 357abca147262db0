// @ts-check
/**
 * Before the fault suite: forget the figures of earlier runs when the whole suite runs (each
 * scenario writes its own again; a run of one file keeps the others'), and say at once what is
 * missing — redis-server (every scenario starts its own) or the built core the dispatching
 * processes run.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

/** @param {{ testPathPattern?: string, testNamePattern?: string }} globalConfig */
module.exports = async function globalSetup(globalConfig) {
	if (!globalConfig.testPathPattern && !globalConfig.testNamePattern) {
		fs.rmSync(path.join(ROOT, '.faults', 'figures'), { recursive: true, force: true });
	}
	for (const binary of ['redis-server', 'redis-cli']) {
		if (spawnSync(binary, ['--version'], { stdio: 'ignore' }).status !== 0) {
			throw new Error(
				`The fault suite starts, kills and pauses redis-server processes of its own and needs ${binary} ` +
					'(Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis).',
			);
		}
	}
	if (!fs.existsSync(path.join(ROOT, 'dist', 'shared', 'index.js'))) {
		throw new Error(
			'dist/shared/index.js is missing: run `npm run build` (npm run test:faults does)',
		);
	}
};
