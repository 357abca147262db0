import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DispatchItem } from '../../shared';
import { killAtExit } from './childProcesses';

/*
 * Dispatching OS processes for the fault suite (test/support/dispatcher-child.js): each runs the
 * built core with its own Redis connection, as one n8n worker does. A test can start several,
 * hand each its items, start them all at once, and SIGKILL one in the middle of a dispatch.
 */

const CHILD = path.join(__dirname, 'dispatcher-child.js');
const BUILT_CORE = path.resolve(__dirname, '..', '..', 'dist', 'shared', 'index.js');

export interface DispatcherSetup {
	redisUrl: string;
	standInUrl: string;
	token: string;
	pixelId: string;
	keyPrefix: string;
	retry?: Record<string, number>;
	commandTimeoutMs?: number;
}

export interface DispatchRunOptions {
	claimTtlMs?: number;
	inFlightWaitMs?: number;
	afterUnknownOutcome?: 'auto' | 'hold' | 'resend';
	concurrency?: number;
}

/** What a child reports of one dispatch: counts by status and dedup state, messages and how often. */
export interface DispatchSummary {
	status: Record<string, number>;
	dedup: Record<string, number>;
	errors: Record<string, number>;
	warnings: Record<string, number>;
}

export interface DispatcherProcess {
	pid: number;
	/** Hands the child its items; resolves once it holds them, nothing sent yet. */
	prepare(items: DispatchItem[], options?: DispatchRunOptions): Promise<void>;
	/** Starts the prepared dispatch; resolves with its summary (rejects if the process dies first). */
	go(): Promise<DispatchSummary>;
	/** prepare() then go(). */
	dispatch(items: DispatchItem[], options?: DispatchRunOptions): Promise<DispatchSummary>;
	/** Sends a signal (default SIGKILL: no settle, no cleanup); resolves once the process is gone. */
	kill(signal?: NodeJS.Signals): Promise<void>;
	/** Lets the process close its connections and exit. */
	stop(): Promise<void>;
}

/** Starts one dispatching process; resolves once its Redis connection is ready. */
export function startDispatcher(setup: DispatcherSetup): Promise<DispatcherProcess> {
	if (!fs.existsSync(BUILT_CORE)) {
		throw new Error(
			`${BUILT_CORE} is missing: the fault suite's processes run the built core (npm run build)`,
		);
	}
	const child = fork(CHILD, [JSON.stringify(setup)], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	killAtExit(child);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	/** Resolves with the next message of a type; rejects if the process exits or reports an error first. */
	const next = <T>(type: string, pick: (message: Record<string, unknown>) => T) =>
		new Promise<T>((resolve, reject) => {
			const onMessage = (message: Record<string, unknown>) => {
				if (message.type === type) {
					cleanup();
					resolve(pick(message));
				} else if (message.type === 'error') {
					cleanup();
					reject(new Error(`dispatcher ${child.pid}: ${String(message.message)}`));
				}
			};
			const onExit = (code: number | null, signal: string | null) => {
				cleanup();
				reject(
					new Error(
						`dispatcher ${child.pid} exited (${signal ?? code}) while waiting for "${type}"`,
					),
				);
			};
			const cleanup = () => {
				child.off('message', onMessage);
				child.off('exit', onExit);
			};
			child.on('message', onMessage);
			child.once('exit', onExit);
		});
	const handle: DispatcherProcess = {
		pid: child.pid ?? 0,
		prepare: (items, options = {}) => {
			const prepared = next('prepared', () => undefined);
			child.send({ type: 'prepare', items, options });
			return prepared;
		},
		go: () => {
			const done = next('done', (m) => m.summary as DispatchSummary);
			child.send({ type: 'go' });
			return done;
		},
		dispatch: async (items, options) => {
			await handle.prepare(items, options);
			return handle.go();
		},
		kill: async (signal = 'SIGKILL') => {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
			await exited;
		},
		stop: async () => {
			if (child.connected) child.send({ type: 'exit' });
			await exited;
		},
	};
	return next('ready', () => handle);
}
