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

/** Whether to set it: not when the operator's own Node flags name it (`node --heap-growing-percent=N dist/src/main.js`). */
export function setsHeapGrowth(execArgv: readonly string[]): boolean {
  return !execArgv.some((arg) => arg.replace(/_/g, '-').startsWith(`--${FLAG}`));
}

export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  if (setsHeapGrowth(execArgv)) v8.setFlagsFromString(`--${FLAG}=${GROWING_PERCENT}`);
}
