#!/usr/bin/env node
// @ts-check
/**
 * RELIABILITY.md from the fault suite's own figures (.faults/figures/<scenario>.json, written by
 * each scenario of `npm run test:faults`):
 *
 *   node test/faults/reliability.js          render RELIABILITY.md from the figures of the last run
 *   node test/faults/reliability.js --check  compare the committed RELIABILITY.md with them
 *   node test/faults/reliability.js --import-e2e
 *        copy the outbox figures of the last end-to-end runs (.e2e/outbox-*-figures-<n8n>.json,
 *        written by test/e2e/outboxRestart and queue on each n8n) into test/faults/e2e-figures/
 *        (committed), then render
 *
 * The second table, "In real n8n", is rendered from test/faults/e2e-figures/: the end-to-end
 * suite runs after the fault suite in CI and needs an n8n, so its figures come in by that
 * documented step and are committed; the check holds the committed table to those files and
 * every row of it at 0 lost and 0 duplicated.
 *
 * The check (run by `npm run test:faults`, hence by CI) fails when the committed table does not
 * have the shape of the figures — the same scenarios in the same order, the same columns, the
 * same number of events per scenario — or when either shows an event lost, duplicated or marked
 * sent without an acknowledgement. Counts that depend on timing (requests, resends after a lost
 * answer, errors) may differ from run to run: those differences are listed, not failed.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const FIGURES_DIR = path.join(ROOT, '.faults', 'figures');
const TARGET = path.join(ROOT, 'RELIABILITY.md');
const BEGIN =
	'<!-- figures:begin (rendered by test/faults/reliability.js; do not edit by hand) -->';
const END = '<!-- figures:end -->';
/** The end-to-end outbox figures, committed (see --import-e2e). */
const E2E_DIR = path.join(__dirname, 'e2e-figures');
const E2E_SOURCE = path.join(ROOT, '.e2e');
const E2E_PATTERN = /^outbox-(restart|queue-drain)-figures-[\w.-]+\.json$/;
const E2E_BEGIN =
	'<!-- e2e:begin (rendered by test/faults/reliability.js from test/faults/e2e-figures; do not edit by hand) -->';
const E2E_END = '<!-- e2e:end -->';
/** @type {Array<{ header: string, key: string }>} */
const E2E_COLUMNS = [
	{ header: 'Events', key: 'events' },
	{ header: 'Sent', key: 'distinctEventIds' },
	{ header: 'Deliveries', key: 'deliveries' },
	{ header: 'Duplicates', key: 'duplicates' },
	{ header: 'Lost', key: 'lost' },
	{ header: 'Left in the outbox', key: 'outboxLeft' },
	{ header: 'Dead letters', key: 'deadLetters' },
	{ header: 'Executions re-run', key: 'rerun' },
];
const E2E_HEADER = ['Scenario', 'n8n', 'What was done', ...E2E_COLUMNS.map((c) => c.header)];

/**
 * The table's figure columns: header, key in `measured`, and whether the check holds it
 * equal (`same`), at zero (`zero`) or only reports a difference (`free`).
 * @type {Array<{ header: string, key: string, rule: 'same' | 'zero' | 'free' }>}
 */
const COLUMNS = [
	{ header: 'Events', key: 'events', rule: 'same' },
	{ header: 'Sent', key: 'accepted', rule: 'same' },
	{ header: 'Deliveries', key: 'deliveries', rule: 'free' },
	{ header: 'Duplicates', key: 'duplicates', rule: 'zero' },
	{ header: 'Lost', key: 'lost', rule: 'zero' },
	{ header: 'Resent after a lost answer', key: 'resentAfterLostAnswer', rule: 'free' },
	{ header: 'Marked sent, never acknowledged', key: 'markedSentUnacknowledged', rule: 'zero' },
	{ header: 'Held (outcome unknown)', key: 'held', rule: 'same' },
	{ header: 'Errors reported', key: 'errorsReported', rule: 'free' },
	{ header: 'Re-run sent', key: 'rerunSent', rule: 'free' },
	{ header: 'Requests', key: 'requests', rule: 'free' },
];
const HEADER = ['Scenario', 'What was done', 'Expected', ...COLUMNS.map((c) => c.header)];

/**
 * @typedef {{ id: string, order: number, scenario: string, done: string, expected: string,
 *   measured: Record<string, number>, notes?: string }} Figures
 */

/** @returns {Figures[]} */
function readFigures() {
	if (!fs.existsSync(FIGURES_DIR)) return [];
	return fs
		.readdirSync(FIGURES_DIR)
		.filter((f) => f.endsWith('.json'))
		.map((f) => JSON.parse(fs.readFileSync(path.join(FIGURES_DIR, f), 'utf8')))
		.sort((a, b) => a.order - b.order);
}

