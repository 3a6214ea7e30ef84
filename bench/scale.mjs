#!/usr/bin/env node
/**
 * Scale benchmark (part of `npm run bench`; alone: `npm run bench:scale`): the built exporter
 * (dist/src/main.js, every default collector) against the simulated management API
 * (bench/simulator-server.mjs, its own process) at 10k, 30k and 100k queues over 10 vhosts, and
 * per size:
 *  - queue poll duration (rabbitmq_exporter_collector_duration_seconds{collector="queues"});
 *  - exporter CPU per queue poll (utime+stime of the process over the measured polls, all
 *    collectors and the snapshot's compression included) next to JSON.parse alone of the same
 *    bodies (fetched from the simulator and parsed in this process);
 *  - RSS (max of VmRSS sampled every 100 ms, and VmHWM);
 *  - the longest event-loop delay (rabbitmq_exporter_event_loop_delay_max_seconds, last minute);
 *  - /metrics latency p50/p99 (Prometheus headers, gzip) for scrapes started while a queue poll's
 *    requests were in flight, and over the whole run;
 *  - series and body sizes.
 * Writes bench/results/scale.md and .json.
 *
 * Knobs: BENCH_SCALE_QUEUES (10000,30000,100000), BENCH_SCALE_VHOSTS (10), BENCH_SCALE_POLLS (3),
 * BENCH_SCALE_INTERVAL (queue poll interval, 15s), BENCH_RESULTS_DIR (bench/results).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZES = (process.env.BENCH_SCALE_QUEUES || '10000,30000,100000').split(',').map(Number);
const VHOSTS = Number(process.env.BENCH_SCALE_VHOSTS || 10);
const POLLS = Number(process.env.BENCH_SCALE_POLLS || 3);
const INTERVAL = process.env.BENCH_SCALE_INTERVAL || '15s';
const RESULTS = path.resolve(ROOT, process.env.BENCH_RESULTS_DIR || 'bench/results');
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const PROM_HEADERS = {
  accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1',
  'accept-encoding': 'gzip',
};

/** Scrapes /metrics in a loop (Prometheus headers, body read), posting {start, ms, status} for each. */
const SCRAPER = `
const { workerData, parentPort } = require('node:worker_threads');
const { request } = require(${JSON.stringify(path.join(ROOT, 'node_modules/undici'))});
(async () => {
  for (;;) {
    const start = Date.now();
    const t = performance.now();
    try {
      const res = await request(workerData.url, { headers: workerData.headers });
      await res.body.dump();
      parentPort.postMessage({ start, ms: performance.now() - t, status: res.statusCode });
    } catch (error) {
      parentPort.postMessage({ start, ms: performance.now() - t, status: String(error) });
    }
    await new Promise((r) => setTimeout(r, 20));
  }
})();
`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...args) => console.error(`[scale ${new Date().toISOString().slice(11, 19)}]`, ...args);
const children = new Set();
const cleanup = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
const median = (xs) => percentile(xs, 50);

function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startSimulator(queues) {
  const child = spawn(process.execPath, ['--max-old-space-size=4096', path.join(ROOT, 'bench/simulator-server.mjs'), String(queues), String(VHOSTS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const lines = readline.createInterface({ input: child.stdout });
  const answers = [];
  const ready = new Promise((resolve) => {
    lines.on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.url) resolve(msg);
      else answers.push(msg);
    });
  });
  const info = await ready;
  return { ...info, answers, child };
}

async function startExporter(sim, workDir) {
  const port = await freePort();
  const config = path.join(workDir, 'config.yaml');
  fs.writeFileSync(
    config,
    [
      'poll:',
      '  interval: 5s',
      'target:',
      `  url: ${sim.url}`,
      `  username: ${sim.username}`,
      `  password: ${sim.password}`,
      'collectors:',
      '  queues:',
      `    interval: ${INTERVAL}`,
      '    timeout: 60s',
      '',
    ].join('\n'),
  );
  const logFile = fs.openSync(path.join(workDir, 'exporter.log'), 'w');
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/src/main.js'), '--config', config, '--web.listen-address', `127.0.0.1:${port}`], {
    stdio: ['ignore', logFile, logFile],
    env: { PATH: process.env.PATH ?? '' },
  });
  children.add(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await request(`${url}/-/healthy`);
      await res.body.dump();
      if (res.statusCode === 200) return { url, child, pid: child.pid };
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  throw new Error('exporter did not start');
}

