#!/usr/bin/env node
// One-off check for the README split (issue 10, item 8): every line of the old README, section
// by section, must be found in the new README, CONTRIBUTING.md or docs/**. Lines are compared
// with whitespace collapsed, heading levels ignored and the renames applied (credential type
// names, links that moved). Prints, per old heading, how many lines landed and which did not.
//   node docs/tools/split-coverage.js [old commit, default d1606b7]
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const commit = process.argv[2] || 'd1606b7';
const old = execFileSync('git', ['show', `${commit}:README.md`], { cwd: ROOT, encoding: 'utf8' });

function files(dir) {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
		const rel = `${dir}/${e.name}`;
		if (e.isDirectory()) return files(rel);
		return e.name.endsWith('.md') ? [rel] : [];
	});
}
const RENAMES = [
	['metaConversionsApi', 'leadCapiMetaApi'],
	['pinterestConversionsApi', 'leadCapiPinterestApi'],
	['tiktokEventsApi', 'leadCapiTiktokApi'],
	['microsoftConversionsApi', 'leadCapiMicrosoftApi'],
	['googleAdsConversionsOAuth2Api', 'leadCapiGoogleAdsOAuth2Api'],
	['leadCaptureWebhookApi', 'leadCapiWebhookApi'],
];
const norm = (line) => {
	let s = line.replace(/^#+\s+/, '').replace(/\s+/g, ' ').trim();
	for (const [a, b] of RENAMES) s = s.split(a).join(b);
	// links may point elsewhere now: compare the link text, not the target
	return s.replace(/\]\([^)]*\)/g, ']()');
};
const corpus = ['README.md', 'CONTRIBUTING.md', ...files('docs')]
	.map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8'))
	.join('\n')
	.split('\n')
	.map(norm);
const haystack = new Set(corpus);
const joined = corpus.join(' ');

const sections = [];
for (const line of old.split('\n')) {
	if (/^#{1,3} /.test(line)) sections.push({ heading: line, lines: [] });
	else if (line.trim() && sections.length) sections.at(-1).lines.push(line);
}
let total = 0;
let found = 0;
for (const { heading, lines } of sections) {
	const missing = lines.filter((l) => {
		const n = norm(l);
		return !haystack.has(n) && !joined.includes(n);
	});
	total += lines.length;
	found += lines.length - missing.length;
	const mark = missing.length ? 'CHANGED' : 'ok';
	console.log(`${mark.padEnd(7)} ${lines.length - missing.length}/${lines.length}  ${heading}`);
	for (const m of missing) console.log(`          - ${m.slice(0, 150)}`);
}
console.log(`\n${found}/${total} non-empty lines of the old README found verbatim (after renames).`);
