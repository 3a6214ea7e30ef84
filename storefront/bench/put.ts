// PUT benchmark of the storefront at several database sizes: start-up time, PUT throughput
// and latency (edits without a password, so no hash), and memory. It runs the built service
// as a child process on a database it fills first, and writes results/put-<commit>.json plus
// the table in the storefront README.
//
// npm run bench --workspace storefront            (sizes 1k, 100k, 1M)
// BENCH_SIZES=1000,100000 npm run bench --workspace storefront

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringifyJson } from '../src/json.js';
import { SqliteTransactionStore } from '../src/sqlite-store.js';
import { benchRecords, benchTransaction, FIRST_ID } from './records.js';
import { type SizeResult, updateReadme } from './readme-table.js';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url)); // .bench-build/bench → storefront/
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const COMMAND = 'npm run bench --workspace storefront';
const PUTS = Number(process.env.BENCH_PUTS ?? 5000);
const CONCURRENCY = 4;

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Math.round(Number(m[1]) / 1024);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

async function startService(dbPath: string, dir: string): Promise<{ child: ChildProcess; port: number; startupMs: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, STOREFRONT_AUTH: 'none-local-only', STOREFRONT_PORT: '0', STOREFRONT_DB: dbPath, STOREFRONT_IMPORT_JSON: join(dir, 'none.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on \S+ port (\d+)/.exec(out);
      if (m !== null) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)));
  });
  return { child, port, startupMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

function put(agent: Agent, port: number, id: bigint, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, agent, method: 'PUT', path: `/api/transactions/${id}`, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(res.statusCode) : reject(new Error(`PUT ${id}: ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(records: number): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-'));
  try {
    const dbPath = join(dir, 'bench.db');
    const fillStarted = Date.now();
    const store = SqliteTransactionStore.open(dbPath);
    await store.seedIfEmpty(benchRecords(records));
    await store.close();
    const fillSeconds = (Date.now() - fillStarted) / 1000;
    // The database and its write-ahead log, in MiB (what the records take on disk).
    const fileBytes = (p: string) => {
      try {
        return statSync(p).size;
      } catch {
        return 0;
      }
    };
    const dbFileMiB = Math.round((fileBytes(dbPath) + fileBytes(`${dbPath}-wal`)) / 2 ** 20);

    const { child, port, startupMs } = await startService(dbPath, dir);
    const pid = child.pid as number;
    const rssAfterStartMiB = procStatus(pid, 'VmRSS');
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    let next = 0;
    const latencies: number[] = [];
    const worker = async (count: number, record: boolean): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const n = next++;
        // Spread over the whole table (a multiplicative hash of the counter), each a real change.
        const id = FIRST_ID + BigInt((n * 2654435761) % records);
        const body = stringifyJson(benchTransaction(id, 60 + (n % 1000)));
        const t = process.hrtime.bigint();
        await put(agent, port, id, body);
        if (record) latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(50, false))); // warm-up
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(PUTS / CONCURRENCY, true)));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const peakRssMiB = procStatus(pid, 'VmHWM');
    agent.destroy();
    child.kill('SIGTERM');
    await once(child, 'exit');
    latencies.sort((a, b) => a - b);
    const round = (x: number) => Math.round(x * 100) / 100;
    return {
      records,
      startupMs: Math.round(startupMs),
      rssAfterStartMiB,
      peakRssMiB,
      puts: latencies.length,
      concurrency: CONCURRENCY,
      putsPerSecond: Math.round(latencies.length / seconds),
      p50Ms: round(quantile(latencies, 0.5)),
      p99Ms: round(quantile(latencies, 0.99)),
      maxMs: round(latencies[latencies.length - 1] as number),
      dbFileMiB,
      fillSeconds: round(fillSeconds),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The disk's own floor under a durable write: 4 KiB write + fdatasync, p50 and p99 of 300, in the database's folder. */
function fsyncLatency(): { p50Ms: number; p99Ms: number } {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-fsync-'));
  try {
    const fd = openSync(join(dir, 'probe'), 'w');
    const page = Buffer.alloc(4096, 1);
    const ms: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = process.hrtime.bigint();
      writeSync(fd, page, 0, page.length, (i % 50) * page.length);
      fdatasyncSync(fd);
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    closeSync(fd);
    ms.sort((a, b) => a - b);
    return { p50Ms: Math.round(quantile(ms, 0.5) * 100) / 100, p99Ms: Math.round(quantile(ms, 0.99) * 100) / 100 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = (process.env.BENCH_SIZES ?? '1000,100000,1000000').split(',').map(Number);
  // Other work on the machine shows in the tail latencies: the load is recorded with the results.
  const loadBefore = loadavg()[0] as number;
  const fsync = fsyncLatency();
  const results: SizeResult[] = [];
  for (const records of sizes) {
    console.log(`storefront bench: ${records} records…`);
    const r = await measure(records);
    console.log(JSON.stringify(r));
    results.push(r);
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PACKAGE }).toString().trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: PACKAGE }).toString().trim() !== '';
  const cpu = cpus();
  const file = {
    commit: dirty ? `${commit}+uncommitted` : commit,
    date: new Date().toISOString(),
    command: COMMAND,
    machine: {
      cpu: cpu[0]?.model ?? 'unknown',
      cores: cpu.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      kernel: release(),
      node: process.version,
      fsync,
      loadAverage1m: { before: Math.round(loadBefore * 10) / 10, after: Math.round((loadavg()[0] as number) * 10) / 10 },
    },
    targets: { at: 1_000_000, startupMs: 2000, p99Ms: 20, rssMiB: 200 },
    results,
  };
  const name = `put-${commit}.json`;
  writeFileSync(join(PACKAGE, 'bench', 'results', name), `${JSON.stringify(file, null, 2)}\n`);
  updateReadme(join(PACKAGE, 'README.md'), file, `bench/results/${name}`);
  console.log(`wrote bench/results/${name} and the table in README.md`);
}

await main();
