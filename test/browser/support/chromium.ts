import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium (never a downloaded browser); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Headless Chromium with the flags this machine needs (no background connections to Google's
 * hosts, no QUIC, no sandbox as root). Playwright gives every launch a fresh, empty profile
 * (its own temporary --user-data-dir) and every context its own cookies and storage.
 */
export async function launchChromium(): Promise<Browser> {
	if (!fs.existsSync(CHROMIUM_PATH)) {
		throw new Error(
			`No Chromium at ${CHROMIUM_PATH}. Install Debian's (apt-get install chromium) or set CHROMIUM_PATH.`,
		);
	}
	return chromium.launch({
		executablePath: CHROMIUM_PATH,
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
