#!/usr/bin/env node
/**
 * rabbitmq-exporter benchmark (`npm run bench`): one run, one table.
 *
 *  1. starts a PRIVATE RabbitMQ node (test/broker/support/broker.ts, compiled to bench/dist by
 *     `npm run bench`) with rabbitmq_management and rabbitmq_prometheus only; never touches
 *     another broker on the machine;
 *  2. builds the state over AMQP (many channels in parallel): vhosts, queues (about 2% quorum),
 *     topic exchanges, bindings, then publishers and consumers (manual acks) at a steady rate;
 *  3. runs the built exporter (`node dist/src/main.js --config <yaml>`, stdout/stderr to a log in a
 *     temp dir) and measures:
 *     - every default collector alone (`interval: 1s`): the paths of one poll, recorded by a small
 *       proxy in front of the broker; its poll duration (`rabbitmq_exporter_collector_duration_seconds`,
 *       straight to the broker) against a raw fetch of the same paths (undici, same concurrency, bodies
 *       read, not parsed); the broker's CPU (beam.smp utime+stime from /proc, net of the background);
 *     - the queue collector's statistics poll (one in stats_every) apart from its counts-only poll;
 *     - the broker's CPU for one round of all those paths (with either queue poll, and averaged over
 *       the queue collector's cycle) against kbudde/rabbitmq_exporter's four unfiltered lists, and for
 *       each path alone;
 *     - the broker's CPU per minute with the exporter at every default (poll.interval 15s), over
 *       BENCH_MINUTE_WINDOW_S, next to kbudde's round and /metrics/per-object every 15 s;
 *     - with every default (poll.interval BENCH_POLL_INTERVAL): /metrics latency over BENCH_SCRAPES
 *       scrapes with Prometheus's headers, and the first scrape after each new snapshot, against
 *       rabbitmq_prometheus's /metrics/per-object; RSS (max of VmRSS), Node memory, series, bytes,
 *       `promtool check metrics`;
 *     - (BENCH_ALTERNATIVES=1) the queue collector's other settings: modes, per_vhost, details,
 *       message_stats, paging;
 *  4. prints the tables, writes them to bench/results/latest.md and bench/results/<N>-queues.md (+ .json),
 *     and stops everything it started, also on failure, Ctrl-C or the overall timeout.
 *
 * Sizes and knobs (environment): BENCH_QUEUES (10000), BENCH_VHOSTS (10), BENCH_QUORUM_PERCENT (2),
 * BENCH_EXCHANGES (300), BENCH_BINDINGS (5000), BENCH_ACTIVE_QUEUES (500: queues with traffic),
 * BENCH_PUBLISHERS (20), BENCH_CONSUMERS (20) (AMQP connections), BENCH_RATE (500 msg/s in total),
 * BENCH_POLL_INTERVAL (5s: poll.interval of the main run; queues poll every 2 x that),
 * BENCH_POLLS (5: measured polls per collector after one warm-up), BENCH_SCRAPES (200), BENCH_REPEATS (5),
 * BENCH_SETUP_CHANNELS (8 AMQP channels per vhost declaring in parallel),
 * BENCH_STATS_INTERVAL_MS (5000: the broker's collect_statistics_interval, RabbitMQ's default),
 * BENCH_ALTERNATIVES (1), BENCH_TIMEOUT_MIN (45), BENCH_RESULTS_DIR (bench/results),
 * BENCH_MINUTE_WINDOW_S (240: how long the broker's CPU is measured with the exporter at its defaults;
 *   a multiple of the queue collector's cycle, stats_every × 30 s = 120 s).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import amqp from 'amqplib';
import { Pool, request } from 'undici';
import { stringify as toYaml } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HARNESS = path.join(ROOT, 'bench/dist/test/broker/support/broker.js');
const EXPORTER_MAIN = path.join(ROOT, 'dist/src/main.js');
const REGISTRY = path.join(ROOT, 'dist/src/collectors/registry.js');

// ---------------------------------------------------------------------------
// settings

function intEnv(name, fallback, min = 0) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected an integer >= ${min}`);
  return n;
}

const S = {
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
const EXPORTER_CONCURRENCY = 2;
const PROM_HEADERS = {
  accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4,*/*;q=0.1',
  'accept-encoding': 'gzip',
};
/** The queue collector's default stats_every (one poll in this many fetches the statistics); set in main(). */
let STATS_EVERY = 0;
const KBUDDE_PATHS = ['/api/overview', '/api/queues', '/api/exchanges', '/api/nodes'];
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

// ---------------------------------------------------------------------------
// small helpers

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();
const log = (...args) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);

function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile. */
function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

async function withTimeout(promise, ms, what) {
  let timer;
  try {
    return await Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Deterministic PRNG (mulberry32), so every run builds the same state. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fmtS = (s) => (Number.isFinite(s) ? (s >= 10 ? s.toFixed(1) : s >= 1 ? s.toFixed(2) : s >= 0.1 ? s.toFixed(3) : s.toFixed(4)) + ' s' : 'n/a');
/** Start to start at `interval: 1s`: the end-to-end poll time when over the interval. */
const fmtCycle = (s) => (!Number.isFinite(s) ? 'n/a' : s < 1.05 ? '≤ 1 s (the interval)' : fmtS(s));
const fmtMs = (ms) => (Number.isFinite(ms) ? (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)) + ' ms' : 'n/a');
const fmtBytes = (b) => (!Number.isFinite(b) ? 'n/a' : b >= 1e6 ? `${(b / 1e6).toFixed(2)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(1)} kB` : `${b} B`);
const fmtRatio = (r) => (Number.isFinite(r) ? (r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(2) : r.toFixed(3)) + '×' : 'n/a');
const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');

/** CPU seconds (utime + stime) of a process. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** { rss, hwm } in bytes from /proc/<pid>/status, or undefined when the process is gone. */
function memoryOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function readBody(body) {
  const chunks = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Reads a body to its end without keeping it; returns its byte count. */
async function drain(body) {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  return bytes;
}

// ---------------------------------------------------------------------------
// cleanup: everything started registers here; runs once, on success, failure, signal or timeout

const cleanups = [];
let cleaning;
function onCleanup(fn) {
  cleanups.push(fn);
  return fn;
}
function cleanup() {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await withTimeout(Promise.resolve().then(fn), 60_000, 'cleanup step');
      } catch (error) {
        log('cleanup step failed:', error.message);
      }
    }
  })();
  return cleaning;
}

// ---------------------------------------------------------------------------
// the broker's management API