/** @param {number} n */
const num = (n) => n.toLocaleString('en-US');
/** @param {string} text */
const cell = (text) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table rows as cells (the last row: the totals). @param {Figures[]} figures */
function tableRows(figures) {
	const rows = figures.map((f) => [
		f.scenario,
		f.done,
		f.expected,
		...COLUMNS.map((c) => num(f.measured[c.key] ?? 0)),
	]);
	const total = (/** @type {string} */ key) =>
		figures.reduce((sum, f) => sum + (f.measured[key] ?? 0), 0);
	rows.push([
		`**All ${figures.length} scenarios**`,
		'',
		'',
		...COLUMNS.map((c) => `**${num(total(c.key))}**`),
	]);
	return rows;
}

/** @param {string[][]} rows */
function renderTable(rows) {
	const line = (/** @type {string[]} */ cells) => `| ${cells.map(cell).join(' | ')} |`;
	return [
		line(HEADER),
		line(HEADER.map((_, i) => (i < 3 ? '---' : '---:'))),
		...rows.map(line),
	].join('\n');
}

/** The table rows of a rendered RELIABILITY.md, as cells (header and rule left out). @param {string} text */
function parseTable(text) {
	const start = text.indexOf(BEGIN);
	const end = text.indexOf(END);
	if (start < 0 || end < start) return undefined;
	const lines = text
		.slice(start + BEGIN.length, end)
		.split('\n')
		.filter((l) => l.startsWith('|'));
	const split = (/** @type {string} */ l) =>
		l
			.slice(1, -1)
			.split(/(?<!\\)\|/)
			.map((c) => c.trim().replace(/\\\|/g, '|'));
	return { header: split(lines[0] ?? '|'), rows: lines.slice(2).map(split) };
}

function versionOf(
	/** @type {string} */ command,
	/** @type {string[]} */ args,
	/** @type {RegExp} */ pattern,
) {
	try {
		return pattern.exec(execFileSync(command, args, { encoding: 'utf8' }))?.[1] ?? 'unknown';
	} catch {
		return 'unknown';
	}
}

/** @param {Figures[]} figures */
function render(figures) {
	const template = fs.readFileSync(path.join(__dirname, 'RELIABILITY.template.md'), 'utf8');
	const machine = [
		`${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'})`,
		`Node ${process.version}`,
		`redis-server ${versionOf('redis-server', ['--version'], /v=(\S+)/)}`,
		`${new Date().toISOString().slice(0, 10)}`,
	].join(', ');
	// Figures a scenario measures beyond the columns (e.g. Redis memory), one line each.
	const notes = figures
		.filter((f) => f.notes)
		.map((f) => `- **${f.scenario}**: ${f.notes}`)
		.join('\n');
	const table = `${BEGIN}\n${renderTable(tableRows(figures))}\n\n${notes ? `${notes}\n\n` : ''}Measured by \`npm run test:faults\`: ${machine}.\n${END}`;
	return template.replace('{{table}}', table).replace('{{e2e}}', renderE2e(readE2e()));
}

/**
 * @typedef {{ id: string, order: number, scenario: string, done: string, n8n: string,
 *   details?: string } & Record<string, unknown>} E2eFigures
 */

/** @returns {E2eFigures[]} */
function readE2e() {
	if (!fs.existsSync(E2E_DIR)) return [];
	return fs
		.readdirSync(E2E_DIR)
		.filter((f) => E2E_PATTERN.test(f))
		.map((f) => JSON.parse(fs.readFileSync(path.join(E2E_DIR, f), 'utf8')))
		.sort((a, b) => a.order - b.order || String(a.n8n).localeCompare(String(b.n8n)));
}

/** @param {E2eFigures[]} figures */
function e2eRows(figures) {
	return figures.map((f) => [
		f.scenario,
		f.n8n,
		f.done,
		...E2E_COLUMNS.map((c) => num(Number(f[c.key] ?? 0))),
	]);
}

/** @param {E2eFigures[]} figures */
function renderE2e(figures) {
	const line = (/** @type {string[]} */ cells) => `| ${cells.map(cell).join(' | ')} |`;
	const details = figures
		.filter((f) => f.details)
		.map((f) => `- **${f.scenario}, n8n ${f.n8n}**: ${f.details}`)
		.join('\n');
	const table = [
		line(E2E_HEADER),
		line(E2E_HEADER.map((_, i) => (i < 3 ? '---' : '---:'))),
		...e2eRows(figures).map(line),
	].join('\n');
	return `${E2E_BEGIN}\n${table}\n${details ? `\n${details}\n` : ''}${E2E_END}`;
}

/** Problems of the committed end-to-end table against test/faults/e2e-figures. @param {string} text */
function checkE2e(text) {
	/** @type {string[]} */
	const problems = [];
	const figures = readE2e();
	for (const f of figures) {
		if (f.duplicates !== 0 || f.lost !== 0 || f.distinctEventIds !== f.events) {
			problems.push(`e2e ${f.scenario} (n8n ${f.n8n}): ${f.lost} lost, ${f.duplicates} duplicated`);
		}
	}
	const start = text.indexOf(E2E_BEGIN);
	const end = text.indexOf(E2E_END);
	const committed = start < 0 || end < start ? '' : text.slice(start, end + E2E_END.length);
	if (committed !== renderE2e(figures)) {
		problems.push(
			'the "In real n8n" table differs from test/faults/e2e-figures: run `npm run reliability` and commit RELIABILITY.md',
		);
	}
	return problems;
}

