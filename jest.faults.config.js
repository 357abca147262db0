/**
 * `npm run test:faults`: the fault suite (test/faults/). Real redis-server processes of its own
 * (killed with SIGKILL, paused with CLIENT PAUSE), the Meta stand-in with scripted faults, and
 * dispatching OS processes running the built core (dist/, `npm run build` first). Files run one
 * at a time: they kill and pause processes and count every event, so nothing else may share the
 * machine's two cores with them. Each scenario writes its figures to .faults/figures/, from
 * which test/faults/reliability.js renders RELIABILITY.md.
 */
module.exports = {
	preset: 'ts-jest',
	cacheDirectory: '<rootDir>/.jest-cache',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/faults'],
	testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
	globalSetup: '<rootDir>/test/faults/global-setup.js',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// Generous bounds for a loaded 2-core machine; the scenarios finish far sooner.
	testTimeout: 240_000,
	maxWorkers: 1,
};
