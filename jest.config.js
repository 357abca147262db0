/** Unit and integration tests (`npm test`). The end-to-end suite has its own config. */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/test/integration/**/*.test.ts'],
	globalSetup: '<rootDir>/test/support/redis-global-setup.js',
	globalTeardown: '<rootDir>/test/support/redis-global-teardown.js',
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
	},
	testTimeout: 30000,
};
