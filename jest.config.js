/**
 * `npm test`: unit, integration (real Redis, loopback HTTP servers) and property tests, and the
 * capture script in real headless Chromium. The end-to-end suite in real n8n has its own config.
 */
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

module.exports = {
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
		},
		{
			displayName: 'browser',
			preset: 'ts-jest',
			testEnvironment: 'node',
			roots: ['<rootDir>/test/browser'],
			testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
			transform,
		},
	],
};