function brokerApi(broker) {
  const auth = 'Basic ' + Buffer.from(`${broker.username}:${broker.password}`).toString('base64');
  const base = broker.managementUrl;
  async function call(method, p, body) {
    const res = await request(base + p, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
    const text = (await readBody(res.body)).toString('utf8');
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  }
  return { auth, get: (p) => call('GET', p), put: (p, body) => call('PUT', p, body) };
}

// ---------------------------------------------------------------------------
// state: vhosts, queues, exchanges, bindings, traffic

function vhostName(i) {
  return `bench-${String(i).padStart(2, '0')}`;
}

function planState() {
  const rnd = prng(42);
  const every = S.quorumPercent > 0 ? Math.max(1, Math.round(100 / S.quorumPercent)) : Infinity;
  const vhosts = [];
  for (let v = 0; v < S.vhosts; v++) {
    const share = (n) => Math.floor(n / S.vhosts) + (v < n % S.vhosts ? 1 : 0);
    const queues = [];
    for (let j = 0; j < share(S.queues); j++) {
      queues.push({ name: `app${j % 20}.events.q${String(j).padStart(5, '0')}`, quorum: j % every === 0 });
    }
    const exchanges = Array.from({ length: share(S.exchanges) }, (_, k) => `ex.topic.${String(k).padStart(3, '0')}`);
    const bindings = [];
    if (exchanges.length > 0 && queues.length > 0) {
      for (let b = 0; b < share(S.bindings); b++) {
        bindings.push({
          queue: queues[Math.floor(rnd() * queues.length)].name,
          exchange: exchanges[Math.floor(rnd() * exchanges.length)],
          key: `orders.${b % 97}.#`,
        });
      }
    }
    const active = queues.slice(0, Math.min(queues.length, share(S.activeQueues))).map((q) => q.name);
    vhosts.push({ name: vhostName(v), queues, exchanges, bindings, active, publishers: share(S.publishers), consumers: share(S.consumers) });
  }
  return vhosts;
}

async function buildState(broker, api, vhosts) {
  const connections = [];
  onCleanup(async () => {
    await Promise.all(connections.map((c) => withTimeout(c.close(), 10_000, 'close AMQP connection').catch(() => undefined)));
  });
  const started = now();
  for (const vh of vhosts) {
    await api.put(`/api/vhosts/${encodeURIComponent(vh.name)}`, {});
    await api.put(`/api/permissions/${encodeURIComponent(vh.name)}/${encodeURIComponent(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
  }
  const vhostsAt = now();

  // Declarations: one connection per vhost, BENCH_SETUP_CHANNELS channels each, every channel
  // declaring its share in sequence; all vhosts at once.
  await Promise.all(
    vhosts.map(async (vh) => {
      const conn = await amqp.connect(`${broker.amqpUrl}/${encodeURIComponent(vh.name)}`);
      connections.push(conn);
      conn.on('error', () => undefined);
      const channels = await Promise.all(Array.from({ length: S.setupChannels }, () => conn.createChannel()));
      const work = async (items, fn) => {
        let next = 0;
        await Promise.all(channels.map(async (ch) => {
          for (let i = next++; i < items.length; i = next++) await fn(ch, items[i]);
        }));
      };
      await work(vh.exchanges, (ch, ex) => ch.assertExchange(ex, 'topic', { durable: true }));
      await work(vh.queues, (ch, q) =>
        ch.assertQueue(q.name, q.quorum ? { durable: true, arguments: { 'x-queue-type': 'quorum' } } : { durable: true }),
      );
      await work(vh.bindings, (ch, b) => ch.bindQueue(b.queue, b.exchange, b.key));
      await Promise.all(channels.map((ch) => ch.close()));
      await conn.close();
      connections.splice(connections.indexOf(conn), 1);
    }),
  );
  const declaredAt = now();
  return { vhostsSeconds: (vhostsAt - started) / 1000, declareSeconds: (declaredAt - vhostsAt) / 1000 };
}

/** Publishers (default exchange, round robin over the vhost's active queues) and consumers (manual ack). */
async function startTraffic(broker, vhosts) {
  const connections = [];
  const timers = [];
  const counts = { published: 0, consumed: 0 };
  onCleanup(async () => {
    timers.forEach((t) => clearInterval(t));
    await Promise.all(connections.map((c) => withTimeout(c.close(), 10_000, 'close AMQP connection').catch(() => undefined)));
  });
  const totalPublishers = vhosts.reduce((n, vh) => n + (vh.active.length > 0 ? vh.publishers : 0), 0);
  const perPublisherRate = totalPublishers > 0 ? S.rate / totalPublishers : 0;
  const payload = Buffer.alloc(256, 'x');
  for (const vh of vhosts) {
    if (vh.active.length === 0) continue;
    const url = `${broker.amqpUrl}/${encodeURIComponent(vh.name)}`;
    for (let c = 0; c < vh.consumers; c++) {
      const conn = await amqp.connect(url);
      conn.on('error', () => undefined);
      connections.push(conn);
      const ch = await conn.createChannel();
      await ch.prefetch(100);
      for (let i = c; i < vh.active.length; i += vh.consumers) {
        await ch.consume(vh.active[i], (msg) => {
          if (!msg) return;
          counts.consumed++;
          ch.ack(msg);
        });
      }
    }
    for (let p = 0; p < vh.publishers; p++) {
      const conn = await amqp.connect(url);
      conn.on('error', () => undefined);
      connections.push(conn);
      const ch = await conn.createChannel();
      let cursor = p;
      let credit = 0;
      let blocked = false;
      ch.on('drain', () => (blocked = false));
      const tickMs = 100;
      timers.push(
        setInterval(() => {
          credit += (perPublisherRate * tickMs) / 1000;
          while (credit >= 1 && !blocked) {
            credit -= 1;
            const q = vh.active[cursor++ % vh.active.length];
            counts.published++;
            if (!ch.publish('', q, payload, { persistent: false })) blocked = true;
          }
          if (credit > 10) credit = 10; // do not catch up after a stall
        }, tickMs),
      );
    }
  }
  return { counts, connections: connections.length };
}

// ---------------------------------------------------------------------------
// recording proxy: which exact paths does the exporter request?

async function startRecordingProxy(targetPort) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const records = [];
  const server = http.createServer((req, res) => {
    const entry = { path: req.url, start: Date.now(), end: undefined, status: 0, bytes: 0 };
    records.push(entry);
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => {
        entry.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on('data', (chunk) => (entry.bytes += chunk.length));
        up.on('end', () => (entry.end = Date.now()));
        up.pipe(res);
      },
    );
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  const port = await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
  let closed;
  const close = () =>
    (closed ??= new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
      agent.destroy();
    }));
  onCleanup(close);
  return { port, records, close };
}

// ---------------------------------------------------------------------------
// the exporter as a child process

async function startExporter(label, brokerUrl, settings, workDir) {
  const port = await freePort();
  const config = {
    web: { listen_address: `127.0.0.1:${port}` },
    log: { level: 'info' },
    poll: { interval: S.pollInterval },
    target: { url: brokerUrl, username: 'guest', password: 'guest' },
    ...settings,
  };
  const slug = label.replace(/[^a-z0-9]+/gi, '-');
  const configFile = path.join(workDir, `exporter-${slug}.yaml`);
  fs.writeFileSync(configFile, toYaml(config));
  const logFile = path.join(workDir, `exporter-${slug}.log`);
  const out = fs.openSync(logFile, 'a');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RABBITMQ_')));
  const child = spawn(process.execPath, [EXPORTER_MAIN, '--config', configFile], { cwd: ROOT, env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  let maxRss = 0;
  let lastMem;
  const sampler = setInterval(() => {
    const m = memoryOf(child.pid);
    if (m) {
      lastMem = m;
      maxRss = Math.max(maxRss, m.rss);
    }
  }, 100);
  const stop = onCleanup(async () => {
    clearInterval(sampler);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(8000).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await Promise.race([exited, sleep(3000)]);
      }
    }
    process.off('exit', killOnExit);
  });
  const exp = {
    label,
    port,
    pid: child.pid,
    config,
    configFile,
    logFile,
    url: `http://127.0.0.1:${port}`,
    get maxRss() {
      return maxRss;
    },
    get hwm() {
      return memoryOf(child.pid)?.hwm ?? lastMem?.hwm ?? NaN;
    },
    logTail: (n = 30) => {
      try {
        return fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-n).join('\n');
      } catch {
        return '';
      }
    },
    stop,
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`exporter (${label}) exited with code ${child.exitCode}: ${exp.logTail(5).replace(/\s*\n\s*/g, ' / ')}`);
    }
    try {
      const res = await request(`${exp.url}/-/healthy`, { headersTimeout: 2000, bodyTimeout: 2000 });
      await drain(res.body);
      if (res.statusCode === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`exporter (${label}) did not listen within 20 s: ${exp.logTail(5).replace(/\s*\n\s*/g, ' / ')}`);
    }
    await sleep(100);
  }
  return exp;
}

