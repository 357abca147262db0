// @ts-check
/**
 * A baseline build of this package, measured in the same `n8n execute` runs as the current one:
 * the package at a git ref, built and packed from a clean export of that ref (`git archive`,
 * `npm ci`, `npm run build`, `npm pack`), installed into a second n8n user folder of the same
 * n8n install. The bench alternates its Meta node with ours on fresh leads, so "within 10% of
 * the baseline" is a ratio of two figures taken side by side on the same machine in the same
 * minutes, never a figure compared with one from another day.
 *
 * The default ref is the last `main` whose senders used the core's own axios (keep-alive
 * agents, no proxy) inside n8n: issue 10 point 4 asks that going through n8n's request helper
 * (n8n's proxy settings) costs at most 10% more per item than that.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const env = require('../lib/env.js');

/** main before "n8n executor: every sender's platform HTTP goes through n8n's request helper". */
const DEFAULT_BASELINE_REF = 'f2ba011';

/**
 * @param {string} cmd @param {string[]} args @param {string} cwd
 * @returns {string} stdout
 */
function run(cmd, args, cwd) {
	const result = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
	if (result.status !== 0) {
		throw new Error(`${cmd} ${args.join(' ')} failed (exit ${result.status}): ${(result.stderr || result.stdout || '').slice(-1500)}`);
	}
	return result.stdout;
}

/**
 * The ref to measure against: `--baseline <ref>` on the command line (`none` turns it off),
 * else the default.
 * @param {string[]} argv
 * @returns {string | null}
 */
function baselineRef(argv) {
	const i = argv.indexOf('--baseline');
	const ref = i >= 0 ? argv[i + 1] : DEFAULT_BASELINE_REF;
	return !ref || ref === 'none' ? null : ref;
}

/**
 * The commit a ref names in this clone, or why it cannot be measured (a shallow clone or an
 * export without git history has no baseline to build).
 * @param {string} ref
 * @returns {{ commit: string } | { missing: string }}
 */
function resolveRef(ref) {
	const result = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: env.REPO, encoding: 'utf8' });
	const commit = result.status === 0 ? result.stdout.trim() : '';
	return commit ? { commit } : { missing: `git ref ${ref} is not in this clone (${result.error ? 'git not found' : 'shallow clone or no history'})` };
}

/**
 * Builds and packs the package at `commit` under `work`; returns the tarball.
 * @param {string} commit
 * @param {string} work
 * @param {(line: string) => void} log
 */
function packBaseline(commit, work, log) {
	const src = path.join(work, 'baseline-src');
	fs.mkdirSync(src, { recursive: true });
	log(`baseline ${commit.slice(0, 7)}: git archive → npm ci → npm run build → npm pack…`);
	const archive = spawnSync('git', ['archive', '--format=tar', commit], { cwd: env.REPO, maxBuffer: 512 * 1024 * 1024 });
	if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${String(archive.stderr).slice(-500)}`);
	const tar = spawnSync('tar', ['-x', '-C', src], { input: archive.stdout });
	if (tar.status !== 0) throw new Error(`extracting ${commit} failed: ${String(tar.stderr).slice(-500)}`);
	run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], src);
	run('npm', ['run', 'build', '--silent'], src);
	const out = path.join(work, 'baseline-pack');
	fs.mkdirSync(out, { recursive: true });
	run('npm', ['pack', '--pack-destination', out, '--silent'], src);
	const file = fs.readdirSync(out).find((f) => f.endsWith('.tgz'));
	if (!file) throw new Error(`npm pack of ${commit} wrote no .tgz`);
	fs.rmSync(src, { recursive: true, force: true });
	return path.join(out, file);
}

module.exports = { DEFAULT_BASELINE_REF, baselineRef, resolveRef, packBaseline };