/** The text exposition (gzip, decompressed here): samples of the exporter's own series, series count, sizes. */
async function readExposition(url) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readExpositionOnce(url);
    } catch (error) {
      if (attempt >= 5) throw error;
      log(`reading /metrics failed (${error.code ?? error.message}), again`);
      await sleep(500);
    }
  }
}

async function readExpositionOnce(url) {
  const res = await request(`${url}/metrics`, { headers: PROM_HEADERS });
  const gz = Buffer.from(await res.body.arrayBuffer());
  const text = gunzipSync(gz).toString('utf8');
  const own = new Map();
  for (const m of text.matchAll(/^(rabbitmq_exporter_[a-z_]+(?:\{[^}]*\})?) (\S+)$/gm)) own.set(m[1], Number(m[2]));
  let series = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (text.charCodeAt(i + 1) !== 35 && i + 1 < text.length) series++;
  if (text.charCodeAt(0) !== 35) series++;
  return { own, series, textBytes: Buffer.byteLength(text), gzipBytes: gz.length };
}

/** JSON.parse alone of the bodies one queue poll asked for, CPU seconds (median of 3). */
async function parseAlone(sim, paths) {
  const auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
  const bodies = [];
  for (const p of paths) {
    const res = await request(`${sim.url}${p}`, { headers: { authorization: auth } });
    bodies.push(Buffer.from(await res.body.arrayBuffer()));
  }
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const before = process.cpuUsage();
    for (const body of bodies) JSON.parse(body.toString('utf8'));
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / 1e6);
  }
  return { seconds: median(runs), bytes: bodies.reduce((n, b) => n + b.length, 0) };
}

async function measure(queues) {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-scale-'));
  log(`${queues} queues: starting the simulator`);
  const sim = await startSimulator(queues);
  const exp = await startExporter(sim, workDir);
  const memSamples = [];
  const memTimer = setInterval(() => {
    try {
      memSamples.push(memory(exp.pid).rss);
    } catch {
      /* exited */
    }
  }, 100);
  const pollOf = async () => (await readExposition(exp.url)).own.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}');
  // Warm-up: the first poll also makes the simulator build (and cache) its answers.
  const deadline = Date.now() + 600_000;
  let first;
  while (!(first = await pollOf())) {
    if (Date.now() > deadline) throw new Error('no successful queue poll');
    await sleep(1000);
  }
  log(`${queues} queues: warm, measuring ${POLLS} polls`);
  // The scraper runs in a worker thread: this thread's own work (reading and decompressing the
  // whole exposition to follow the polls) must not delay the scrapes it times.
  const scraper = new Worker(SCRAPER, { eval: true, workerData: { url: `${exp.url}/metrics`, headers: PROM_HEADERS } });
  const scrapes = [];
  scraper.on('message', (m) => scrapes.push(m));
  const cpuStart = cpuSeconds(exp.pid);
  const answersStart = sim.answers.length;
  let last = first;
  const durations = [];
  const loopMax = [];
  let exposition;
  while (durations.length < POLLS) {
    await sleep(500);
    exposition = await readExposition(exp.url);
    const at = exposition.own.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}');
    if (at !== undefined && at !== last) {
      last = at;
      durations.push(exposition.own.get('rabbitmq_exporter_collector_duration_seconds{collector="queues"}'));
      loopMax.push(exposition.own.get('rabbitmq_exporter_event_loop_delay_max_seconds'));
      log(`${queues} queues: poll ${durations.length}: ${durations.at(-1).toFixed(2)} s`);
    }
    if (Date.now() > deadline) throw new Error('polls did not finish in time');
  }
  const cpu = cpuSeconds(exp.pid) - cpuStart;
  await scraper.terminate();
  clearInterval(memTimer);
  const mem = memory(exp.pid);
  // Poll windows: from the vhost list to the end of the last queue answer of each round.
  const answers = sim.answers.slice(answersStart);
  const windows = [];
  for (const a of answers) {
    if (a.path === '/api/vhosts' && a.query === 'columns=name') windows.push({ start: a.start, end: a.end });
    else if (windows.length > 0) windows.at(-1).end = Math.max(windows.at(-1).end, a.end);
  }
  const during = scrapes.filter((s) => windows.some((w) => s.start >= w.start && s.start <= w.end));
  const queuePaths = [...new Set(answers.filter((a) => a.path.startsWith('/api/queues')).map((a) => a.path))];
  const roundBytes = answers.filter((a) => a.path.startsWith('/api/queues')).reduce((n, a) => n + a.bytes, 0) / Math.max(1, windows.length);
  // The exporter asked with columns=: ask the same way for the JSON.parse reference.
  const columnsQuery = await queueQuery();
  exp.child.kill('SIGTERM');
  children.delete(exp.child);
  const alone = await parseAlone(sim, queuePaths.map((p) => `${p}${columnsQuery}`));
  sim.child.kill('SIGTERM');
  children.delete(sim.child);
  const failed = scrapes.filter((s) => s.status !== 200).length;
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
    failedScrapes: failed,
    series: exposition.series,
    textBytes: exposition.textBytes,
    gzipBytes: exposition.gzipBytes,
  };
}

