// Small helpers of the benchmark: statistics, formatting, /proc readings, a child's log file, and
// the cleanup that stops everything started, once, on success, failure, signal or timeout.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { CLK_TCK } from './settings.js';

// ---------------------------------------------------------------------------
// small helpers

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const now = () => performance.now();
let logName = 'bench';
/** Names the benchmark in the log lines (`[bench 12:00:00] ...`, `[scale ...]`). */
export const logAs = (name: string): void => {
  logName = name;
};
export const log = (...args: unknown[]) => console.error(`[${logName} ${new Date().toISOString().slice(11, 19)}]`, ...args);

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Nearest-rank percentile. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export const fmtS = (s: number): string => (Number.isFinite(s) ? `${s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s >= 0.1 ? s.toFixed(3) : s.toFixed(4)} s` : 'n/a');
/** Start to start at `interval: 1s`: the end-to-end poll time when over the interval. */
export const fmtCycle = (s: number): string => (!Number.isFinite(s) ? 'n/a' : s < 1.05 ? '≤ 1 s (the interval)' : fmtS(s));
export const fmtMs = (ms: number): string => (Number.isFinite(ms) ? `${ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms` : 'n/a');
export const fmtBytes = (b: number | undefined): string => (b === undefined || !Number.isFinite(b) ? 'n/a' : b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} kB` : `${b} B`);
export const fmtRatio = (r: number): string => (Number.isFinite(r) ? `${r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(2) : r.toFixed(3)}×` : 'n/a');
export const fmtInt = (n: number | undefined): string => (n !== undefined && Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

/** CPU seconds (utime + stime) of a process. */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** { rss, hwm } in bytes from /proc/<pid>/status, or undefined when the process is gone. */
export function memoryOf(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

export async function readBody(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Reads a body to its end without keeping it; returns its byte count. */
export async function drain(body: AsyncIterable<Buffer>): Promise<number> {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  return bytes;
}

/**
 * Appends what the child writes on its piped stdout and stderr to `file`: the pipes stay the
 * parent's to read too (the port it logs, test/harness/listening.ts).
 */
export function logTo(child: ChildProcess, file: string): void {
  const out = fs.createWriteStream(file, { flags: 'a' });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  child.once('close', () => out.end());
}

// ---------------------------------------------------------------------------
// cleanup: everything started registers here; runs once, on success, failure, signal or timeout

const cleanups: (() => unknown)[] = [];
let cleaning: Promise<void> | undefined;
export function onCleanup<F extends () => unknown>(fn: F): F {
  cleanups.push(fn);
  return fn;
}
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await withTimeout(Promise.resolve().then(fn), 60_000, 'cleanup step');
      } catch (error) {
        log('cleanup step failed:', (error as Error).message);
      }
    }
  })();
  return cleaning;
}

// ---------------------------------------------------------------------------
