import type Redis from 'ioredis';
import { redactForLog } from '../../shared/captureLog';
import type { LeadRecord } from '../../shared/types';

const WORK_DOMAINS = ['acme.com', 'globex.io', 'initech.co.uk', 'umbrella.de'];
export const FREE_DOMAINS = ['gmail.com', 'yahoo.com', 'outlook.com'];
const PAGES = ['/pricing', '/pricing/enterprise', '/blog/post-1', '/contact', '/'];

export interface SeededCapture {
	at: number;
	record: LeadRecord;
}

/**
 * A deterministic week of captures as the trigger would log them: one every `everyMinutes`,
 * newest first ending `now`; a third partial, emails from work and free-mail domains, pages
 * from the site's pricing, blog and contact pages, some with phone numbers.
 */
export function captureWeek(now: number, count: number, days = 7): SeededCapture[] {
	const span = days * 86_400_000 - 60_000;
	return Array.from({ length: count }, (_, i) => {
		const at = Math.round(now - 60_000 - (i * span) / count);
		const domain = i % 5 < 2 ? FREE_DOMAINS[i % FREE_DOMAINS.length] : WORK_DOMAINS[i % WORK_DOMAINS.length];
		const record: LeadRecord = {
			record_id: `cap_${i}`,
			state: i % 3 === 0 ? 'partial' : 'lead',
			occurred_at: new Date(at).toISOString(),
			source: {
				kind: 'script',
				form_id: i % 4 === 0 ? 'demo-request' : 'newsletter',
				page_url: `https://www.example.com${PAGES[Math.floor(i / 5) % PAGES.length]}?utm_source=${i % 2 ? 'fb' : 'google'}`,
			},
			contact: {
				email: `person${i}@${domain}`,
				...(i % 2 ? { phone: '+1 415 555 2671' } : {}),
				first_name: 'Test',
				country: i % 6 === 0 ? 'DE' : 'US',
			},
			attributes: { utm_source: i % 2 ? 'fb' : 'google' },
		};
		return { at, record };
	});
}

/** Writes captures into a capture-log stream with their historical stream ids (oldest first). */
export async function seedCaptureLog(admin: Redis, key: string, captures: SeededCapture[]): Promise<void> {
	const pipeline = admin.pipeline();
	const sorted = [...captures].sort((a, b) => a.at - b.at);
	let lastMs = 0;
	let seq = 0;
	for (const { at, record } of sorted) {
		seq = at === lastMs ? seq + 1 : 0;
		lastMs = at;
		pipeline.xadd(key, `${at}-${seq}`, 'r', JSON.stringify(redactForLog(record)));
	}
	await pipeline.exec();
}
