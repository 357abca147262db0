import type { ChildProcess } from 'node:child_process';

/** Every child process a test started and that has not exited yet. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
	for (const child of live) child.kill('SIGKILL');
});

/** Makes sure `child` does not outlive the test process (SIGKILLed at its exit if still running). */
export function killAtExit(child: ChildProcess): void {
	live.add(child);
	child.once('exit', () => live.delete(child));
}