/** The exporter's Node memory (prom-client's defaults), as of its last snapshot. */
const MEMORY_LINE = /^rabbitmq_exporter_(nodejs_heap_size_total_bytes|nodejs_heap_size_used_bytes|nodejs_external_memory_bytes|process_resident_memory_bytes) (\S+)/;
const SELF_LINE = /^rabbitmq_exporter_collector_(duration_seconds|last_success_timestamp_seconds|success|samples)\{collector="([^"]+)"\} (\S+)/;

/**
 * The exporter's own series, from the head of the text exposition (they come first): reads at
 * most 1 MB, then drops the connection. { collector: { duration_seconds, last_success_timestamp_seconds, success, samples } }
 */
async function readSelfMetrics(exp) {
  const res = await request(`${exp.url}/metrics`, { headers: { accept: 'text/plain' }, headersTimeout: 10_000, bodyTimeout: 10_000 });
  let text = '';
  try {
    for await (const chunk of res.body) {
      text += chunk.toString('utf8');
      if (text.length > 1_000_000) break;
    }
  } finally {
    res.body.destroy();
  }
  const out = {};
  const memory = {};
  for (const line of text.split('\n')) {
    const m = SELF_LINE.exec(line);
    if (m) (out[m[2]] ??= {})[m[1]] = Number(m[3]);
    const mem = MEMORY_LINE.exec(line);
    if (mem) memory[mem[1]] = Number(mem[2]);
  }
  exp.memoryMax ??= {};
  for (const [k, v] of Object.entries(memory)) exp.memoryMax[k] = Math.max(exp.memoryMax[k] ?? 0, v);
  return out;
}

/**
 * Watches the exporter's own series until `collector` has `warmup + n` new successful polls.
 * Returns every successful poll of every collector: { collector: [{ end, duration }] } (end in s).
 */
async function watchPolls(exp, collector, n, timeoutMs, warmup = 1) {
  const seen = {};
  const polls = {};
  let failures = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let self;
    try {
      self = await readSelfMetrics(exp);
    } catch (error) {
      self = {};
      if (Date.now() > deadline) throw error;
    }
    for (const [name, v] of Object.entries(self)) {
      const ts = v.last_success_timestamp_seconds;
      if (ts === undefined || ts === seen[name]) continue;
      seen[name] = ts;
      if (v.success === 1) (polls[name] ??= []).push({ end: ts, duration: v.duration_seconds, samples: v.samples });
    }
    if (self[collector]?.success === 0 && self[collector].duration_seconds !== seen[`${collector}:failed`]) {
      seen[`${collector}:failed`] = self[collector].duration_seconds;
      if (++failures >= 3) throw new Error(`collector ${collector} failed 3 polls: ${lastFailure(exp, collector)}`);
    }
    if ((polls[collector]?.length ?? 0) >= warmup + n) break;
    if (Date.now() > deadline) {
      throw new Error(`collector ${collector}: only ${polls[collector]?.length ?? 0} successful polls within ${timeoutMs} ms: ${lastFailure(exp, collector)}`);
    }
    await sleep(250);
  }
  for (const name of Object.keys(polls)) if (polls[name].length > 0) polls[name] = polls[name].slice(name === collector ? warmup : Math.min(warmup, polls[name].length - 1));
  return polls;
}

/** The cause of the collector's last failed poll, from the exporter's JSON log. */
function lastFailure(exp, collector) {
  const lines = exp.logTail(200).split('\n').reverse();
  for (const line of lines) {
    try {
      const entry = JSON.parse(line);
      if (entry.collector === collector && entry.msg === 'poll failed') return `${entry.path ?? ''} ${entry.cause ?? ''}`.trim();
    } catch {
      /* not JSON */
    }
  }
  return exp.logTail(3).replace(/\s*\n\s*/g, ' / ');
}


/** Settings that run one collector alone, back to back (interval 1 s, no jitter, long deadline). */
function aloneSettings(collectorNames, name, options = {}) {
  const collectors = {};
  for (const c of collectorNames) {
    if (c === name) collectors[c] = { ...options, enabled: true, interval: '1s', timeout: '5m' };
    // overview cannot be disabled (it decides rabbitmq_up): it polls once at start, then hourly.
    else if (c === 'overview') collectors[c] = { interval: '1h' };
    else collectors[c] = { enabled: false };
  }
  return { poll: { interval: S.pollInterval, jitter: 0 }, collectors };
}

/**
 * One round of a collector's requests: runs the exporter with only that collector, through the
 * recording proxy, and keeps the requests made during a poll after the first (the first one also
 * fetches /api/overview for the broker's version). Statuses other than 200 (an absent plugin's
 * 404) are kept: the exporter makes those requests too.
 */
async function recordRound(label, broker, settings, workDir, collector) {
  const proxy = await startRecordingProxy(broker.managementPort);
  const exp = await startExporter(`record-${label}`, `http://127.0.0.1:${proxy.port}`, settings, workDir);
  let prev;
  let poll;
  try {
    const polls = (await watchPolls(exp, collector, 2, 600_000, 0))[collector];
    [prev, poll] = polls.slice(-2);
  } finally {
    await exp.stop();
    await proxy.close();
  }
  // The requests that started after the previous observed poll ended, up to the end of this one
  // (collector_duration_seconds does not cover the final rendering, so the window is end to end).
  // Should a poll have gone unobserved in between, its paths are the same ones: keep each once.
  const from = prev.end * 1000;
  const to = poll.end * 1000;
  const round = new Map();
  for (const r of proxy.records) {
    if (r.start > from && r.start <= to && !round.has(r.path)) round.set(r.path, { path: r.path, status: r.status, bytes: r.bytes });
  }
  return [...round.values()];
}

/**
 * A collector alone: its round of paths (recorded), its poll duration (exporter straight to the
 * broker, median of `polls` after one warm-up), the same paths fetched raw, and the broker's CPU
 * for one round (net of the background).
 */
