// n8n's community-node lint rules, as `@n8n/node-cli`'s `configWithoutCloudSupport` applies them
// (https://github.com/n8n-io/n8n/tree/master/packages/@n8n/node-cli), with the packages pinned
// here directly instead of pulling the whole CLI. The package is self-hosted only: its core
// needs ioredis, libphonenumber-js and @eslint-community/regexpp at run time, so the n8n Cloud rules
// (restricted imports/globals) are off and `no-runtime-dependencies` is off for package.json.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importPlugin from 'eslint-plugin-import-x';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';
import { readdirSync } from 'node:fs';

/**
 * The core's floors, written once, bottom first (docs/architecture.md draws them): a file may
 * import from its own floor and the floors below it, never from one above. Each floor is a
 * folder of shared/ (the ground floor: the files at shared/'s top). The nodes and credentials
 * stand above the whole core, which never imports them. `npm run lint` checks every import
 * against this list (import-x/no-restricted-paths) and that no file is in an import cycle
 * (import-x/no-cycle).
 */
const GROUND = ['types.ts', 'path.ts', 'clientKey.ts', 'numbers.ts', 'sentences.ts', 'record.ts'];
const FLOORS = [
	GROUND,
	['identity'],
	['events'],
	['capture'],
	['transport'],
	['redis'],
	['stats'],
	['ledger'],
	['dedup'],
	['rules'],
	['captureLog'],
	['platforms'],
	['dispatch'],
	['outbox'],
	['health'],
	['index.ts', 'api.ts'],
].map((floor) => floor.map((name) => `./shared/${name}`));
const TOP = ['./nodes', './credentials'];

/** Each floor may not import any floor above it, nor the nodes. */
const upwardZones = FLOORS.map((floor, i) => ({
	target: floor,
	from: [...FLOORS.slice(i + 1).flat(), ...TOP],
	message: `the core's floors go one way (eslint.config.mjs FLOORS, docs/architecture.md): ${floor.join(', ')} may not import from a floor above it`,
}));

/**
 * A platform is one folder: the others never import it — the dispatcher, the outbox and every
 * generic floor reach a platform only through its adapter (shared/platforms/contract.ts), and
 * no platform imports another. Only the registry (shared/platforms/index.ts) and the public
 * surface list them.
 */
const PLATFORM_FOLDERS = readdirSync(new URL('./shared/platforms', import.meta.url), { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.map((entry) => `./shared/platforms/${entry.name}`);
const platformZones = PLATFORM_FOLDERS.map((folder) => ({
	target: [
		...FLOORS.flat().filter((p) => !['./shared/platforms', './shared/index.ts', './shared/api.ts'].includes(p)),
		...PLATFORM_FOLDERS.filter((other) => other !== folder),
		'./shared/platforms/contract.ts',
		'./shared/platforms/isolate.ts',
		'./shared/platforms/failure.ts',
	],
	from: [folder],
	message: `generic code never names a platform, and no platform imports another: reach ${folder} through its adapter`,
}));

const communityNodes = n8nCommunityNodesPlugin.configs.recommendedWithoutN8nCloudSupport;

export default tseslint.config(
	globalIgnores(['dist', 'node_modules', '.e2e', '.dev', 'coverage']),
	{
		files: ['**/*.ts'],
		extends: [
			js.configs.recommended,
			tseslint.configs.recommended,
			importPlugin.flatConfigs.recommended,
			importPlugin.flatConfigs.typescript,
		],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		files: ['shared/**/*.ts'],
		rules: {
			'import-x/no-cycle': ['error', { ignoreExternal: true }],
			'import-x/no-restricted-paths': ['error', { zones: [...upwardZones, ...platformZones] }],
		},
	},
	{
		// n8n's rules for what n8n loads. The core in shared/ is framework-free on purpose (no
		// n8n imports, plain Error classes), so n8n's node rules do not apply to it.
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		extends: [communityNodes],
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		settings: {
			'import-x/resolver-next': [createTypeScriptImportResolver()],
		},
	},
	{
		files: ['package.json'],
		extends: [communityNodes],
		rules: {
			...n8nNodesBase.configs.community.rules,
			// Self-hosted package by design (see README "n8n Cloud"): the core's Redis client,
			// phone-number metadata and regex parser are runtime dependencies.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
		},
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['./credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['./nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
