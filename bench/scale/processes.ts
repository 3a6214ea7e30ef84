// The scale benchmark's processes: the simulated management API (simulator-server.ts, its own
// process), the built exporter against it, and a scraper in a worker thread. All are stopped on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { request } from 'undici';
import { spawnBuiltExporter, untilServing } from '../../test/harness/built-exporter.js';
import { listeningPorts } from '../../test/harness/listening.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { PROM_HEADERS, ROOT } from '../run/settings.js';
import { logTo } from '../run/util.js';
import { FAMILIES, FAMILIES_SETTINGS, INTERVAL, NODE_ARGS, POLL_THREAD, SIGNALS, VHOSTS } from './settings.js';

const children = new Set<ChildProcess>();
export const stopChildren = (): void => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('exit', stopChildren);
process.on('SIGINT', () => process.exit(130));

export function stop(child: ChildProcess): void {
  child.kill('SIGTERM');
  children.delete(child);
}

/** A finished queue-list (or vhost-list) answer, as the simulator's front reports it. */
export interface Answer {
  path: string;
  query: string;
  start: number;
  end: number;
  bytes: number;
  status: number;
  /** Queues the simulator changed before this answer (on the request that starts a queue poll). */
  changed: number;
}

export interface SimulatorProcess {
  url: string;
  username: string;
  password: string;
  answers: Answer[];
  child: ChildProcess;
  /** From the next queue poll on, change this fraction of the queues before each (simulator-server.ts). */
  changePerPoll(fraction: number): void;
}

export async function startSimulator(queues: number): Promise<SimulatorProcess> {
  const server = path.join(path.dirname(fileURLToPath(import.meta.url)), 'simulator-server.js');
  const child = spawn(process.execPath, ['--max-old-space-size=4096', server, String(queues), String(VHOSTS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.add(child);
  const lines = readline.createInterface({ input: child.stdout! });
  const answers: Answer[] = [];
  const info = await new Promise<{ url: string; username: string; password: string }>((resolve) => {
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { url?: string; username: string; password: string } & Answer;
      if (msg.url) resolve({ url: msg.url, username: msg.username, password: msg.password });
      else answers.push(msg);
    });
  });
  return { ...info, answers, child, changePerPoll: (fraction) => child.stdin!.write(`fraction ${fraction}\n`) };
}

/** The collectors the measured exporter runs: the queues, and the overview the others start from. */
export const MEASURED_COLLECTORS: readonly string[] = ['queues', 'overview'];

export interface ExporterProcess {
  url: string;
  child: ChildProcess;
  pid: number;
}

export async function startExporter(sim: SimulatorProcess, workDir: string, nodeArgs: readonly string[] = NODE_ARGS): Promise<ExporterProcess> {
  const config = path.join(workDir, 'config.yaml');
  fs.writeFileSync(
    config,
    [
      // Only the queue collector and the overview (once a minute) poll, without jitter, so that a
      // window of CPU time holds queue polls and nothing else of note.
      'poll:',
      '  interval: 60s',
      '  jitter: 0',
      'target:',
      `  url: ${sim.url}`,
      `  username: ${sim.username}`,
      `  password: ${sim.password}`,
      'collectors:',
      '  queues:',
      `    interval: ${INTERVAL}`,
      // Generous: on a loaded machine a 100k-queue poll can take most of a minute.
      '    timeout: 120s',
      // Every measured poll fetches the statistics (the default fetches them on one in four): the
      // costliest poll, the one the targets are about.
      '    stats_every: 1',
      ...(SIGNALS ? ['    signals: true'] : []),
      ...(POLL_THREAD === undefined ? [] : [`    poll_thread: ${POLL_THREAD}`]),
      ...(FAMILIES ? ['    families:', ...Object.entries(FAMILIES_SETTINGS).map(([key, value]) => `      ${key}: ${String(value)}`)] : []),
      ...COLLECTORS.filter((c) => !MEASURED_COLLECTORS.includes(c.name)).flatMap((c) => [`  ${c.name}:`, '    enabled: false']),
      '',
    ].join('\n'),
  );
  const logFile = path.join(workDir, 'exporter.log');
  fs.writeFileSync(logFile, '');
  const exporter = spawnBuiltExporter(['--config', config, '--web.listen-address', '127.0.0.1:0'], {
    root: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
    nodeArgs: [...nodeArgs],
  });
  const { child } = exporter;
  children.add(child);
  logTo(child, logFile);
  const [port] = await listeningPorts(child, { name: 'exporter', timeoutMs: 20_000 });
  const url = `http://127.0.0.1:${port}`;
  const healthy = async () => {
    const res = await request(`${url}/-/healthy`);
    await res.body.dump();
    return res.statusCode === 200;
  };
  await untilServing(exporter, healthy, () => `see ${logFile}`);
  return { url, child, pid: child.pid! };
}

export interface ScrapeRecord {
  start: number;
  ms: number;
  status: number | string;
}

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

/**
 * The scraper runs in a worker thread: this thread's own work (reading and decompressing the
 * whole exposition to follow the polls) must not delay the scrapes it times.
 */
export function startScraper(exporterUrl: string): { scrapes: ScrapeRecord[]; stop: () => Promise<number> } {
  const scraper = new Worker(SCRAPER, { eval: true, workerData: { url: `${exporterUrl}/metrics`, headers: PROM_HEADERS } });
  const scrapes: ScrapeRecord[] = [];
  scraper.on('message', (m: ScrapeRecord) => scrapes.push(m));
  return { scrapes, stop: () => scraper.terminate() };
}
