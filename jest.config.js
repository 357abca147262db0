/**
 * `npm test`: unit, integration (real Redis, loopback HTTP servers) and property tests, and the
 * capture script in real headless Chromium. The end-to-end suite in real n8n has its own config.
 */
const os = require('node:os');

const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };
// One transform cache for every jest config (unit, faults, e2e) and every CI step (a project
// option: each project below names it).
const cacheDirectory = '<rootDir>/.jest-cache';
// Each worker's own Redis (test/support/redis-global-setup.js).
const setupFiles = ['<rootDir>/test/support/redis-worker.js'];

module.exports = {
	// Files run in parallel workers: the suite mostly waits (timers, debounces, loopback I/O), so
	// three workers keep a 2-core machine busy (565 s in band from a clean clone, one core 28 %
	// used). Every file is isolated by its own Redis key prefix and loopback ports.
	maxWorkers: Math.max(3, os.availableParallelism()),
	globalSetup: '<rootDir>/test/support/redis-global-setup.js',
	globalTeardown: '<rootDir>/test/support/redis-global-teardown.js',
	// Browser tests type like a person and wait out debounces; core tests finish far sooner.
	testTimeout: 60000,
	projects: [
		{
			displayName: 'core',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test'],
			testMatch: [
				'<rootDir>/test/unit/**/*.test.ts',
				'<rootDir>/test/integration/**/*.test.ts',
				// fast-check properties over hostile input (fixed seed: test/support/hostile.ts)
				'<rootDir>/test/property/**/*.test.ts',
			],
			transform,
			cacheDirectory,
			setupFiles,
		},
		{
			// Each node's execute()/webhook() with n8n's context mocked and nothing of ours: real
			// Redis, loopback platform stand-ins (test/nodes/support builds the context).
			displayName: 'nodes',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/nodes'],
			testMatch: ['<rootDir>/test/nodes/**/*.test.ts'],
			transform,
			cacheDirectory,
			setupFiles,
		},
		{
			displayName: 'browser',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/browser'],
			testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
			transform,
			cacheDirectory,
			setupFiles,
		},
	],
};
