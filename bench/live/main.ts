/**
 * Where a live exporter's broker cost goes (`npm run bench:live`, issue 13). `npm run bench`
 * predicts the broker's CPU per minute from rounds replayed one collector at a time; measured live,
 * a minute cost about twice that. This run tells the two causes apart on the same state:
 *
 *  1. live: the exporter at its defaults (`poll.interval: 15s`) through a recording proxy, over a
 *     window of BENCH_LIVE_WINDOW_S (240) seconds: the broker's CPU, and every request it made;
 *  2. back to back: the same requests replayed one after another (the exporter's concurrency):
 *     what they cost without the exporter's timing;
 *  3. timed: the same requests replayed at the moments they were made in the live window;
 *  4. contended: 3 again, beside processes burning the CPU the exporter used, at the same moments
 *     (the exporter shares the two cores with the broker here: does its load alone cost the broker?).
 *
 * 1 ≈ 2: the requests are the cost, and the rounds mispredict what a live exporter asks for (the
 * per-path table says which). 1 ≈ 3 > 2: spreading the requests over time costs the broker more.
 * 1 ≈ 4 > 3: the exporter's own CPU on the broker's cores is what costs the broker more, which
 * only happens where the two share a machine.
 * Each window is net of the background (traffic, nobody polling) measured 30 s before and after.
 * The state and knobs are `npm run bench`'s (bench/run/settings.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, type Provenance, startRun } from '../provenance.js';
import { startExporter, startRecordingProxy, watchPolls, type RecordedRequest } from '../run/exporter-process.js';
import { baselineCpu, brokerCpuOf, replay } from '../run/measure.js';
import { table } from '../run/report.js';
import { EXPORTER_CONCURRENCY, intEnv, S } from '../run/settings.js';
import { setUp, type Setup } from '../run/setup.js';
import { cleanup, cpuSeconds, fmtBytes, fmtRatio, log, logAs, onCleanup, sleep } from '../run/util.js';
import { pathKind, timedReplay } from './requests.js';

const WINDOW_S = intEnv('BENCH_LIVE_WINDOW_S', 240, 30);
const BACKGROUND_S = 30;
/** The exporter's CPU is sampled in slots of this length, and burnt again by this many processes. */
const SLOT_MS = 100;
/** BENCH_LIVE_TRAFFIC=0: publishing paused once the state is built (queues keep their statistics). */
const TRAFFIC = (process.env.BENCH_LIVE_TRAFFIC ?? '1') !== '0';
const BURNERS = 2;
const BURNER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'burner.js');

interface Window {
  label: string;
  /** Broker CPU-s over the window, and net of the background (CPU-s/s, the mean of before and after). */
  gross: number;
  background: number;
  net: number;
  wall: number;
}

function windowOf(label: string, measured: { gross: number; wall: number }, background: number): Window {
  return { label, gross: measured.gross, background, net: Math.max(0, measured.gross - background * measured.wall), wall: measured.wall };
}

async function netOf(setup: Setup, label: string, fn: () => Promise<unknown>, backgroundBefore: number): Promise<{ window: Window; backgroundAfter: number }> {
  const gross = await brokerCpuOf(setup.beamPid, 0, fn);
  const backgroundAfter = await baselineCpu(setup.beamPid, BACKGROUND_S);
  return { window: windowOf(label, gross, (backgroundBefore + backgroundAfter) / 2), backgroundAfter };
}

