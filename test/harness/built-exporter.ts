// The BUILT exporter (dist/src/main.js, made by `npm run build:exporter`) as a child process, the
// way an operator runs it: started, waited for until it serves, stopped. Tests
// (exporter-process.ts) and benchmarks (bench/run, bench/scale) wrap it with what they read.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import path from 'node:path';
import { LAUNCH_ENV, NODE_FLAGS } from '../../src/heap-size.js';

export interface BuiltExporter {
  child: ChildProcess;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** True until the process has exited. */
  running(): boolean;
  /**
   * SIGTERM unless it has exited; resolves once it has. With `killAfterMs`, a process still there
   * that long after the SIGTERM gets a SIGKILL (benchmarks must end; tests wait, to see a hang).
   */
  stop(killAfterMs?: number): Promise<void>;
}

export interface SpawnOptions {
  /** The whole environment of the process (nothing is inherited unless passed here), over the exporter's own (LAUNCH_ENV). */
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  /** The repository root: where dist/src/main.js is, and the working directory. Default: this process's. */
  root?: string;
  /** Node's own flags, before the script, after those it always runs with (NODE_FLAGS): a flag given again here wins. */
  nodeArgs?: string[];
}

export function spawnBuiltExporter(args: readonly string[], options: SpawnOptions): BuiltExporter {
  const root = options.root ?? process.cwd();
  const child = spawn(process.execPath, [...NODE_FLAGS, ...(options.nodeArgs ?? []), path.join(root, 'dist/src/main.js'), ...args], {
    cwd: root,
    env: { ...LAUNCH_ENV, ...options.env },
    stdio: options.stdio,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    exited,
    running,
    async stop(killAfterMs) {
      if (!running()) return;
      child.kill('SIGTERM');
      if (killAfterMs === undefined) return exited;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), killAfterMs)))]);
      clearTimeout(timer);
      if (!ended) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/**
 * Calls `probe` (a request to a health endpoint) every 100 ms until it answers true. Throws with
 * `output()` (the exporter's log) when the process exits first, or, after stopping it, when it
 * does not serve within `timeoutMs`.
 */
export async function untilServing(exporter: BuiltExporter, probe: () => Promise<boolean>, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!exporter.running()) throw new Error(`exporter exited with ${exporter.child.exitCode ?? exporter.child.signalCode}:\n${output()}`);
    try {
      if (await probe()) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await exporter.stop(5_000);
      throw new Error(`exporter not serving within ${timeoutMs / 1000} s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
