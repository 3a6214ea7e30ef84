import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection left: 1.5 times.
 * A queue poll leaves its answers' records behind as garbage that outlives the young generation
 * (~75 MB a poll at 100,000 queues); with V8's own factor (up to 4) the old generation grew to
 * 2.5 times the live heap between collections, and the RSS with it. Measured by bench:scale at
 * 100,000 queues, 10% changing: RSS max 672.5 MB with V8's factor, 453.1 MB with 1.5 (1.25: 420.6 MB,
 * longer event-loop pauses), CPU per poll unchanged; `--optimize-for-size` (a small young
 * generation too) took RSS under 300 MB but tripled the CPU per poll. docs/performance.md.
 */
const GROWING_PERCENT = 50;
const FLAG = 'heap-growing-percent';

/**
 * Node's flags the exporter runs with, given where it is started: package.json's `start`, the
 * Dockerfile's NODE_OPTIONS, and the tests' and benchmarks' spawns (test/harness/built-exporter.ts);
 * test/unit/project/node-flags.test.ts holds each of them to this list.
 *
 * Semi-spaces of 4 MiB (the young generation, 8 MiB in all): V8 grows them to 16 MiB on Node 20
 * and 32 MiB on Node 26 (module loading alone took Node 20's to 16), and the garbage of scrapes
 * then touches all of it. bench:scale at 10,000 queues: RSS max 170.5 MB with V8's size, 150.4 MB
 * with 4 MiB (155.1 with 8); at 100,000 queues, RSS max 451.2 → 387.0 MB, /metrics p99 during polls
 * 41 → 49 ms, CPU per poll 2.04 → 2.54 s (medians of 3 polls: more of a poll's garbage outlives the
 * young generation). V8 reads the size only when it makes the heap, so it cannot be set from here.
 */
export const NODE_FLAGS = ['--max-semi-space-size=4'] as const;

const SEMI_SPACE_FLAG = 'max-semi-space-size';

/**
 * The poll thread's semi-spaces, MiB. It parses and renders whole queue lists, and with NODE_FLAGS'
 * 4 MiB more of each answer's records outlived the young generation and were copied again. It
 * serves no scrape, so the size costs no serving latency. bench:scale at 100,000 queues (two runs
 * each, CPU per poll medians, 10% / all changing): 4 MiB 1.57 / 2.31 and 1.54 / 2.05 s, RSS max
 * 358.1 and 363.4 MB; 8 MiB 1.24 / 1.43 and 1.46 / 1.73 s, 383.4 and 376.0 MB; 16 MiB (one run)
 * 1.68 / 1.74 s, 414.0 MB, over issue 29's 400.
 */
export const POLL_THREAD_SEMI_SPACE_MB = 8;

/** The semi-space size the operator's flags give (the last one named), or undefined when they name none. */
export function semiSpaceFlag(execArgv: readonly string[]): number | undefined {
  let size: number | undefined;
  for (const arg of execArgv) {
    const m = /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(arg);
    if (m) size = Number(m[1]);
  }
  return size;
}

/**
 * Starts a thread with semi-spaces of `mb` MiB, unless the operator's flags size them otherwise
 * than NODE_FLAGS do (their size is then the thread's too). V8 reads the flag when it makes a heap,
 * on the thread's own start: it is set just before, and set back once the thread runs, so that
 * the heaps made later (bcrypt's threads) are not sized by it.
 */
export function startWithSemiSpaces<T extends { once(event: 'online' | 'exit', listener: () => void): unknown }>(
  mb: number,
  start: () => T,
  execArgv: readonly string[] = operatorFlags(),
): T {
  const given = semiSpaceFlag(execArgv);
  if (given !== undefined && given !== semiSpaceFlag(NODE_FLAGS)) return start();
  v8.setFlagsFromString(`--${SEMI_SPACE_FLAG}=${mb}`);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    // 0: V8's own size, when no flag named one.
    v8.setFlagsFromString(`--${SEMI_SPACE_FLAG}=${given ?? 0}`);
  };
  try {
    const thread = start();
    thread.once('online', restore);
    thread.once('exit', restore);
    return thread;
  } catch (error) {
    restore();
    throw error;
  }
}

/**
 * The environment the exporter runs with, given where NODE_FLAGS are (and held to it by the same
 * test). glibc's malloc keeps an arena per thread that allocates (up to 8 per core): zlib's
 * thread pool compresses the expositions, and memory freed in one arena is not reused by the
 * others. Two arenas: bench:scale at 10,000 queues, RSS max 143.7-147.5 → 139.4-139.7 MB (two
 * runs each); at 100,000, 382.3 → 366.3 MB in the polls with nothing scraping (one run), CPU per
 * poll within the runs' spread. glibc reads it before any code runs, so it cannot be set from here.
 */
export const LAUNCH_ENV = { MALLOC_ARENA_MAX: '2' } as const;

function names(execArgv: readonly string[], flag: string): boolean {
  return execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(`--${flag}`));
}

/** Node's flags as the operator gave them: on its command line, and in NODE_OPTIONS (which execArgv leaves out). */
export function operatorFlags(): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
}

/** Whether to set it: not when the operator's own Node flags name it (`node --heap-growing-percent=N dist/src/main.js`). */
export function setsHeapGrowth(execArgv: readonly string[]): boolean {
  return !names(execArgv, FLAG);
}

export function limitHeapGrowth(execArgv: readonly string[] = operatorFlags()): void {
  if (setsHeapGrowth(execArgv)) v8.setFlagsFromString(`--${FLAG}=${GROWING_PERCENT}`);
}
