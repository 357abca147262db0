import fs from 'node:fs';
import path from 'node:path';
import type { ICredentialType, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { PLATFORM_ADAPTERS } from '../../shared/platforms';
import { LEAD_STATES } from '../../shared/types';

/**
 * The README and docs/ say what the code does: node names and types, operations and their
 * defaults, parameter defaults, credential type names, the Node.js and n8n versions, the example
 * templates, the event-name table and every relative link. Each check reads the built node
 * descriptions (the classes n8n loads) or the files the scripts use, never a copy.
 */
const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
	engines: { node: string };
	n8n: { nodes: string[]; credentials: string[] };
};

function docFiles(dir = 'docs'): string[] {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const rel = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return docFiles(rel);
		return entry.name.endsWith('.md') ? [rel] : [];
	});
}
const DOCS = ['README.md', 'CONTRIBUTING.md', ...docFiles()];
const README = read('README.md');

/** `dist/nodes/X/X.node.js` → the TypeScript class n8n builds it from. */
function loadClass<T>(distPath: string): T {
	const source = path.join(ROOT, distPath.replace(/^dist\//, '').replace(/\.js$/, ''));
	const exported = Object.values(require(source) as Record<string, new () => T>);
	return new exported[0]();
}
const NODES = new Map(
	pkg.n8n.nodes.map((file) => {
		const { description } = loadClass<{ description: INodeTypeDescription }>(file);
		return [description.name, description];
	}),
);
const CREDENTIALS = new Map(
	pkg.n8n.credentials.map((file) => {
		const credential = loadClass<ICredentialType>(file);
		return [credential.name, credential];
	}),
);

/** The credential a documented type name stands for, and the display name it must have. */
function credentialFor(name: string): { displayName: string; codeName: string } | undefined {
	const inCode = CREDENTIALS.get(name);
	return inCode && { displayName: inCode.displayName, codeName: name };
}

/** Rows of the Markdown tables in `text`, each as its trimmed cells. */
function tableRows(text: string): string[][] {
	return text
		.split('\n')
		.filter((line) => line.startsWith('|') && !/^\|[-:| ]+\|$/.test(line))
		.map((line) =>
			line
				.slice(1, -1)
				.split(/(?<!\\)\|/)
				.map((cell) => cell.trim()),
		);
}

const unbold = (text: string) => text.replace(/\*\*/g, '').trim();

/** The text of the README section `## title`, up to the next `## `. */
function section(title: string): string {
	const start = README.indexOf(`\n## ${title}\n`);
	expect(start).toBeGreaterThan(-1);
	const end = README.indexOf('\n## ', start + 1);
	return README.slice(start, end === -1 ? undefined : end);
}

/** "**A** (default), B, C" → { names: [A, B, C], defaultName: A } */
function optionList(cell: string): { names: string[]; defaultName?: string } {
	const entries = cell.split(/,\s+/).map((entry) => unbold(entry));
	const marked = entries.find((entry) => entry.endsWith('(default)'));
	return {
		names: entries.map((entry) => entry.replace(/\s*\(default\)$/, '')),
		defaultName: marked?.replace(/\s*\(default\)$/, ''),
	};
}

function optionName(property: INodeProperties, value: unknown): string | undefined {
	const option = (property.options ?? []).find((o) => 'value' in o && o.value === value);
	return option?.name;
}

/** Every property of a node or credential, collections and fixed collections included. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((option) => {
			if ('displayName' in option && 'type' in option) return allProperties([option]);
			if ('values' in option) return allProperties(option.values);
			return [];
		});
		return [property, ...nested];
	});
}

describe('README: Operations table', () => {
	const rows = tableRows(section('Operations')).filter(
		(cells) => cells.length === 3 && cells[1] !== 'Type',
	);

	it('lists every node of the package, by its display name and type', () => {
		const listed = rows.map((cells) => [unbold(cells[0]), cells[1].slice(1, -1)]);
		const inCode = [...NODES.values()].map((d) => [d.displayName, d.name]);
		expect(listed.sort()).toEqual(inCode.sort());
	});

	it.each(rows.map((cells) => [cells[1], cells[2]]))(
		'%s: the operations and the default are the node’s own',
		(type, cell) => {
			const description = NODES.get(type.slice(1, -1))!;
			const [, parameter, list] = /^([\w ]+): (.+)$/.exec(cell) ?? [];
			const property = description.properties.find(
				(p) => p.displayName === parameter && p.type === 'options',
			);
			expect(property).toBeDefined();
			const { names, defaultName } = optionList(list);
			const inCode = (property!.options ?? []).map((o) => o.name);
			expect([...names].sort()).toEqual([...inCode].sort());
			expect(defaultName).toBe(optionName(property!, property!.default));
		},
	);
});

describe('docs/nodes: parameter defaults', () => {
	const pages = docFiles('docs/nodes').map((file) => {
		const type = /^# .*\(`(\w+)`\)/.exec(read(file))?.[1];
		return [file, type] as const;
	});

	it('has one page per node, titled with its type', () => {
		expect(pages.map(([, type]) => type).sort()).toEqual([...NODES.keys()].sort());
	});

	it.each(pages)(
		'%s: every "(default)" in a parameter table is the node’s default',
		(file, type) => {
			const description = NODES.get(type!)!;
			const rows = tableRows(read(file)).filter((cells) => /\(default\)/.test(cells[1] ?? ''));
			for (const [parameter, values] of rows) {
				const property = description.properties.find(
					(p) => p.displayName === parameter && p.type === 'options',
				);
				const { defaultName } = optionList(values);
				expect([parameter, defaultName]).toEqual([
					parameter,
					property && optionName(property, property.default),
				]);
			}
		},
	);

	/** Every "**Field** (default x)" / "**Field**, default `x`" of a page naming a real field. */
	function quotedDefaults(file: string, type: string) {
		const description = NODES.get(type)!;
		const credentialProperties = (description.credentials ?? []).flatMap(
			(c) => CREDENTIALS.get(credentialFor(c.name)?.codeName ?? c.name)?.properties ?? [],
		);
		const properties = allProperties([...description.properties, ...credentialProperties]);
		const quoted = [...read(file).matchAll(/\*\*([^*]+)\*\*,?\s+\(?default\s+`?([\w.:/-]+)`?/g)];
		return quoted.flatMap(([, field, value]) => {
			// Fields of that name (two credentials of one node may both have a Base URL); none for a
			// phrase that names no field or a list default ("**Platforms** (default all five)").
			const defaults = properties
				.filter((p) => p.displayName === field && typeof p.default !== 'object')
				.map((p) => String(p.default));
			if (defaults.length === 0) return [];
			const inCode = defaults.includes(value) ? value : defaults.join(' or ');
			return [{ field, quoted: value, inCode }];
		});
	}

	it.each(pages)('%s: every "**Field** (default x)" is the field’s default', (file, type) => {
		for (const { field, quoted, inCode } of quotedDefaults(file, type!)) {
			expect([field, quoted]).toEqual([field, inCode]);
		}
	});

	it('checks the quoted defaults of real fields (the check above is not empty)', () => {
		const fields = pages.flatMap(([file, type]) => quotedDefaults(file, type!).map((q) => q.field));
		expect(fields).toEqual(expect.arrayContaining(['Path', 'Dedup TTL (Days)', 'API Version']));
	});

	it('Lead Rule Filter: the send modes and the default are the node’s own', () => {
		const sendMode = NODES.get('leadRuleFilter')!.properties.find((p) => p.name === 'sendMode')!;
		const rows = tableRows(read('docs/nodes/lead-rule-filter.md')).filter((cells) =>
			/^\*\*[^*]+\*\* \(`\w+`/.test(cells[0]),
		);
		const listed = rows.map((cells) => /^\*\*([^*]+)\*\* \(`(\w+)`(, default)?\)/.exec(cells[0])!);
		expect(listed.map((m) => [m[1], m[2]]).sort()).toEqual(
			(sendMode.options ?? []).map((o) => [o.name, 'value' in o ? o.value : undefined]).sort(),
		);
		expect(listed.filter((m) => m[3]).map((m) => m[2])).toEqual([sendMode.default]);
	});
});

describe('README: Credentials table', () => {
	const rows = tableRows(section('Credentials')).filter((cells) => cells[1] !== 'Type');

	it.each(rows.map((cells) => [cells[1], unbold(cells[0])]))(
		'%s exists in the code with display name %s',
		(type, displayName) => {
			expect(credentialFor(type.slice(1, -1))?.displayName).toBe(displayName);
		},
	);

	it('lists every credential type of the package', () => {
		const listed = rows.map((cells) => credentialFor(cells[1].slice(1, -1))?.codeName);
		expect(listed.sort()).toEqual([...CREDENTIALS.keys()].sort());
	});

	it.each(rows.map((cells) => [cells[1], cells[2]]))('%s is used by: %s', (type, usedBy) => {
		const codeName = credentialFor(type.slice(1, -1))?.codeName;
		const users = [...NODES.values()]
			.filter((d) => (d.credentials ?? []).some((c) => c.name === codeName))
			.map((d) => d.displayName);
		const listed =
			usedBy === 'all nodes' ? [...NODES.values()].map((d) => d.displayName) : usedBy.split(', ');
		expect(listed.sort()).toEqual(users.sort());
	});

	it('no page names a credential type that does not exist', () => {
		for (const file of DOCS) {
			for (const [, name] of read(file).matchAll(
				/`((?:leadCapi|[a-z]+Conversions|tiktok)\w*Api)`/g,
			)) {
				expect([file, name, credentialFor(name) !== undefined]).toEqual([file, name, true]);
			}
		}
	});
});

describe('credential names on every page', () => {
	it.each(DOCS.map((file) => [file]))('%s: "**Display Name** (`type`)" is the code’s', (file) => {
		for (const [, displayName, type] of read(file).matchAll(/\*\*([^*]+)\*\*\s+\(`(\w+Api)`/g)) {
			expect([file, type, credentialFor(type)?.displayName]).toEqual([file, type, displayName]);
		}
	});
});

describe('versions quoted in the docs', () => {
	const install = read('scripts/n8n/install.sh');
	const n8n1 = /^N8N1_VERSION=([\d.]+)$/m.exec(install)![1];
	const n8n2 = /^N8N2_VERSION=([\d.]+)$/m.exec(install)![1];
	const node24 = /LEAD_CAPI_NODE_VERSION:-([\d.]+)/.exec(read('scripts/n8n/install-node.sh'))![1];
	const engine = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
	const text = DOCS.map((file) => read(file)).join('\n');

	it('package.json engines is a plain ">=major.minor" the README quotes', () => {
		expect(engine).toBeDefined();
		expect(README).toContain(`Node.js ≥ ${engine}`);
	});

	it('every "≥ 20.x" Node.js version quoted is the engines minimum', () => {
		const quoted = [...text.matchAll(/≥ (\d+\.\d+)\b/g)].map((m) => m[1]);
		expect(quoted.length).toBeGreaterThan(0);
		expect([...new Set(quoted)]).toEqual([engine]);
	});

	it('the n8n versions tested are the ones the install script installs', () => {
		expect(README).toContain(`n8n ${n8n1} on Node 20`);
		expect(README).toContain(`n8n ${n8n2} on Node ${node24}`);
		const line1 = n8n1.split('.').slice(0, 2).join('.');
		expect([...new Set([...text.matchAll(/\b(1\.\d+)\.x\b/g)].map((m) => m[1]))]).toEqual([line1]);
		for (const [, version] of text.matchAll(/\bn8n (\d+\.\d+\.\d+)\b/g)) {
			expect([n8n1, n8n2]).toContain(version);
		}
		for (const [, version] of text.matchAll(/\bNode (24\.\d+\.\d+)\b/g)) {
			expect(version).toBe(node24);
		}
	});
});

describe('npm scripts named in the docs', () => {
	const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

	it.each(DOCS.map((file) => [file]))(
		'%s: every `npm run x` is a script of package.json',
		(file) => {
			for (const [, name] of read(file).matchAll(/npm run ([\w:-]+)/g)) {
				expect([file, name, name in scripts]).toEqual([file, name, true]);
			}
		},
	);
});

describe('README: templates', () => {
	const examples = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));

	it('names every template in examples/, and only those', () => {
		const named = [...README.matchAll(/\[`([\w-]+\.json)`\]\(examples\/\1\)/g)].map((m) => m[1]);
		expect([...new Set(named)].sort()).toEqual(examples.sort());
	});

	it('every examples/*.json mentioned anywhere exists', () => {
		for (const file of DOCS) {
			for (const [, name] of read(file).matchAll(/examples\/([\w-]+\.json)/g)) {
				expect([file, name, examples.includes(name)]).toEqual([file, name, true]);
			}
		}
	});
});

describe('README: shape', () => {
	it('is at most 320 lines, in the sections of n8n’s community-node template', () => {
		expect(README.split('\n').length).toBeLessThanOrEqual(320);
		const sections = [...README.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
		expect(sections).toEqual([
			'Installation',
			'Operations',
			'Credentials',
			'Compatibility',
			'Usage',
			'Resources',
			'Development',
			'License',
		]);
	});

	it('shows the two set-up lines for a fresh machine', () => {
		expect(README).toMatch(/^npm ci && npm run dev\b/m);
		expect(README).toMatch(/^npm ci && npm test\b/m);
	});
});

describe('event-name tables', () => {
	const order = ['meta', 'pinterest', 'tiktok', 'google', 'microsoft'] as const;
	const header = '| State | Meta | Pinterest | TikTok | Google Ads | Microsoft |';
	const files = DOCS.filter((file) => read(file).includes(header));

	it('appear in the README and the senders page', () => {
		expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/senders.md']));
	});

	it.each(LEAD_STATES.map((state) => [state]))('row %s matches every adapter', (state) => {
		const row = `| \`${state}\` | ${order.map((p) => `\`${PLATFORM_ADAPTERS[p].eventNameByState[state]}\``).join(' | ')} |`;
		for (const file of files) expect([file, read(file).includes(row)]).toEqual([file, true]);
	});

	it('never gives a partial lead the name of a completed lead', () => {
		for (const platform of order) {
			const names = PLATFORM_ADAPTERS[platform].eventNameByState;
			expect([platform, names.partial === names.lead]).toEqual([platform, false]);
		}
	});
});

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
	const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
	return new Set(
		[...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
			m[1]
				.toLowerCase()
				.replace(/[^\p{L}\p{N} _-]/gu, '')
				.replace(/ /g, '-'),
		),
	);
}

describe('relative links in README, CONTRIBUTING and docs/', () => {
	it.each(DOCS.map((file) => [file]))('%s: every relative link resolves', (file) => {
		const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
		const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
		for (const link of links.filter((l) => !/^[a-z]+:/.test(l))) {
			const [target, anchor] = link.split('#');
			const resolved = target ? path.join(path.dirname(file), target) : file;
			const exists = fs.existsSync(path.join(ROOT, resolved));
			expect([file, link, exists]).toEqual([file, link, true]);
			if (anchor && resolved.endsWith('.md')) {
				expect([file, link, anchors(read(resolved)).has(anchor)]).toEqual([file, link, true]);
			}
		}
	});

	it('every page under docs/ is linked from another page', () => {
		const linked = new Set(
			DOCS.flatMap((file) =>
				[...read(file).matchAll(/\]\(([^)\s#]+\.md)(?:#[^)]*)?\)/g)]
					.filter((m) => !/^[a-z]+:/.test(m[1]))
					.map((m) => path.join(path.dirname(file), m[1])),
			),
		);
		for (const page of docFiles()) expect([page, linked.has(page)]).toEqual([page, true]);
	});
});
