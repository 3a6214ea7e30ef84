/**
 * Plugin benchmark (`npm run bench:plugin`): the broker's CPU with the hybrid source (the plugin
 * collector at its defaults beside every other default) against the management API alone, on the
 * benchmark's private node (bench/run/setup.ts: BENCH_QUEUES queues, 10,000 by default, with
 * traffic). Two measures, net of the broker's CPU with the traffic and nobody polling:
 *  - one request at a time, BENCH_REPEATS times each: the API's statistics list (GET /api/queues),
 *    the plugin's per-queue counter families (what the collector asks with statistics disabled),
 *    and the collector's default requests with statistics on (auth and Raft families, /metrics);
 *  - the exporter at its defaults for BENCH_PLUGIN_WINDOW_S seconds, API only and with
 *    `collectors.plugin.enabled: true`, in the order API, hybrid, hybrid, API (so a drift of the
 *    machine's load weighs on both alike), each net of the broker's idle CPU measured just before
 *    it: broker CPU-seconds per second.
 * Writes bench/results/plugin.json (commit, machine, command, date, load: ../provenance.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { parseVersion } from '../../src/broker/broker-info.js';
import { PLUGIN_FAMILIES } from '../../src/collectors/plugin/collector.js';
import { queueCounterFamilies } from '../../src/collectors/plugin/queue-counters.js';
import { startRun } from '../provenance.js';
import { startExporter } from '../run/exporter-process.js';
import { baselineCpu, brokerCpuOf, replay } from '../run/measure.js';
import { intEnv, S } from '../run/settings.js';
import { setUp } from '../run/setup.js';
import { cleanup, drain, log, logAs, median, onCleanup, sleep } from '../run/util.js';

logAs('plugin');

const WINDOW_S = intEnv('BENCH_PLUGIN_WINDOW_S', 90, 10);

interface RequestCost {
  request: string;
  /** Broker CPU-seconds of one request, net of the background (median, and every repeat). */
  brokerCpuS: number;
  brokerCpuSRuns: number[];
  wallS: number;
  bytes: number;
}

interface WindowCost {
  source: string;
  /** Broker CPU-seconds per second with the exporter polling, net of the idle rate measured just before. */
  brokerCpuPerS: number;
  /** The broker's CPU-seconds per second with nobody polling, just before the window. */
  idleCpuPerS: number;
  windowS: number;
}

/** GETs `paths` one after another from rabbitmq_prometheus, in the text format the collector reads; any status but 200 fails the run. */
async function plainText(pool: Pool, paths: readonly string[]): Promise<{ bytes: number }> {
  let bytes = 0;
  for (const p of paths) {
    const res = await pool.request({ path: p, method: 'GET', headers: { accept: 'text/plain; version=0.0.4' } });
    const body = await drain(res.body);
    if (res.statusCode !== 200) throw new Error(`GET ${p}: HTTP ${res.statusCode}`);
    bytes += body;
  }
  return { bytes };
}

async function costOf(request: string, fetchOnce: () => Promise<{ bytes: number }>, beamPid: number, baseline: number): Promise<RequestCost> {
  await fetchOnce(); // warm-up
  const runs: { net: number; wall: number; bytes: number }[] = [];
  for (let i = 0; i < S.repeats; i++) {
    const r = await brokerCpuOf(beamPid, baseline, fetchOnce);
    runs.push({ net: r.net, wall: r.wall, bytes: r.result.bytes });
  }
  const cost = { request, brokerCpuS: median(runs.map((r) => r.net)), brokerCpuSRuns: runs.map((r) => Number(r.net.toFixed(4))), wallS: median(runs.map((r) => r.wall)), bytes: runs[0]!.bytes };
  log(`${request}: broker ${cost.brokerCpuS.toFixed(3)} CPU-s per request, ${cost.wallS.toFixed(3)} s, ${cost.bytes} bytes`);
  return cost;
}

async function windowOf(source: string, setup: Awaited<ReturnType<typeof setUp>>, settings: Record<string, unknown>, workDir: string): Promise<WindowCost> {
  const idle = await baselineCpu(setup.beamPid, 20);
  const exp = await startExporter(source, setup.broker.managementUrl, settings, workDir);
  // Every collector's first poll is behind it before the window opens.
  await sleep(30_000);
  const r = await brokerCpuOf(setup.beamPid, idle, () => sleep(WINDOW_S * 1000));
  await exp.stop();
  const cost = { source, brokerCpuPerS: r.gross / r.wall - idle, idleCpuPerS: idle, windowS: r.wall };
  log(`${source}: broker ${cost.brokerCpuPerS.toFixed(4)} CPU-s/s over ${r.wall.toFixed(0)} s (idle just before: ${idle.toFixed(4)})`);
  return cost;
}

async function main(): Promise<void> {
  const run = startRun();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-bench-plugin-'));
  onCleanup(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const setup = await setUp();
  const major = parseVersion(setup.broker.version ?? '3.10')[0];
  const plugin = new Pool(setup.broker.prometheusUrl, { connections: 1, headersTimeout: 300_000, bodyTimeout: 300_000 });
  onCleanup(() => plugin.close());
  const detailed = (families: readonly string[]) => `/metrics/detailed?${families.map((f) => `family=${f}`).join('&')}`;
  const requests = [
    await costOf('GET /api/queues (the API\'s statistics list)', () => replay(setup.seqPool, setup.api.auth, ['/api/queues'], 1), setup.beamPid, setup.baseline),
    await costOf(`GET ${detailed(queueCounterFamilies(major))} (the plugin's per-queue counters)`, () => plainText(plugin, [detailed(queueCounterFamilies(major))]), setup.beamPid, setup.baseline),
    await costOf(`GET ${detailed(PLUGIN_FAMILIES)} and GET /metrics (the plugin collector's defaults, statistics on)`, () => plainText(plugin, [detailed(PLUGIN_FAMILIES), '/metrics']), setup.beamPid, setup.baseline),
  ];
  const baselineAgain = await baselineCpu(setup.beamPid, 10);
  const API_ONLY = 'API only (every default)';
  const HYBRID = 'hybrid (every default, plugin collector enabled)';
  const hybrid = { collectors: { plugin: { enabled: true, port: setup.broker.prometheusPort } } };
  const windows: WindowCost[] = [];
  for (const [source, settings] of [[API_ONLY, {}], [HYBRID, hybrid], [HYBRID, hybrid], [API_ONLY, {}]] as const) windows.push(await windowOf(source, setup, settings, workDir));
  const medianOf = (source: string) => median(windows.filter((w) => w.source === source).map((w) => w.brokerCpuPerS));
  const bySource = [API_ONLY, HYBRID].map((source) => ({ source, brokerCpuPerS: medianOf(source) }));
  const results = {
    bench: 'plugin',
    broker: { version: setup.broker.version, queues: setup.totals.queues, publishRate: setup.msgRate, baselineCpuPerS: setup.baseline, baselineCpuPerSAfterRequests: baselineAgain },
    pollInterval: S.pollInterval,
    requests,
    windows,
    bySource,
    provenance: run.finish(),
  };
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'plugin.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(JSON.stringify(results, null, 2));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
