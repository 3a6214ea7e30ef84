// One size of the scale benchmark: the exporter against the simulator, measured over POLLS queue polls.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { request } from 'undici';
import { planQueueQuery, queueOptionsSchema } from '../../src/collectors/queues/collector.js';
import { PROM_HEADERS } from '../run/settings.js';
import { cpuSeconds, log, memoryOf, percentile, sleep } from '../run/util.js';
import { startExporter, startScraper, startSimulator, stop, type SimulatorProcess } from './processes.js';
import { POLLS } from './settings.js';

const median = (xs: number[]) => percentile(xs, 50);

export interface SizeResult {
  queues: number;
  polls: number;
  pollSeconds: number;
  cpuPerPoll: number;
  parseAloneSeconds: number;
  queueBodyBytes: number;
  roundBytes: number;
  rssMax: number;
  hwm: number;
  loopMaxSeconds: number;
  scrapesDuring: number;
  p50During: number;
  p99During: number;
  maxDuring: number;
  scrapesAll: number;
  p99All: number;
  failedScrapes: number;
  series: number;
  textBytes: number;
  gzipBytes: number;
}

interface Exposition {
  own: Map<string, number>;
  series: number;
  textBytes: number;
  gzipBytes: number;
}

/** The text exposition (gzip, decompressed here): samples of the exporter's own series, series count, sizes. */
async function readExposition(url: string): Promise<Exposition> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readExpositionOnce(url);
    } catch (error) {
      if (attempt >= 5) throw error;
      log(`reading /metrics failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), again`);
      await sleep(500);
    }
  }
}

async function readExpositionOnce(url: string): Promise<Exposition> {
  const res = await request(`${url}/metrics`, { headers: PROM_HEADERS });
  const gz = Buffer.from(await res.body.arrayBuffer());
  const text = gunzipSync(gz).toString('utf8');
  const own = new Map<string, number>();
  for (const m of text.matchAll(/^(rabbitmq_exporter_[a-z_]+(?:\{[^}]*\})?) (\S+)$/gm)) own.set(m[1]!, Number(m[2]));
  let series = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (text.charCodeAt(i + 1) !== 35 && i + 1 < text.length) series++;
  if (text.charCodeAt(0) !== 35) series++;
  return { own, series, textBytes: Buffer.byteLength(text), gzipBytes: gz.length };
}

/** JSON.parse alone of the bodies one queue poll asked for, CPU seconds (median of 3). */
async function parseAlone(sim: SimulatorProcess, paths: string[]): Promise<{ seconds: number; bytes: number }> {
  const auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
  const bodies: Buffer[] = [];
  for (const p of paths) {
    const res = await request(`${sim.url}${p}`, { headers: { authorization: auth } });
    bodies.push(Buffer.from(await res.body.arrayBuffer()));
  }
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const before = process.cpuUsage();
    for (const body of bodies) JSON.parse(body.toString('utf8'));
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 1e6);
  }
  return { seconds: median(runs), bytes: bodies.reduce((n, b) => n + b.length, 0) };
}

/** The query the queue collector sends (from its rabbitmq_queue_query series we only know the mode; columns are rebuilt here). */
function queueQuery(): string {
  const plan = planQueueQuery({
    broker: { managementVersion: '3.10.8', rabbitmqVersion: '3.10.8', productName: 'RabbitMQ', productVersion: '3.10.8', erlangVersion: '', clusterName: '', node: '', variant: 'A', statisticsDisabled: false },
    options: queueOptionsSchema.parse({}),
    log: pino({ level: 'silent' }),
    carryOver: new Map(),
  });
  return `?${new URLSearchParams(Object.entries(plan.query).map(([k, v]) => [k, String(v)] as [string, string])).toString()}`;
}

