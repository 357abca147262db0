/** End-to-end suite in a real n8n (`npm run test:e2e`, which builds and packs first). */
module.exports = {
	preset: 'ts-jest',
	cacheDirectory: '<rootDir>/.jest-cache',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
	globalSetup: '<rootDir>/test/support/redis-global-setup.js',
	globalTeardown: '<rootDir>/test/support/redis-global-teardown.js',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 600_000,
	maxWorkers: 1,
};
