// The built exporter as a child process (dist/src/main.js), what it says about itself on
// /metrics, and a recording proxy that shows which requests it makes.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { stringify as toYaml } from 'yaml';
import { spawnBuiltExporter, untilServing } from '../../test/harness/built-exporter.js';
import { listeningPorts } from '../../test/harness/listening.js';
import { ROOT, S } from './settings.js';
import { drain, logTo, memoryOf, onCleanup, sleep } from './util.js';

export interface RecordedRequest {
  path: string;
  start: number;
  end: number | undefined;
  status: number;
  bytes: number;
}

export interface Exporter {
  label: string;
  port: number;
  pid: number;
  config: Record<string, unknown>;
  configFile: string;
  logFile: string;
  url: string;
  /** Max of VmRSS, sampled every 100 ms. */
  readonly maxRss: number;
  readonly hwm: number;
  logTail(n?: number): string;
  stop(): Promise<void>;
  /** Max of the Node memory series seen at the snapshots read so far. */
  memoryMax?: Record<string, number>;
}

export type SelfMetrics = Record<string, { duration_seconds?: number; last_success_timestamp_seconds?: number; success?: number; samples?: number }>;

export interface Poll {
  /** When it ended, in seconds. */
  end: number;
  duration: number;
  samples: number | undefined;
}

export async function startRecordingProxy(targetPort: number): Promise<{ port: number; records: RecordedRequest[]; close: () => Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const records: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const entry: RecordedRequest = { path: req.url ?? '', start: Date.now(), end: undefined, status: 0, bytes: 0 };
    records.push(entry);
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => {
        entry.status = up.statusCode ?? 0;
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.on('data', (chunk: Buffer) => (entry.bytes += chunk.length));
        up.on('end', () => (entry.end = Date.now()));
        up.pipe(res);
      },
    );
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
      agent.destroy();
    }));
  onCleanup(close);
  return { port, records, close };
}

// ---------------------------------------------------------------------------
// the exporter as a child process

export async function startExporter(label: string, brokerUrl: string, settings: Record<string, unknown>, workDir: string): Promise<Exporter> {
  const config = {
    web: { listen_address: '127.0.0.1:0' },
    log: { level: 'info' },
    poll: { interval: S.pollInterval },
    target: { url: brokerUrl, username: 'guest', password: 'guest' },
    ...settings,
  };
  const slug = label.replace(/[^a-z0-9]+/gi, '-');
  const configFile = path.join(workDir, `exporter-${slug}.yaml`);
  fs.writeFileSync(configFile, toYaml(config));
  const logFile = path.join(workDir, `exporter-${slug}.log`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RABBITMQ_')));
  const exporter = spawnBuiltExporter(['--config', configFile], { root: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { child } = exporter;
  logTo(child, logFile);
  const listening = listeningPorts(child, { name: `exporter (${label})`, timeoutMs: 20_000 });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  let maxRss = 0;
  let lastMem: { rss: number; hwm: number } | undefined;
  const pid = child.pid!;
  const sampler = setInterval(() => {
    const m = memoryOf(pid);
    if (m) {
      lastMem = m;
      maxRss = Math.max(maxRss, m.rss);
    }
  }, 100);
  const stop = onCleanup(async () => {
    clearInterval(sampler);
    await exporter.stop(8000);
    process.off('exit', killOnExit);
  });
  const [port] = (await listening.catch(async (error: unknown) => {
    await stop();
    throw error;
  })) as [number];
  const exp: Exporter = {
    label,
    port,
    pid,
    config,
    configFile,
    logFile,
    url: `http://127.0.0.1:${port}`,
    get maxRss() {
      return maxRss;
    },
    get hwm() {
      return memoryOf(pid)?.hwm ?? lastMem?.hwm ?? NaN;
    },
    logTail: (n = 30): string => {
      try {
        return fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-n).join('\n');
      } catch {
        return '';
      }
    },
    stop,
  };
  const healthy = async () => {
    const res = await request(`${exp.url}/-/healthy`, { headersTimeout: 2000, bodyTimeout: 2000 });
    await drain(res.body);
    return res.statusCode === 200;
  };
  try {
    await untilServing(exporter, healthy, () => exp.logTail(5).replace(/\s*\n\s*/g, ' / '));
  } catch (error) {
    await stop();
    throw new Error(`exporter (${label}): ${(error as Error).message}`);
  }
  return exp;
}

/** The exporter's Node memory (prom-client's defaults), as of its last snapshot. */
const MEMORY_LINE = /^(nodejs_heap_size_total_bytes|nodejs_heap_size_used_bytes|nodejs_external_memory_bytes|process_resident_memory_bytes) (\S+)/;
const SELF_LINE = /^rabbitmq_exporter_collector_(duration_seconds|last_success_timestamp_seconds|success|samples)\{collector="([^"]+)"\} (\S+)/;

/**
 * The exporter's own series, from the head of the text exposition (they come first): reads at
 * most 1 MB, then drops the connection. { collector: { duration_seconds, last_success_timestamp_seconds, success, samples } }
 */
export async function readSelfMetrics(exp: Exporter): Promise<SelfMetrics> {
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
  const out: SelfMetrics = {};
  const memory: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = SELF_LINE.exec(line);
    if (m) {
      out[m[2]!] ??= {};
      out[m[2]!]![m[1] as keyof SelfMetrics[string]] = Number(m[3]);
    }
    const mem = MEMORY_LINE.exec(line);
    if (mem) memory[mem[1]!] = Number(mem[2]);
  }
  exp.memoryMax ??= {};
  for (const [k, v] of Object.entries(memory)) exp.memoryMax[k] = Math.max(exp.memoryMax[k] ?? 0, v);
  return out;
}

