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

const communityNodes = n8nCommunityNodesPlugin.configs.recommendedWithoutN8nCloudSupport;

export default tseslint.config(
	globalIgnores(['dist', 'node_modules', '.e2e', '.dev', 'coverage']),
	{
		files: ['**/*.ts'],
		extends: [
			js.configs.recommended,
			tseslint.configs.recommended,
			importPlugin.flatConfigs.recommended,
		],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
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
