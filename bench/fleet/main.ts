/**
 * Fleet benchmark (`npm run bench:fleet`): the built exporter (dist/src/main.js) with N targets in
 * `targets:` (default 10,000; BENCH_FLEET_TARGETS) whose brokers are unreachable loopback ports
 * (every poll fails at once: idle targets, the fleet's own cost), and once with one such target
 * for the baseline. Per run: time to listen and to /-/ready, /-/healthy latency (asked every
 * 100 ms from spawn to exit, one at a time; a probe without an answer counts as failed only
 * before SIGTERM, since the exporter then stops listening on purpose, and each is listed with its
 * error), RSS (VmRSS every 200 ms, VmHWM), RSS after two intervals, a no-change POST /-/reload,
 * the size of a 404 for an unknown /probe target, and the time from SIGTERM to exit. Memory per
 * idle target: (RSS at N - RSS at 1) / (N - 1).
 * Writes bench/results/fleet.json (commit, machine, command, date, load: ../provenance.ts) and fleet.md from it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRun } from '../provenance.js';
import { type FleetResults, type FleetRun, fleetSection } from '../report/fleet-section.js';
import { S } from '../run/settings.js';

const TARGETS = Number(process.env.BENCH_FLEET_TARGETS ?? 10_000);
const INTERVAL_S = Number(process.env.BENCH_FLEET_INTERVAL_S ?? 15);
const PORT_BASE = 19_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const status = (pid: number, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

function configFile(targets: number): string {
  const entries = Array.from({ length: targets }, (_, i) => `  - name: broker-${i}\n    url: http://127.0.0.1:1\n`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fleet-')), 'config.yaml');
  fs.writeFileSync(file, `log:\n  level: error\npoll:\n  interval: ${INTERVAL_S}s\ntargets:\n${entries.join('')}`);
  return file;
}

/** How long one request of the measurement waits for its answer; status 0 when it got none. */
const ANSWER_TIMEOUT_MS = 120_000;

/** What a request without an answer got: the innermost cause's code (fetch wraps it in "fetch failed"). */
function errorCode(error: unknown): string {
  let e = error as { code?: string; name?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return e?.code ?? e?.name ?? String(e);
}

async function timed(url: string, init?: RequestInit): Promise<{ ms: number; status: number; bytes: number; error?: string }> {
  const start = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    const bytes = (await response.arrayBuffer()).byteLength;
    return { ms: performance.now() - start, status: response.status, bytes };
  } catch (error) {
    // No answer in time (an overloaded exporter): the table says status 0 and how long it waited.
    return { ms: performance.now() - start, status: 0, bytes: Number.NaN, error: errorCode(error) };
  }
}

/** How long SIGTERM may take before the exporter is killed (the table then says exit null). */
const EXIT_TIMEOUT_MS = 30_000;

async function measure(targets: number, port: number): Promise<FleetRun> {
  const config = configFile(targets);
  const base = `http://127.0.0.1:${port}`;
  const spawned = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js', '--config', config, '--web.listen-address', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const pid = child.pid!;
  let running = true;
  let rssPeak = 0;
  const sampler = (async () => {
    while (running) {
      try {
        rssPeak = Math.max(rssPeak, status(pid, 'VmRSS'));
      } catch {}
      await sleep(200);
    }
  })();
  // /-/healthy, one at a time every 100 ms; before the first answer the port is not open yet.
  const latencies: number[] = [];
  /** Probes over 100 ms, with when they were asked: start-up (before /-/ready) or steady polling. */
  const slow: NonNullable<FleetRun['healthy']['slow']> = [];
  let failed = 0;
  const failures: NonNullable<FleetRun['healthy']['failures']> = [];
  let termSent = Number.NaN;
  let listenSeconds = Number.NaN;
  const prober = (async () => {
    while (running) {
      const asked = performance.now();
      // Status 0: no answer (refused before the port is open, or none within the timeout).
      const r = await timed(`${base}/-/healthy`);
      if (r.status !== 0) {
        if (Number.isNaN(listenSeconds)) listenSeconds = (performance.now() - spawned) / 1000;
        latencies.push(r.ms);
        if (r.ms > 100) slow.push({ ms: r.ms, sinceSpawnSeconds: (asked - spawned) / 1000 });
      } else if (!Number.isNaN(listenSeconds)) {
        // After SIGTERM the exporter stops listening on purpose: a probe then measures shutdown, not health.
        const sinceSigtermMs = performance.now() - termSent;
        if (Number.isNaN(termSent)) failed++;
        failures.push({ error: r.error ?? 'unknown', sinceSpawnSeconds: (asked - spawned) / 1000, afterSigterm: !Number.isNaN(termSent), sinceSigtermMs: Number.isNaN(sinceSigtermMs) ? null : sinceSigtermMs });
      }
      await sleep(Math.max(0, 100 - (performance.now() - asked)));
    }
  })();
  let readySeconds = Number.NaN;
  // Given up after 5 minutes: the table then says NaN.
  while (performance.now() - spawned < 300_000) {
    try {
      if ((await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(10_000) })).status === 200) {
        readySeconds = (performance.now() - spawned) / 1000;
        break;
      }
    } catch {}
    await sleep(200);
  }
  await sleep(2 * INTERVAL_S * 1000);
  const rssSteady = status(pid, 'VmRSS');
  const reload = await timed(`${base}/-/reload`, { method: 'POST' });
  const notFound = await timed(`${base}/probe?target=no-such-broker`);
  await sleep(2000);
  const hwm = status(pid, 'VmHWM');
  termSent = performance.now();
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
  const exitCode = await exited;
  clearTimeout(killer);
  const sigtermSeconds = (performance.now() - termSent) / 1000;
  running = false;
  await Promise.all([sampler, prober]);
  fs.rmSync(path.dirname(config), { recursive: true, force: true });
  const sorted = [...latencies].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
  return {
    targets,
    listenSeconds,
    readySeconds,
    healthy: { n: sorted.length, p50Ms: q(0.5), p99Ms: q(0.99), maxMs: sorted.at(-1) ?? Number.NaN, over100: sorted.filter((ms) => ms > 100).length, failed, failures, slow },
    rssPeakBytes: Math.max(rssPeak, hwm),
    hwmBytes: hwm,
    rssSteadyBytes: rssSteady,
    reloadSeconds: reload.ms / 1000,
    reloadStatus: reload.status,
    notFoundBytes: notFound.bytes,
    sigtermSeconds,
    exitCode,
  };
}

async function main(): Promise<void> {
  const run = startRun();
  const one = await measure(1, PORT_BASE);
  const fleet = await measure(TARGETS, PORT_BASE + 1);
  const perTargetBytes = (fleet.rssSteadyBytes - one.rssSteadyBytes) / (TARGETS - 1);
  const results: FleetResults = { provenance: run.finish(), intervalSeconds: INTERVAL_S, perTargetBytes, runs: [one, fleet] };
  const md = ['# bench:fleet', '', ...fleetSection(results, 'bench/results/fleet.json')].join('\n');
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'fleet.md'), md);
  fs.writeFileSync(path.join(S.resultsDir, 'fleet.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(md);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