/** The query the queue collector sends (from its rabbitmq_queue_query series we only know the mode; columns are rebuilt here). */
async function queueQuery() {
  const { planQueueQuery, queueOptionsSchema } = await import(path.join(ROOT, 'dist/src/collectors/queues.js'));
  const plan = planQueueQuery({
    broker: { variant: 'A', statisticsDisabled: false },
    options: queueOptionsSchema.parse({}),
    log: { warn: () => undefined, info: () => undefined, debug: () => undefined },
    carryOver: new Map(),
  });
  return `?${new URLSearchParams(Object.entries(plan.query).map(([k, v]) => [k, String(v)])).toString()}`;
}

const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;
const ms = (x) => `${x.toFixed(1)} ms`;

async function main() {
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const results = [];
  for (const n of SIZES) {
    results.push(await measure(n));
    log(JSON.stringify(results.at(-1)));
  }
  const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const cpus = os.cpus();
  const header = ['queues', 'queue poll (median)', 'exporter CPU per queue poll', 'JSON.parse alone, same bodies', 'CPU / parse', 'queue answers per poll', 'RSS max (VmHWM)', 'longest event-loop delay', '/metrics p50 / p99 / max during polls (n)', '/metrics p99, whole run', 'series', '/metrics text / gzip'];
  const rows = results.map((r) => [
    r.queues.toLocaleString('en'),
    `${r.pollSeconds.toFixed(2)} s`,
    `${r.cpuPerPoll.toFixed(2)} s`,
    `${r.parseAloneSeconds.toFixed(2)} s`,
    `${(r.cpuPerPoll / r.parseAloneSeconds).toFixed(2)}×`,
    mb(r.roundBytes),
    `${mb(r.rssMax)} (${mb(r.hwm)})`,
    ms(r.loopMaxSeconds * 1000),
    `${ms(r.p50During)} / ${ms(r.p99During)} / ${ms(r.maxDuring)} (${r.scrapesDuring})`,
    ms(r.p99All),
    r.series.toLocaleString('en'),
    `${mb(r.textBytes)} / ${mb(r.gzipBytes)}`,
  ]);
  const first = results[0];
  const lastR = results.at(-1);
  const growth = (key) => (lastR[key] / first[key]).toFixed(2);
  const lines = [
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average ${load} before, ${loadAfter} after (1, 5, 15 min).`,
    `Command: \`${['BENCH_SCALE_QUEUES', 'BENCH_SCALE_VHOSTS', 'BENCH_SCALE_POLLS', 'BENCH_SCALE_INTERVAL'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`).concat(['npm run bench:scale']).join(' ')}\` (${POLLS} measured queue polls per size after one warm-up, ${VHOSTS} vhosts, queue interval ${INTERVAL}).`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `Growth from ${first.queues.toLocaleString('en')} to ${lastR.queues.toLocaleString('en')} queues (×${(lastR.queues / first.queues).toFixed(0)}): poll ×${growth('pollSeconds')}, CPU ×${growth('cpuPerPoll')}, JSON.parse ×${growth('parseAloneSeconds')}, RSS ×${growth('rssMax')}, series ×${growth('series')}, body ×${growth('roundBytes')}.`,
    `Scrapes that failed: ${results.map((r) => r.failedScrapes).join(', ')}.`,
  ];
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(path.join(RESULTS, 'scale.md'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(RESULTS, 'scale.json'), `${JSON.stringify({ load, loadAfter, results }, null, 2)}\n`);
  console.log(lines.join('\n'));
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(cleanup);