async function main(): Promise<void> {
  logAs('bench:live');
  const run = startRun();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-live-'));
  onCleanup(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const setup = await setUp();
  if (!TRAFFIC) {
    // Without publishing the broker's background is small and steady: a window's net CPU is then
    // not the small difference of two large numbers.
    setup.traffic.setPaused(true);
    await sleep(2 * S.statsIntervalMs);
  }
  const proxy = await startRecordingProxy(Number(new URL(setup.broker.managementUrl).port));

  log(`live: the exporter at its defaults through the proxy, ${WINDOW_S} s`);
  const before = await baselineCpu(setup.beamPid, BACKGROUND_S);
  const exporter = await startExporter('live', `http://127.0.0.1:${proxy.port}`, { poll: { interval: '15s' } }, workDir);
  let windowStart = 0;
  let exporterCpu: number[] = [];
  let gross: { gross: number; wall: number };
  try {
    // The window starts after the first queue poll: start-up fetches every held part at once.
    await watchPolls(exporter, 'queues', 1, 10 * 60_000, 0);
    windowStart = Date.now();
    const sampler = sampleCpu(exporter.pid, SLOT_MS);
    gross = await brokerCpuOf(setup.beamPid, 0, () => sleep(WINDOW_S * 1000));
    exporterCpu = sampler.stop();
  } finally {
    await exporter.stop();
  }
  const windowEnd = windowStart + WINDOW_S * 1000;
  const inWindow: RecordedRequest[] = proxy.records.filter((r) => r.start >= windowStart && r.start < windowEnd);
  await proxy.close();
  let background = await baselineCpu(setup.beamPid, BACKGROUND_S);
  const live = windowOf('live exporter', gross, (before + background) / 2);

  log(`back to back: the window's ${inWindow.length} requests, ${EXPORTER_CONCURRENCY} at a time`);
  const paths = inWindow.map((r) => r.path);
  const backToBack = await netOf(setup, 'same requests, back to back', () => replay(setup.pool, setup.api.auth, paths, EXPORTER_CONCURRENCY), background);
  background = backToBack.backgroundAfter;

  log(`timed: the window's requests at their moments, ${WINDOW_S} s`);
  const timed = await netOf(setup, 'same requests, at their live moments', () => timedReplay(setup.broker.managementUrl, setup.api.auth, inWindow, windowStart, WINDOW_S), background);

  background = timed.backgroundAfter;

  log(`timed, beside processes burning the exporter's CPU at its moments (${sum(exporterCpu).toFixed(1)} CPU-s), ${WINDOW_S} s`);
  const schedules = burnerSchedules(exporterCpu, SLOT_MS, BURNERS).map((schedule, i) => {
    const file = path.join(workDir, `burner-${i}.json`);
    fs.writeFileSync(file, JSON.stringify(schedule));
    return file;
  });
  const contended = await netOf(
    setup,
    "same requests at their moments, beside the exporter's CPU load",
    async () => {
      const burners = schedules.map((file) => spawn(process.execPath, [BURNER, file], { stdio: 'ignore' }));
      try {
        await timedReplay(setup.broker.managementUrl, setup.api.auth, inWindow, windowStart, WINDOW_S);
      } finally {
        for (const burner of burners) burner.kill();
      }
    },
    background,
  );
  writeReport(run.finish(), inWindow, sum(exporterCpu), [live, backToBack.window, timed.window, contended.window]);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** A process's CPU seconds in each slot of `slotMs`, from now until stop(). */
function sampleCpu(pid: number, slotMs: number): { stop(): number[] } {
  const slots: number[] = [];
  let last = cpuSeconds(pid);
  const timer = setInterval(() => {
    const now = cpuSeconds(pid);
    slots.push(now - last);
    last = now;
  }, slotMs);
  return {
    stop() {
      clearInterval(timer);
      return slots;
    },
  };
}

/** The slots' CPU spread over `burners` single-threaded processes: [offset ms, CPU ms] each. */
function burnerSchedules(slots: readonly number[], slotMs: number, burners: number): [number, number][][] {
  return Array.from({ length: burners }, () => slots.map((cpu, i): [number, number] => [i * slotMs, Math.min(slotMs, (cpu * 1000) / burners)]).filter(([, ms]) => ms > 0));
}

function writeReport(provenance: Provenance, requests: RecordedRequest[], exporterCpu: number, windows: Window[]): void {
  const perMinute = (w: Window) => (w.net / WINDOW_S) * 60;
  const live = windows[0]!;
  const kinds = new Map<string, { count: number; bytes: number }>();
  for (const r of requests) {
    const kind = pathKind(r.path);
    const k = kinds.get(kind) ?? { count: 0, bytes: 0 };
    k.count++;
    k.bytes += r.bytes;
    kinds.set(kind, k);
  }
  const lines = [
    '# bench:live',
    '',
    describe(provenance),
    `Settings: ${S.queues} queues, window ${WINDOW_S} s, background ${BACKGROUND_S} s before and after each window; ${TRAFFIC ? `traffic ${S.rate} msg/s` : 'publishing paused'}.`,
    '',
    table(
      ['what', 'broker CPU (gross)', 'background', 'net', 'per minute of the live window', 'against live'],
      windows.map((w) => [w.label, `${w.gross.toFixed(2)} s over ${w.wall.toFixed(0)} s`, `${w.background.toFixed(3)} CPU-s/s`, `${w.net.toFixed(2)} s`, `${perMinute(w).toFixed(2)} s`, fmtRatio(w.net / live.net)]),
    ),
    '',
    `Requests in the live window: ${requests.length}, ${fmtBytes(requests.reduce((n, r) => n + r.bytes, 0))}. The exporter's own CPU in it: ${exporterCpu.toFixed(1)} s (${((exporterCpu / WINDOW_S) * 60).toFixed(2)} s per minute).`,
    '',
    table(
      ['request', 'count', 'bytes'],
      [...kinds.entries()].sort((a, b) => b[1].bytes - a[1].bytes).map(([kind, k]) => [kind, k.count, fmtBytes(k.bytes)]),
    ),
  ];
  const out = `${lines.join('\n')}\n`;
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, TRAFFIC ? 'live.md' : 'live-paused.md'), out);
  process.stdout.write(out);
}

main()
  .catch((error: unknown) => {
    log('failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
