import path from 'node:path';
import type { ICredentialType, INodeType } from 'n8n-workflow';

/*
 * What n8n loads from package.json's `n8n` block, checked from the sources: n8n keys credential
 * types by name across every installed package, so ours carry the package's own prefix (a generic
 * name declared by another package too would replace ours, or ours theirs), and every credential
 * a node asks for, with its test, is one this package declares.
 */
const REPO = path.join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require(path.join(REPO, 'package.json')).n8n as {
	credentials: string[];
	nodes: string[];
};

/** The TypeScript source of a `dist/….js` entry, and the classes it exports. */
function load<T>(entry: string): Array<[string, string, new () => T]> {
	const source = path.join(REPO, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(source) as Record<string, new () => T>;
	return Object.entries(exported).map(([className, cls]) => [
		path.basename(source),
		className,
		cls,
	]);
}

const credentials = manifest.credentials.flatMap((entry) => load<ICredentialType>(entry));
const nodes = manifest.nodes.flatMap((entry) => load<INodeType>(entry));
const declared = new Set(credentials.map(([, , Cls]) => new Cls().name));

describe('credential type names', () => {
	it('every credential type is named leadCapi…Api, its class and file after it, and shown as ours', () => {
		const found = credentials.map(([file, className, Cls]) => {
			const type = new Cls();
			return [file, className, type.name, /Lead CAPI/.test(type.displayName)];
		});
		const expected = credentials.map(([, , Cls]) => {
			const name = new Cls().name;
			const pascal = name[0].toUpperCase() + name.slice(1);
			return [`${pascal}.credentials.ts`, pascal, name, true];
		});
		expect(found).toEqual(expected);
		expect([...declared].sort()).toEqual([
			'leadCapiGoogleAdsOAuth2Api',
			'leadCapiGoogleDataManagerOAuth2Api',
			'leadCapiMetaApi',
			'leadCapiMicrosoftApi',
			'leadCapiOutboxApi',
			'leadCapiPinterestApi',
			'leadCapiRedisApi',
			'leadCapiTiktokApi',
			'leadCapiWebhookApi',
		]);
	});

	it('every credential a node asks for is declared by this package, and its test exists on the node', () => {
		const problems: string[] = [];
		for (const [file, , Cls] of nodes) {
			const node = new Cls();
			const tests = Object.keys(node.methods?.credentialTest ?? {});
			for (const { name, testedBy } of node.description.credentials ?? []) {
				if (!declared.has(name)) problems.push(`${file}: ${name} is not declared`);
				if (typeof testedBy === 'string' && !tests.includes(testedBy)) {
					problems.push(`${file}: ${name} is tested by ${testedBy}, which the node lacks`);
				}
			}
		}
		expect(problems).toEqual([]);
		const used = nodes.flatMap(([, , Cls]) =>
			(new Cls().description.credentials ?? []).map((c) => c.name),
		);
		expect([...new Set(used)].sort()).toEqual([...declared].sort());
	});
});