async function measureCollector(ctx, label, name, options, polls) {
  const { broker, auth, pool, beamPid, collectorNames, workDir } = ctx;
  const settings = aloneSettings(collectorNames, name, options);
  const round = await recordRound(label, broker, settings, workDir, name);
  const paths = round.map((r) => r.path);
  const e = await startExporter(label, broker.managementUrl, settings, workDir);
  let list;
  try {
    list = (await watchPolls(e, name, polls, (polls + 2) * 300_000))[name];
  } finally {
    await e.stop();
  }
  const raw = [];
  const cpu = [];
  if (paths.length > 0) {
    await replay(pool, auth, paths, EXPORTER_CONCURRENCY); // warm-up
    for (let i = 0; i < S.repeats; i++) {
      const r = await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, auth, paths, EXPORTER_CONCURRENCY));
      raw.push(r.result.seconds);
      cpu.push(r.net);
    }
  }
  return {
    label,
    name,
    round,
    paths,
    bytes: round.reduce((n, r) => n + r.bytes, 0),
    statuses: [...new Set(round.map((r) => r.status))],
    poll: median(list.map((p) => p.duration)),
    // End to end, start to start: polls longer than the 1 s interval run back to back.
    cycle: median(list.slice(1).map((p, i) => p.end - list[i].end)),
    polls: list.length,
    raw: paths.length > 0 ? median(raw) : 0,
    cpu: paths.length > 0 ? median(cpu) : 0,
    samples: list.at(-1)?.samples,
    rss: e.maxRss,
  };
}

// ---------------------------------------------------------------------------
// raw replays and broker CPU

function brokerPool(broker, connections) {
  const pool = new Pool(broker.managementUrl, { connections, headersTimeout: 300_000, bodyTimeout: 300_000 });
  onCleanup(() => pool.close());
  return pool;
}

/** GETs `paths` with `concurrency` requests in flight, reading every body (no parsing). */
async function replay(pool, auth, paths, concurrency) {
  const started = now();
  let bytes = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, paths.length) }, async () => {
      for (let i = next++; i < paths.length; i = next++) {
        const res = await pool.request({ path: paths[i], method: 'GET', headers: { authorization: auth, accept: 'application/json' } });
        bytes += await drain(res.body); // any status: the recorded round has the same ones
      }
    }),
  );
  return { seconds: (now() - started) / 1000, bytes };
}

/** Broker CPU rate (CPU-seconds per second) with the traffic running and nobody polling. */
async function baselineCpu(beamPid, seconds) {
  const c0 = cpuSeconds(beamPid);
  const t0 = now();
  await sleep(seconds * 1000);
  return (cpuSeconds(beamPid) - c0) / ((now() - t0) / 1000);
}

/** Broker CPU of fn(): gross delta, and net of the background rate over the same wall time. */
async function brokerCpuOf(beamPid, baseline, fn) {
  const c0 = cpuSeconds(beamPid);
  const t0 = now();
  const result = await fn();
  const wall = (now() - t0) / 1000;
  const gross = cpuSeconds(beamPid) - c0;
  return { gross, net: Math.max(0, gross - baseline * wall), wall, result };
}

// ---------------------------------------------------------------------------
// scrapes