/** Copies the last end-to-end outbox figures into test/faults/e2e-figures. @returns {number} */
function importE2e() {
	if (!fs.existsSync(E2E_SOURCE)) return 0;
	fs.mkdirSync(E2E_DIR, { recursive: true });
	const files = fs.readdirSync(E2E_SOURCE).filter((f) => E2E_PATTERN.test(f));
	for (const f of files) fs.copyFileSync(path.join(E2E_SOURCE, f), path.join(E2E_DIR, f));
	return files.length;
}

/** @param {Figures[]} figures @returns {string[]} problems (the check fails on any) */
function check(figures) {
	/** @type {string[]} */
	const problems = [];
	/** @type {string[]} */
	const notes = [];
	if (figures.length === 0)
		return ['no figures in .faults/figures: run `npm run test:faults` first'];
	const committed = parseTable(fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '');
	if (!committed) return [`${path.basename(TARGET)} has no figures table between the markers`];
	problems.push(...checkE2e(fs.readFileSync(TARGET, 'utf8')));
	if (committed.header.join('|') !== HEADER.join('|')) {
		problems.push(
			`columns differ: committed "${committed.header.join(' | ')}", measured "${HEADER.join(' | ')}"`,
		);
	}
	const fresh = tableRows(figures);
	const committedNames = committed.rows.map((r) => r[0]);
	const freshNames = fresh.map((r) => r[0]);
	if (committedNames.join('\n') !== freshNames.join('\n')) {
		problems.push(
			`scenarios differ: committed [${committedNames.join('; ')}], measured [${freshNames.join('; ')}]`,
		);
	}
	const parseNumber = (/** @type {string | undefined} */ c) =>
		Number(String(c ?? '').replace(/[*,]/g, ''));
	fresh.forEach((row, i) => {
		const old = committed.rows.find((r) => r[0] === row[0]);
		COLUMNS.forEach((column, j) => {
			const at = 3 + j;
			const measured = parseNumber(row[at]);
			const shown = old ? parseNumber(old[at]) : undefined;
			if (column.rule === 'zero') {
				if (measured !== 0) problems.push(`${row[0]}: ${column.header} = ${row[at]} (must be 0)`);
				if (shown !== undefined && shown !== 0) {
					problems.push(`committed ${row[0]}: ${column.header} = ${old?.[at]} (must be 0)`);
				}
				return;
			}
			if (shown === undefined || shown === measured) return;
			const difference = `${row[0]}: ${column.header} committed ${old?.[at]}, measured ${row[at]}`;
			if (column.rule === 'same') problems.push(difference);
			// The totals row differs whenever a row does: one note per row is enough.
			else if (i < figures.length) notes.push(difference);
		});
	});
	if (notes.length) {
		console.log(
			`RELIABILITY.md: counts that depend on timing differ from the committed ones (not a failure):\n  ${notes.join('\n  ')}`,
		);
	}
	return problems;
}

function main() {
	if (process.argv.includes('--import-e2e')) {
		console.log(
			`copied ${importE2e()} end-to-end figure files from .e2e/ into test/faults/e2e-figures/`,
		);
	}
	const figures = readFigures();
	if (process.argv.includes('--check')) {
		const problems = check(figures);
		if (problems.length) {
			console.error(
				`RELIABILITY.md does not match the fault suite's figures:\n  ${problems.join('\n  ')}\n` +
					'Run `npm run test:faults`, then `npm run reliability`, and commit RELIABILITY.md.',
			);
			process.exit(1);
		}
		console.log(
			`RELIABILITY.md matches the figures of ${figures.length} scenarios and ${readE2e().length} end-to-end runs: 0 lost, 0 duplicated.`,
		);
		return;
	}
	if (figures.length === 0) {
		console.error('no figures in .faults/figures: run `npm run test:faults` first');
		process.exit(1);
	}
	// A run of one file leaves the other scenarios' figures out: do not render half a table.
	const committed = parseTable(fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '');
	const measuredNames = new Set(figures.map((f) => f.scenario));
	const missing = (committed?.rows ?? []).slice(0, -1).filter((r) => !measuredNames.has(r[0]));
	if (missing.length && !process.argv.includes('--partial')) {
		console.error(
			`no figures for ${missing.map((r) => r[0]).join('; ')}: run the whole suite (npm run test:faults), or pass --partial`,
		);
		process.exit(1);
	}
	fs.writeFileSync(TARGET, render(figures));
	console.log(`wrote ${path.relative(ROOT, TARGET)} from ${figures.length} scenarios`);
}

main();