export async function measure(queues: number): Promise<SizeResult> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-scale-'));
  log(`${queues} queues: starting the simulator`);
  const sim = await startSimulator(queues);
  const exp = await startExporter(sim, workDir);
  const memSamples: number[] = [];
  const memTimer = setInterval(() => {
    const m = memoryOf(exp.pid);
    if (m) memSamples.push(m.rss);
  }, 100);
  const lastSuccess = 'rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}';
  const pollOf = async () => (await readExposition(exp.url)).own.get(lastSuccess);
  // Warm-up: the first poll also makes the simulator build (and cache) its answers.
  const deadline = Date.now() + 600_000;
  let first: number | undefined;
  for (;;) {
    first = await pollOf();
    if (first) break;
    if (Date.now() > deadline) throw new Error('no successful queue poll');
    await sleep(1000);
  }
  log(`${queues} queues: warm, measuring ${POLLS} polls`);
  const scraper = startScraper(exp.url);
  const cpuStart = cpuSeconds(exp.pid);
  const answersStart = sim.answers.length;
  let last = first;
  const durations: number[] = [];
  const loopMax: number[] = [];
  let exposition: Exposition | undefined;
  while (durations.length < POLLS) {
    await sleep(500);
    exposition = await readExposition(exp.url);
    const at = exposition.own.get(lastSuccess);
    if (at !== undefined && at !== last) {
      last = at;
      durations.push(exposition.own.get('rabbitmq_exporter_collector_duration_seconds{collector="queues"}') ?? NaN);
      loopMax.push(exposition.own.get('rabbitmq_exporter_event_loop_delay_max_seconds') ?? NaN);
      log(`${queues} queues: poll ${durations.length}: ${durations.at(-1)!.toFixed(2)} s`);
    }
    if (Date.now() > deadline) throw new Error('polls did not finish in time');
  }
  const cpu = cpuSeconds(exp.pid) - cpuStart;
  await scraper.stop();
  const scrapes = scraper.scrapes;
  clearInterval(memTimer);
  const mem = memoryOf(exp.pid) ?? { rss: NaN, hwm: NaN };
  // Poll windows: from the vhost list to the end of the last queue answer of each round.
  const answers = sim.answers.slice(answersStart);
  const windows: { start: number; end: number }[] = [];
  for (const a of answers) {
    if (a.path === '/api/vhosts' && a.query === 'columns=name') windows.push({ start: a.start, end: a.end });
    else if (windows.length > 0) windows.at(-1)!.end = Math.max(windows.at(-1)!.end, a.end);
  }
  const during = scrapes.filter((s) => windows.some((w) => s.start >= w.start && s.start <= w.end));
  const queuePaths = [...new Set(answers.filter((a) => a.path.startsWith('/api/queues')).map((a) => a.path))];
  const roundBytes = answers.filter((a) => a.path.startsWith('/api/queues')).reduce((n, a) => n + a.bytes, 0) / Math.max(1, windows.length);
  // The exporter asked with columns=: ask the same way for the JSON.parse reference.
  const columnsQuery = queueQuery();
  stop(exp.child);
  const alone = await parseAlone(sim, queuePaths.map((p) => `${p}${columnsQuery}`));
  stop(sim.child);
  return {
    queues,
    polls: durations.length,
    pollSeconds: median(durations),
    cpuPerPoll: cpu / durations.length,
    parseAloneSeconds: alone.seconds,
    queueBodyBytes: alone.bytes,
    roundBytes,
    rssMax: Math.max(...memSamples, mem.rss),
    hwm: mem.hwm,
    loopMaxSeconds: Math.max(...loopMax),
    scrapesDuring: during.length,
    p50During: percentile(during.map((s) => s.ms), 50),
    p99During: percentile(during.map((s) => s.ms), 99),
    maxDuring: Math.max(...during.map((s) => s.ms)),
    scrapesAll: scrapes.length,
    p99All: percentile(scrapes.map((s) => s.ms), 99),
    failedScrapes: scrapes.filter((s) => s.status !== 200).length,
    series: exposition!.series,
    textBytes: exposition!.textBytes,
    gzipBytes: exposition!.gzipBytes,
  };
}