async function scrape(url, headers) {
  const t0 = now();
  const res = await request(url, { headers, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const body = await readBody(res.body);
  const ms = now() - t0;
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
  return { ms, body, encoding: res.headers['content-encoding'], contentType: res.headers['content-type'] };
}

function countSeries(text) {
  let n = 0;
  for (const line of text.split('\n')) if (line !== '' && line[0] !== '#') n++;
  return n;
}

// ---------------------------------------------------------------------------
// machine

/** The exporter's commit, taken when the run starts (right after `npm run build`). */
function exporterCommit() {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', 'src'], { cwd: ROOT }).toString().trim();
    if (dirty) commit += ` plus uncommitted changes to ${dirty.split('\n').length} file(s) under src/`;
    return commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function machine(broker, overview, commit) {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    /* not Linux */
  }
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    cpuModel,
    node: process.version,
    rabbitmq: overview.rabbitmq_version ?? broker.version ?? 'unknown',
    erlang: overview.erlang_version ?? 'unknown',
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    commit,
  };
}

function commandLine() {
  const vars = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  return [...vars, 'npm run bench'].join(' ');
}

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// main

// ---------------------------------------------------------------------------
// main

async function main() {
  const t0 = now();
  const commit = exporterCommit();
  const loadAtStart = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const { startBroker, checkMetricsWithPromtool, brokerAvailability } = await import(HARNESS);
  const { COLLECTORS } = await import(REGISTRY);
  if (!fs.existsSync(EXPORTER_MAIN)) throw new Error(`${EXPORTER_MAIN} is missing: run npm run build`);
  const avail = brokerAvailability();
  if (!avail.available) throw new Error(`cannot run the benchmark: ${avail.reason}`);
  const collectorNames = COLLECTORS.map((c) => c.name);
  STATS_EVERY = COLLECTORS.find((c) => c.name === 'queues').optionsSchema.parse({}).stats_every;
  if (!(STATS_EVERY >= 1)) throw new Error(`the queue collector's default stats_every is ${STATS_EVERY}: the averaged round needs statistics polls`);
  const defaultCollectors = COLLECTORS.filter((c) => c.defaultEnabled).map((c) => c.name);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-bench-'));
  onCleanup(() => {
    if (process.env.KEEP_BENCH_DIR !== '1') fs.rmSync(workDir, { recursive: true, force: true });
  });
  log(`settings: ${JSON.stringify({ ...S, resultsDir: undefined })}`);
  log(`collectors enabled by default: ${defaultCollectors.join(', ')}`);

  // 1. broker
  log('starting a private RabbitMQ node (management + prometheus)');
  const broker = await startBroker({
    plugins: ['rabbitmq_management', 'rabbitmq_prometheus'],
    nodeNamePrefix: 'rmqexp-bench',
    extraConfig: [`collect_statistics_interval = ${S.statsIntervalMs}`],
  });
  onCleanup(async () => {
    log('stopping the broker');
    await broker.stop();
  });
  const beamPid = Number(fs.readFileSync(broker.pidFile, 'utf8').trim());
  const comm = fs.readFileSync(`/proc/${beamPid}/comm`, 'utf8').trim();
  if (!comm.startsWith('beam')) throw new Error(`pid ${beamPid} from ${broker.pidFile} is ${comm}, not beam.smp`);
  const api = brokerApi(broker);
  log(`broker ${broker.nodeName}: management ${broker.managementUrl}, prometheus ${broker.prometheusUrl}, beam pid ${beamPid}`);

  // 2. state
  const vhosts = planState();
  log(`building ${S.queues} queues over ${S.vhosts} vhosts, ${S.exchanges} exchanges, ${S.bindings} bindings`);
  const setupStarted = now();
  const built = await withTimeout(buildState(broker, api, vhosts), 15 * 60_000, 'building the state');
  log(`declared in ${built.declareSeconds.toFixed(1)} s (vhosts ${built.vhostsSeconds.toFixed(1)} s)`);
  const traffic = await withTimeout(startTraffic(broker, vhosts), 5 * 60_000, 'starting the traffic');
  const setupSeconds = (now() - setupStarted) / 1000;
  log(`traffic: ${traffic.connections} AMQP connections, ${S.rate} msg/s; set-up took ${setupSeconds.toFixed(1)} s`);
  // Let message_stats and rates appear (two statistics intervals), then check the state.
  await sleep(Math.max(2 * S.statsIntervalMs, 5000) + 1000);
  const overview = await api.get('/api/overview');
  const totals = overview.object_totals ?? {};
  const quorumCount = vhosts.reduce((n, vh) => n + vh.queues.filter((q) => q.quorum).length, 0);
  log(`broker: ${JSON.stringify(totals)}; published ${traffic.counts.published}, consumed ${traffic.counts.consumed}`);
  if ((totals.queues ?? 0) < S.queues) throw new Error(`the broker reports ${totals.queues} queues, expected ${S.queues}`);
  const msgRate = overview.message_stats?.publish_details?.rate;

  const pool = brokerPool(broker, EXPORTER_CONCURRENCY);
  const seqPool = brokerPool(broker, 1);
  log('broker CPU baseline (traffic, nobody polling), 10 s');
  const baseline = await baselineCpu(beamPid, 10);
  const ctx = { broker, auth: api.auth, pool, beamPid, baseline, collectorNames, workDir };

  // 3. every default collector alone: its round of paths, poll vs raw fetch, broker CPU
  const perCollector = [];
  for (const name of defaultCollectors) {
    log(`collector ${name} alone`);
    try {
      const r = await measureCollector(ctx, name, name, {}, S.polls);
      log(`  ${r.paths.length} requests, ${fmtBytes(r.bytes)}; poll ${fmtS(r.poll)}, raw ${fmtS(r.raw)}, broker CPU ${r.cpu.toFixed(3)} s`);
      perCollector.push(r);
    } catch (error) {
      log(`  failed: ${error.message.split('\n')[0]}`);
      perCollector.push({ name, label: name, error: error.message.split('\n')[0] });
    }
  }
  const measured = perCollector.filter((r) => !r.error);
  // The queue collector alone records a poll after its first: with the default stats_every, a
  // counts-only poll. Its statistics poll (what every poll was before the tiers) is measured too.
  log('collector queues alone, statistics every poll (stats_every 1)');
  let queuesStats;
  try {
    queuesStats = await measureCollector(ctx, 'queues statistics poll', 'queues', { stats_every: 1 }, Math.min(S.polls, 3));
    log(`  ${queuesStats.paths.length} requests, ${fmtBytes(queuesStats.bytes)}; broker CPU ${queuesStats.cpu.toFixed(3)} s`);
  } catch (error) {
    log(`  failed: ${error.message.split('\n')[0]}`);
  }

  // 4. broker CPU: one round of every default collector vs kbudde's four unfiltered lists
  log('broker CPU: exporter rounds and kbudde-style rounds, alternating');
  const roundPaths = measured.flatMap((r) => r.paths);
  const roundBytes = measured.reduce((n, r) => n + r.bytes, 0);
  const KBUDDE_COLLECTORS = ['overview', 'nodes', 'queues', 'exchanges'];
  const subsetPaths = measured.filter((r) => KBUDDE_COLLECTORS.includes(r.name)).flatMap((r) => r.paths);
  ctx.baseline = await baselineCpu(beamPid, 10);
  const roundBaseline = ctx.baseline;
  const statsRoundPaths = queuesStats ? measured.flatMap((r) => (r.name === 'queues' ? queuesStats.paths : r.paths)) : undefined;
  const cpuRuns = { exporter: [], statsRound: [], subset: [], kbudde: [] };
  let kbuddeBytes = 0;
  const kbuddeWall = [];
  for (let i = 0; i < S.repeats; i++) {
    cpuRuns.exporter.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, api.auth, roundPaths, EXPORTER_CONCURRENCY))).net);
    await sleep(300);
    if (statsRoundPaths) {
      cpuRuns.statsRound.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, api.auth, statsRoundPaths, EXPORTER_CONCURRENCY))).net);
      await sleep(300);
    }
    cpuRuns.subset.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, api.auth, subsetPaths, EXPORTER_CONCURRENCY))).net);
    await sleep(300);
    const b = await brokerCpuOf(beamPid, ctx.baseline, () => replay(seqPool, api.auth, KBUDDE_PATHS, 1));
    cpuRuns.kbudde.push(b.net);
    kbuddeBytes = b.result.bytes;
    kbuddeWall.push(b.wall);
    await sleep(300);
  }
  const cpuExporter = median(cpuRuns.exporter);
  const cpuSubset = median(cpuRuns.subset);
  const cpuKbudde = median(cpuRuns.kbudde);
  const cpuStatsRound = statsRoundPaths ? median(cpuRuns.statsRound) : undefined;
  // One queue poll in STATS_EVERY fetches the statistics: the round averaged over that cycle.
  const cpuAverageRound = cpuStatsRound === undefined ? undefined : ((STATS_EVERY - 1) * cpuExporter + cpuStatsRound) / STATS_EVERY;
  log(`broker CPU per round: exporter ${cpuExporter.toFixed(3)} s (subset ${cpuSubset.toFixed(3)} s), kbudde ${cpuKbudde.toFixed(3)} s`);

  // 4b. broker CPU per path: which requests cost the broker most?
  log('broker CPU per path');
  const perPath = [];
  const pathOwners = [...measured.flatMap((r) => r.round.map((p) => ({ owner: r.name, ...p }))), ...KBUDDE_PATHS.map((p) => ({ owner: 'kbudde-style', path: p }))];
  for (const p of pathOwners) {
    const cpus = [];
    let bytes = 0;
    let wall = 0;
    for (let i = 0; i < 3; i++) {
      const r = await brokerCpuOf(beamPid, ctx.baseline, () => replay(seqPool, api.auth, [p.path], 1));
      cpus.push(r.net);
      bytes = r.result.bytes;
      wall += r.wall / 3;
    }
    perPath.push({ owner: p.owner, path: p.path, bytes, wall, cpu: median(cpus) });
  }
  perPath.sort((a, b) => b.cpu - a.cpu);

  // 5. the exporter with its defaults: scrapes, RSS, series, bytes, promtool
  log(`the exporter with every default (poll.interval ${S.pollInterval}); waiting for 1 + 2 queue polls`);
  const exp = await startExporter('main', broker.managementUrl, {}, workDir);
  const expCpu0 = cpuSeconds(exp.pid);
  const pollT0 = now();
  const mainPolls = await watchPolls(exp, 'queues', 2, 4 * 300_000);
  const expCpuPerMin = ((cpuSeconds(exp.pid) - expCpu0) / ((now() - pollT0) / 1000)) * 60;
  const queuesInContext = median(mainPolls.queues.map((p) => p.duration));

  log(`${S.scrapes} scrapes of /metrics with Prometheus’s headers`);
  const scrapeMs = [];
  let served;
  const scrapeDeadline = Date.now() + 10 * 60_000;
  for (let i = 0; i < S.scrapes && Date.now() < scrapeDeadline; i++) {
    served = await scrape(`${exp.url}/metrics`, PROM_HEADERS);
    scrapeMs.push(served.ms);
    await sleep(20);
  }
  // The first scrape after a new snapshot also renders the OpenMetrics form and compresses it.
  log('cold scrapes (first scrape after a new snapshot)');
  const coldMs = [];
  const coldDeadline = Date.now() + 5 * 60_000;
  const stamp = (self) => JSON.stringify(Object.values(self).map((v) => v.last_success_timestamp_seconds));
  let lastSnapshot = stamp(await readSelfMetrics(exp));
  while (coldMs.length < 5 && Date.now() < coldDeadline) {
    await sleep(50);
    const current = stamp(await readSelfMetrics(exp));
    if (current === lastSnapshot) continue;
    lastSnapshot = current;
    coldMs.push((await scrape(`${exp.url}/metrics`, PROM_HEADERS)).ms);
  }
  const textScrape = await scrape(`${exp.url}/metrics`, { accept: 'text/plain' });
  const text = textScrape.body.toString('utf8');
  const series = countSeries(text);
  const rss = exp.maxRss;
  const hwm = exp.hwm;
  const selfAtEnd = await readSelfMetrics(exp);
  await exp.stop();
  const promtool = await checkMetricsWithPromtool(text).catch((error) => ({ ok: false, output: `promtool did not run: ${error.message}` }));
  log(`promtool check metrics: ${promtool.ok ? 'ok' : 'FAILED'} ${promtool.output.trim().slice(0, 300)}`);

  // 6. rabbitmq_prometheus /metrics/per-object
  log('rabbitmq_prometheus /metrics/per-object');
  const pluginMs = [];
  const pluginPlainMs = [];
  const pluginCpu = [];
  let pluginBody;
  for (let i = 0; i < Math.max(3, Math.min(5, S.repeats)); i++) {
    const r = await brokerCpuOf(beamPid, ctx.baseline, () => scrape(`${broker.prometheusUrl}/metrics/per-object`, PROM_HEADERS));
    pluginMs.push(r.result.ms);
    pluginCpu.push(r.net);
    pluginBody = r.result;
    pluginPlainMs.push((await scrape(`${broker.prometheusUrl}/metrics/per-object`, {})).ms);
  }
  const pluginText = pluginBody.encoding === 'gzip' ? gunzipSync(pluginBody.body) : pluginBody.body;
  const pluginSeries = countSeries(pluginText.toString('utf8'));
  const pluginMedian = median(pluginMs);

  // 6b. broker CPU per minute: the exporter with every default (poll.interval 15s), measured
  // over a window after its first queue poll; kbudde's round and the plugin's scrape every 15 s.
  // The window holds the polls that start in it: a whole number of the queue collector's cycles
  // (stats_every polls at 2 × 15 s) holds its statistics polls in their true share.
  const queueCycleS = STATS_EVERY * 15 * COLLECTORS.find((c) => c.name === 'queues').defaultIntervalMultiplier;
  if (S.minuteWindowS % queueCycleS !== 0) log(`  note: BENCH_MINUTE_WINDOW_S=${S.minuteWindowS} is not a multiple of the queue collector's ${queueCycleS} s cycle: the share of statistics polls in it is off`);
  log(`broker CPU per minute: the exporter at its defaults, ${S.minuteWindowS} s`);
  ctx.baseline = await baselineCpu(beamPid, 10);
  const minuteBaseline = ctx.baseline;
  const atDefaults = await startExporter('defaults', broker.managementUrl, { poll: { interval: '15s' } }, workDir);
  let cpuPerMinute;
  try {
    await watchPolls(atDefaults, 'queues', 1, 10 * 60_000, 0);
    const r = await brokerCpuOf(beamPid, ctx.baseline, () => sleep(S.minuteWindowS * 1000));
    cpuPerMinute = (r.net / r.wall) * 60;
  } finally {
    await atDefaults.stop();
  }
  const kbuddePerMinute = cpuKbudde * 4;
  const pluginPerMinute = median(pluginCpu) * 4;
  log(`broker CPU per minute: exporter ${cpuPerMinute.toFixed(2)} s, kbudde-style at 15 s ${kbuddePerMinute.toFixed(2)} s, per-object at 15 s ${pluginPerMinute.toFixed(2)} s`);

  // 7. the queue collector's other settings
  const alternatives = [];
  const queuesDefault = measured.find((r) => r.name === 'queues');
  if (queuesDefault) alternatives.push({ ...queuesDefault, label: `auto (default), counts-only poll (${STATS_EVERY - 1} of ${STATS_EVERY})` });
  if (queuesStats) alternatives.push({ ...queuesStats, label: `auto (default), statistics poll (1 of ${STATS_EVERY}); stats_every 1: every poll` });
  if (S.alternatives) {
    ctx.baseline = await baselineCpu(beamPid, 10);
    const variants = [
      { label: 'columns, per_vhost false, stats_every 1', options: { mode: 'columns', per_vhost: false, stats_every: 1 } },
      { label: 'auto, details false, stats_every 1', options: { details: false, stats_every: 1 } },
      { label: 'auto, message_stats false, stats_every 1', options: { message_stats: false, stats_every: 1 } },
      { label: 'totals, per_vhost true', options: { mode: 'totals', per_vhost: true } },
      { label: 'totals, per_vhost false', options: { mode: 'totals', per_vhost: false } },
      { label: 'full, per_vhost true, stats_every 1', options: { mode: 'full', per_vhost: true, stats_every: 1 } },
      { label: 'full, per_vhost false, stats_every 1', options: { mode: 'full', per_vhost: false, stats_every: 1 } },
      { label: 'columns, per_vhost false, page_size 500, stats_every 1', options: { mode: 'columns', per_vhost: false, page_size: 500, stats_every: 1 } },
    ];
    for (const v of variants) {
      log(`queues: ${v.label}`);
      try {
        alternatives.push(await measureCollector(ctx, `queues ${v.label}`, 'queues', v.options, Math.min(S.polls, 3)));
      } catch (error) {
        log(`  failed: ${error.message.split('\n')[0]}`);
        alternatives.push({ label: v.label, error: error.message.split('\n')[0] });
      }
    }
    for (const a of alternatives) if (!a.error) a.label = a.label.replace(/^queues /, '');
  }

  // 8. report
  const m = machine(broker, overview, commit);
  const pf = (ok) => (ok ? 'pass' : '**fail**');
  const rows = [];
  rows.push(['set-up: vhosts, queues, exchanges, bindings, traffic', fmtS(setupSeconds), `of which AMQP declarations ${fmtS(built.declareSeconds)}`, '', '', 'info']);
  for (const r of perCollector) {
    if (r.error) {
      rows.push([`poll duration, ${r.name}`, `failed: ${r.error}`, '', '', '≤ 1.2×', '**fail**']);
      continue;
    }
    const ratio = r.raw > 0 ? r.poll / r.raw : NaN;
    rows.push([
      `poll duration, ${r.name} (alone, median of ${r.polls})`,
      fmtS(r.poll),
      `raw fetch of its ${r.paths.length} path${r.paths.length === 1 ? '' : 's'}: ${fmtS(r.raw)}`,
      `${fmtRatio(ratio)} (${r.poll >= r.raw ? '+' : '−'}${fmtMs(Math.abs(r.poll - r.raw) * 1000)})`,
      '≤ 1.2×',
      r.paths.length === 0 ? 'n/a (no requests)' : pf(ratio <= 1.2),
    ]);
  }
  if (queuesDefault) {
    rows.push(['poll duration, queues, all collectors running (median of 2)', fmtS(queuesInContext), `alone: ${fmtS(queuesDefault.poll)}`, fmtRatio(queuesInContext / queuesDefault.poll), '', 'info']);
  }
  {
    if (cpuAverageRound !== undefined) {
      rows.push([
        `broker CPU, one round of all ${measured.length} default collectors, averaged over the queue collector's ${STATS_EVERY}-poll cycle (${STATS_EVERY - 1} counts-only + 1 statistics)`,
        `${cpuAverageRound.toFixed(3)} s`,
        `kbudde-style round: ${cpuKbudde.toFixed(3)} s (4 unfiltered lists, ${fmtBytes(kbuddeBytes)}, ${fmtS(median(kbuddeWall))} wall)`,
        fmtRatio(cpuAverageRound / cpuKbudde),
        '≤ 0.3×',
        pf(cpuAverageRound / cpuKbudde <= 0.3),
      ]);
      rows.push([
        `broker CPU, the same round when the queue collector fetches statistics (1 poll of ${STATS_EVERY}; every poll before the tiers; median of ${S.repeats}, net)`,
        `${cpuStatsRound.toFixed(3)} s (${statsRoundPaths.length} requests)`,
        `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
        fmtRatio(cpuStatsRound / cpuKbudde),
        '',
        'info',
      ]);
    }
    rows.push([
      `broker CPU, the same round with a counts-only queue poll (${STATS_EVERY - 1} polls of ${STATS_EVERY}; median of ${S.repeats}, net)`,
      `${cpuExporter.toFixed(3)} s (${roundPaths.length} requests, ${fmtBytes(roundBytes)})`,
      `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
      fmtRatio(cpuExporter / cpuKbudde),
      '',
      'info',
    ]);
    rows.push([
      `broker CPU per minute, the exporter with every default (poll.interval 15s; measured over ${S.minuteWindowS} s)`,
      `${cpuPerMinute.toFixed(2)} s`,
      `kbudde-style round every 15 s: ${kbuddePerMinute.toFixed(2)} s (4 × its round)`,
      fmtRatio(cpuPerMinute / kbuddePerMinute),
      '≤ 0.2×',
      pf(cpuPerMinute / kbuddePerMinute <= 0.2),
    ]);
    rows.push([
      'broker CPU per minute, rabbitmq_prometheus /metrics/per-object every 15 s',
      `${pluginPerMinute.toFixed(2)} s (4 × ${median(pluginCpu).toFixed(3)} s per scrape)`,
      `kbudde-style: ${kbuddePerMinute.toFixed(2)} s`,
      fmtRatio(pluginPerMinute / kbuddePerMinute),
      '',
      'info',
    ]);
    rows.push([
      'broker CPU, same round, only overview + nodes + queues + exchanges',
      `${cpuSubset.toFixed(3)} s (${subsetPaths.length} requests)`,
      `kbudde-style round: ${cpuKbudde.toFixed(3)} s`,
      fmtRatio(cpuSubset / cpuKbudde),
      '',
      'info',
    ]);
  }
  const p50 = percentile(scrapeMs, 50);
  const p99 = percentile(scrapeMs, 99);
  rows.push([`/metrics latency p50 (${scrapeMs.length} scrapes, Prometheus headers)`, fmtMs(p50), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(p50 / pluginMedian), '', 'info']);
  rows.push([`/metrics latency p99 (${scrapeMs.length} scrapes, Prometheus headers)`, fmtMs(p99), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(p99 / pluginMedian), '≤ 0.04× (1/25)', pf(p99 <= pluginMedian / 25)]);
  if (coldMs.length > 0) {
    const c = median(coldMs);
    rows.push([`/metrics, first scrape after a new snapshot (median of ${coldMs.length})`, fmtMs(c), `per-object median: ${fmtMs(pluginMedian)}`, fmtRatio(c / pluginMedian), '', c <= pluginMedian / 25 ? 'info (within 1/25)' : 'info (over 1/25)']);
  }
  rows.push(['exporter RSS, max over the default run', `${(rss / 1e6).toFixed(0)} MB (VmHWM ${(hwm / 1e6).toFixed(0)} MB)`, '', '', '≤ 200 MB', pf(rss <= 200e6)]);
  const mem = exp.memoryMax ?? {};
  if (Object.keys(mem).length > 0) {
    const mb = (k) => (mem[k] === undefined ? 'n/a' : `${(mem[k] / 1e6).toFixed(0)} MB`);
    rows.push([
      'exporter memory at its snapshots (max): V8 heap total / used, external (Buffers)',
      `${mb('nodejs_heap_size_total_bytes')} / ${mb('nodejs_heap_size_used_bytes')}, ${mb('nodejs_external_memory_bytes')}`,
      `RSS then: ${mb('process_resident_memory_bytes')}`,
      '',
      '',
      'info',
    ]);
  }
  const maxAltRss = Math.max(0, ...alternatives.filter((a) => !a.error).map((a) => a.rss));
  if (maxAltRss > 0) rows.push(['exporter RSS, max over the queue-collector runs', `${(maxAltRss / 1e6).toFixed(0)} MB`, '', '', '', 'info']);
  rows.push(['series on /metrics', fmtInt(series), `per-object: ${fmtInt(pluginSeries)}`, fmtRatio(series / pluginSeries), '', 'info']);
  rows.push(['/metrics body, text format, uncompressed', fmtBytes(textScrape.body.length), `per-object: ${fmtBytes(pluginText.length)}`, fmtRatio(textScrape.body.length / pluginText.length), '', 'info']);
  rows.push([
    `/metrics body as served to Prometheus (${served?.contentType?.split(';')[0] ?? '?'}, ${served?.encoding ?? 'identity'})`,
    fmtBytes(served?.body.length),
    `per-object (${pluginBody.encoding ?? 'identity'}): ${fmtBytes(pluginBody.body.length)}`,
    fmtRatio(served?.body.length / pluginBody.body.length),
    '',
    'info',
  ]);
  rows.push(['exporter CPU, default run', `${expCpuPerMin.toFixed(1)} CPU-s per minute`, '', '', '', 'info']);
  rows.push([
    '`promtool check metrics` on the whole text exposition',
    promtool.ok ? 'ok' : promtool.output.trim().split('\n').slice(0, 3).join('; ').slice(0, 300) || 'failed',
    '',
    '',
    'ok',
    pf(promtool.ok),
  ]);

  const collectorTable = table(
    ['collector', 'requests (statuses)', 'bytes', 'poll (alone)', 'poll to poll at interval 1 s', 'raw fetch', 'broker CPU (net)', 'series'],
    perCollector.map((r) =>
      r.error
        ? [r.name, `failed: ${r.error}`, '', '', '', '', '', '']
        : [r.name, `${r.paths.length} (${r.statuses.join(', ') || '-'})`, fmtBytes(r.bytes), fmtS(r.poll), fmtCycle(r.cycle), fmtS(r.raw), `${r.cpu.toFixed(3)} s`, fmtInt(r.samples)],
    ),
  );
  const altTable = table(
    ['collectors.queues', 'query', 'requests', 'bytes', 'poll (median)', 'poll to poll', 'raw fetch', 'poll / raw', 'broker CPU (net)', 'queue series', 'exporter RSS'],
    alternatives.map((a) =>
      a.error
        ? [a.label, `failed: ${a.error}`, '', '', '', '', '', '', '', '', '']
        : [a.label, describeQuery(a.paths), a.paths.length, fmtBytes(a.bytes), fmtS(a.poll), fmtCycle(a.cycle), fmtS(a.raw), fmtRatio(a.poll / a.raw), `${a.cpu.toFixed(3)} s`, fmtInt(a.samples), `${(a.rss / 1e6).toFixed(0)} MB`],
    ),
  );

  const totalSeconds = (now() - t0) / 1000;
  const md = [
    `# rabbitmq-exporter benchmark: ${fmtInt(S.queues)} queues`,
    '',
    `Run ${new Date().toISOString()}, ${Math.round(totalSeconds)} s in all. Command (from the repository root): \`${commandLine()}\``,
    '',
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.memory} memory, load average (1, 5, 15 min) ${loadAtStart} at the start, ${m.loadavg} at the end (other work shares this machine); Node ${m.node}; RabbitMQ ${m.rabbitmq} (Erlang ${m.erlang}); exporter at ${m.commit}.`,
    '',
    `State: ${fmtInt(totals.queues)} queues (${fmtInt(quorumCount)} quorum) over ${S.vhosts} vhosts (+ the empty \`/\`), ${fmtInt(totals.exchanges)} exchanges (${S.exchanges} topic), ${fmtInt(S.bindings)} bindings, ` +
      `${traffic.connections} AMQP connections (${S.publishers} publishing, ${S.consumers} consuming with manual acks) at ${S.rate} msg/s into ${S.activeQueues} queues ` +
      `(broker-reported publish rate ${msgRate === undefined ? 'n/a' : msgRate.toFixed(0)} msg/s); broker \`collect_statistics_interval = ${S.statsIntervalMs}\`. ` +
      `Set-up took ${setupSeconds.toFixed(1)} s (declarations over AMQP, ${S.setupChannels} channels per vhost: ${built.declareSeconds.toFixed(1)} s).`,
    '',
    `How: each collector alone (\`interval: 1s\`, polls back to back), poll duration from the exporter's \`rabbitmq_exporter_collector_duration_seconds\`, median of ${S.polls} after one warm-up (that series does not cover the poll's final rendering of its samples: "poll to poll", start to start at \`interval: 1s\`, is the end-to-end time whenever it exceeds 1 s); ` +
      `its requests recorded by a proxy during one poll and replayed raw (undici, ${EXPORTER_CONCURRENCY} in flight like the exporter, bodies read, not parsed). ` +
      `Broker CPU: utime+stime of beam.smp (/proc, CLK_TCK ${CLK_TCK}) minus the background rate (${baseline.toFixed(3)}, then ${roundBaseline.toFixed(3)}, ${minuteBaseline.toFixed(3)} and ${ctx.baseline.toFixed(3)} CPU-s/s with the traffic and nobody polling, measured before each phase) over the same wall time, median of ${S.repeats}. ` +
      `Scrapes: the exporter with every default except \`poll.interval: ${S.pollInterval}\`, sequential scrapes 20 ms apart, \`Accept: ${PROM_HEADERS.accept}\`, \`Accept-Encoding: gzip\`; ` +
      `the plugin got the same headers (without them its median was ${fmtMs(median(pluginPlainMs))}; its broker CPU per scrape ${median(pluginCpu).toFixed(3)} s).`,
    '',
    table(['metric', 'measured', 'reference', 'ratio', 'target', 'result'], rows),
    '',
    '## Per collector',
    '',
    collectorTable,
    '',
    '## Broker CPU per path',
    '',
    'Each path of the round above (and the kbudde-style ones) fetched alone, 3 times, median net CPU; paths under 10 ms of CPU are left out.',
    '',
    table(
      ['asked by', 'path', 'bytes', 'wall', 'broker CPU (net)'],
      perPath.filter((p) => p.cpu >= 0.01).map((p) => [p.owner, `\`${p.path.length > 90 ? p.path.slice(0, 87) + '...' : p.path}\``, fmtBytes(p.bytes), fmtS(p.wall), `${p.cpu.toFixed(3)} s`]),
    ),
    '',
    '## Queue collector settings',
    '',
    `Only the queues collector, \`interval: 1s\` (back to back); median of ${Math.min(S.polls, 3)} polls after one warm-up (the default row: ${S.polls}); raw fetch and broker CPU: median of ${S.repeats} replays of the recorded paths (${EXPORTER_CONCURRENCY} in flight).`,
    '',
    altTable,
    '',
    '## Recorded paths of one round',
    '',
    ...perCollector.filter((r) => !r.error).flatMap((r) => r.round.map((p) => `- ${r.name}: \`${p.path.length > 200 ? p.path.slice(0, 197) + '...' : p.path}\` (HTTP ${p.status}, ${fmtBytes(p.bytes)})`)),
    '',
    `promtool output: ${promtool.ok ? '(none: ok)' : '\n\n```\n' + promtool.output.trim().split('\n').slice(0, 20).join('\n') + '\n```'}`,
    '',
  ].join('\n');
  process.stdout.write(md);
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'latest.md'), md);
  fs.writeFileSync(path.join(S.resultsDir, `${S.queues}-queues.md`), md);
  fs.writeFileSync(path.join(S.resultsDir, `${S.queues}-queues.json`), JSON.stringify({ settings: S, machine: m, setupSeconds, cpuStatsRound, cpuAverageRound, cpuPerMinute, kbuddePerMinute, pluginPerMinute, perCollector: perCollector.map(({ round, ...r }) => r), cpuRuns, perPath, memory: mem, baseline, scrapeMs, coldMs, pluginMs, pluginPlainMs, pluginCpu, series, pluginSeries, rss, hwm, alternatives: alternatives.map(({ round, ...a }) => a), selfAtEnd }, null, 1));
  log(`written to ${path.relative(ROOT, path.join(S.resultsDir, 'latest.md'))} and ${S.queues}-queues.md/.json`);
}