/**
 * Watches the exporter's own series until `collector` has `warmup + n` new successful polls.
 * Returns every successful poll of every collector: { collector: [{ end, duration }] } (end in s).
 */
export async function watchPolls(exp: Exporter, collector: string, n: number, timeoutMs: number, warmup = 1): Promise<Record<string, Poll[]>> {
  const seen: Record<string, number | undefined> = {};
  const polls: Record<string, Poll[]> = {};
  let failures = 0;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let self: SelfMetrics;
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
      if (v.success === 1) {
        polls[name] ??= [];
        polls[name]!.push({ end: ts, duration: v.duration_seconds ?? NaN, samples: v.samples });
      }
    }
    if (self[collector]?.success === 0 && self[collector]!.duration_seconds !== seen[`${collector}:failed`]) {
      seen[`${collector}:failed`] = self[collector]!.duration_seconds;
      if (++failures >= 3) throw new Error(`collector ${collector} failed 3 polls: ${lastFailure(exp, collector)}`);
    }
    if ((polls[collector]?.length ?? 0) >= warmup + n) break;
    if (Date.now() > deadline) {
      throw new Error(`collector ${collector}: only ${polls[collector]?.length ?? 0} successful polls within ${timeoutMs} ms: ${lastFailure(exp, collector)}`);
    }
    await sleep(250);
  }
  for (const [name, list] of Object.entries(polls)) if (list.length > 0) polls[name] = list.slice(name === collector ? warmup : Math.min(warmup, list.length - 1));
  return polls;
}

/** The cause of the collector's last failed poll, from the exporter's JSON log. */
function lastFailure(exp: Exporter, collector: string): string {
  const lines = exp.logTail(200).split('\n').reverse();
  for (const line of lines) {
    try {
      const entry = JSON.parse(line) as { collector?: string; msg?: string; path?: string; cause?: string };
      if (entry.collector === collector && entry.msg === 'poll failed') return `${entry.path ?? ''} ${entry.cause ?? ''}`.trim();
    } catch {
      /* not JSON */
    }
  }
  return exp.logTail(3).replace(/\s*\n\s*/g, ' / ');
}
