import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const NPM_CHROMIUM = '@sparticuz/chromium';

interface ChromiumChoice {
	executablePath: string;
	/** Where it came from, for the one line the browser tests print. */
	source: string;
	/** Environment of the browser process (the npm build brings its own NSS libraries). */
	env?: Record<string, string | undefined>;
}

/**
 * The browser the tests use: CHROMIUM_PATH if set, else the system's /usr/bin/chromium if
 * present, else the Chromium inside the devDependency @sparticuz/chromium (no download, no
 * system package: `npm ci` is all it needs). Chosen once per test file.
 */
async function chooseChromium(): Promise<ChromiumChoice> {
	const fromEnv = process.env.CHROMIUM_PATH;
	if (fromEnv) {
		if (!fs.existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv}: no such file.`);
		return { executablePath: fromEnv, source: 'CHROMIUM_PATH' };
	}
	if (fs.existsSync(SYSTEM_CHROMIUM)) {
		return { executablePath: SYSTEM_CHROMIUM, source: 'system Chromium' };
	}
	return npmChromium();
}

/**
 * @sparticuz/chromium ships a brotli-compressed x86-64 Linux headless Chromium and the NSS
 * libraries it links against. They are unpacked once per package version into
 * node_modules/.cache/lead-capi-chromium/<version>/ (so `npm ci` starts over) and the browser
 * runs with those libraries first on LD_LIBRARY_PATH: it needs only glibc 2.34+ from the system.
 */
async function npmChromium(): Promise<ChromiumChoice> {
	if (process.platform !== 'linux' || process.arch !== 'x64') {
		throw new Error(
			`No Chromium: ${NPM_CHROMIUM} has an x86-64 Linux build only, this is ` +
				`${process.platform}/${process.arch}. Install Chromium and set CHROMIUM_PATH.`,
		);
	}
	const entry = require.resolve(NPM_CHROMIUM); // <package>/build/index.js
	const pkgDir = path.resolve(path.dirname(entry), '..');
	const { version } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
	const dir = path.resolve(pkgDir, '../../.cache/lead-capi-chromium', String(version));
	if (!fs.existsSync(dir)) await unpack(entry, path.join(pkgDir, 'bin'), dir);
	const libs = [path.join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH];
	return {
		executablePath: path.join(dir, 'chromium'),
		source: `npm ${NPM_CHROMIUM}@${version}`,
		env: { ...process.env, LD_LIBRARY_PATH: libs.filter(Boolean).join(':') },
	};
}

/**
 * The package is an ES module, which Jest's CommonJS runtime cannot load: its own
 * executablePath() and inflate() run in a child Node process, unpacking into os.tmpdir(), which
 * is pointed at a fresh staging directory. The staging directory becomes `dir` by one rename,
 * so `dir` exists only complete (a concurrent run that loses the rename uses the winner's).
 */
const UNPACK = `
import { pathToFileURL } from 'node:url';
const [entry, bin] = process.argv.slice(1);
const { default: chromium, inflate } = await import(pathToFileURL(entry).href);
const [executable, nss] = await Promise.all([
	chromium.executablePath(bin),
	inflate(bin + '/al2023.tar.br'),
]);
process.stdout.write(JSON.stringify({ executable, nss }));
`;

async function unpack(entry: string, bin: string, dir: string): Promise<void> {
	fs.mkdirSync(path.dirname(dir), { recursive: true });
	const staging = fs.mkdtempSync(`${dir}.partial-`);
	try {
		const { stdout } = await promisify(execFile)(
			process.execPath,
			['--input-type=module', '-e', UNPACK, '--', entry, bin],
			{ env: { ...process.env, TMPDIR: staging } },
		);
		const got = JSON.parse(stdout) as { executable: string; nss: string };
		if (
			got.executable !== path.join(staging, 'chromium') ||
			got.nss !== path.join(staging, 'al2023')
		) {
			throw new Error(`${NPM_CHROMIUM} unpacked to an unexpected place: ${stdout}`);
		}
		fs.renameSync(staging, dir);
	} catch (err) {
		fs.rmSync(staging, { recursive: true, force: true });
		if (!fs.existsSync(dir)) throw err;
	}
}

let choice: Promise<ChromiumChoice> | undefined;
let announced = false;

/**
 * Headless Chromium with the flags this machine needs (no background connections to Google's
 * hosts, no QUIC, no sandbox as root). Playwright gives every launch a fresh, empty profile
 * (its own temporary --user-data-dir) and every context its own cookies and storage.
 */
export async function launchChromium(): Promise<Browser> {
	choice ??= chooseChromium();
	const { executablePath, source, env } = await choice;
	const browser = await chromium.launch({
		executablePath,
		env,
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
	if (!announced) {
		announced = true;
		process.stderr.write(
			`browser tests use Chromium ${browser.version()} (${source}: ${executablePath})\n`,
		);
	}
	return browser;
}

/** Polls `probe` until it returns something truthy, or fails after `ms` saying what it waited for. */
export async function waitFor<T>(
	probe: () => T | undefined | null | false,
	ms: number,
	what: string,
): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const v = probe();
		if (v) return v;
		if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