/** A short description of the recorded queue requests: the query parameters of the first list request. */
function describeQuery(paths) {
  const lists = paths.filter((p) => p.startsWith('/api/queues'));
  if (lists.length === 0) return '';
  const url = new URL(lists[0], 'http://x');
  const keys = [...url.searchParams.keys()].map((k) => (k === 'columns' ? `columns(${url.searchParams.get(k).split(',').length})` : `${k}=${url.searchParams.get(k)}`));
  const perVhost = lists.some((p) => /^\/api\/queues\/[^/?]+/.test(p) && !p.startsWith('/api/queues/detailed'));
  const consumers = paths.some((p) => p.startsWith('/api/consumers')) ? ' + /api/consumers' : '';
  return `${perVhost ? '/api/queues/{vhost}' : '/api/queues'}${keys.length ? ' ' + keys.join(' ') : ''}${consumers}`;
}

// ---------------------------------------------------------------------------

const overall = setTimeout(() => {
  log(`overall timeout of ${S.timeoutMin} min: stopping`);
  cleanup().finally(() => process.exit(1));
}, S.timeoutMin * 60_000);
overall.unref();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    cleanup().finally(() => process.exit(130));
  });
}

main().then(
  async () => {
    await cleanup();
    clearTimeout(overall);
    process.exit(0);
  },
  async (error) => {
    log('FAILED:', error?.stack ?? error);
    await cleanup();
    process.exit(1);
  },
);
