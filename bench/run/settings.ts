// The benchmark's knobs (BENCH_* environment variables, see main.ts) and fixed settings.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs compiled, from bench/dist/bench/run). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const EXPORTER_MAIN = path.join(ROOT, 'dist/src/main.js');

// ---------------------------------------------------------------------------
// settings

export function intEnv(name: string, fallback: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected an integer >= ${min}`);
  return n;
}

export const S = {
  queues: intEnv('BENCH_QUEUES', 10_000, 1),
  vhosts: intEnv('BENCH_VHOSTS', 10, 1),
  quorumPercent: intEnv('BENCH_QUORUM_PERCENT', 2),
  exchanges: intEnv('BENCH_EXCHANGES', 300),
  bindings: intEnv('BENCH_BINDINGS', 5000),
  activeQueues: intEnv('BENCH_ACTIVE_QUEUES', 500),
  publishers: intEnv('BENCH_PUBLISHERS', 20),
  consumers: intEnv('BENCH_CONSUMERS', 20),
  rate: intEnv('BENCH_RATE', 500),
  pollInterval: process.env.BENCH_POLL_INTERVAL || '5s',
  polls: intEnv('BENCH_POLLS', 5, 1),
  scrapes: intEnv('BENCH_SCRAPES', 200, 1),
  repeats: intEnv('BENCH_REPEATS', 5, 1),
  statsIntervalMs: intEnv('BENCH_STATS_INTERVAL_MS', 5000, 100),
  alternatives: (process.env.BENCH_ALTERNATIVES ?? '1') !== '0',
  timeoutMin: intEnv('BENCH_TIMEOUT_MIN', 45, 1),
  resultsDir: path.resolve(ROOT, process.env.BENCH_RESULTS_DIR || 'bench/results'),
  setupChannels: intEnv('BENCH_SETUP_CHANNELS', 8, 1),
  minuteWindowS: intEnv('BENCH_MINUTE_WINDOW_S', 240, 30),
};
/** The exporter's default; the raw replays use the same concurrency. */
export const EXPORTER_CONCURRENCY = 2;
export const PROM_HEADERS = {
  accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1',
  'accept-encoding': 'gzip',
};
export const KBUDDE_PATHS = ['/api/overview', '/api/queues', '/api/exchanges', '/api/nodes'];
export const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
