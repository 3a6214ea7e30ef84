// The demo (`npm run demo`, issue 30 item 5) as a user runs it: the built demo (dist/demo/main.js,
// made by `npm run build`) watching its simulated cluster, marked as such, and refusing a broker.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningPorts } from '../../harness/listening.js';
import { parseExposition } from '../../support/parse-exposition.js';

const DEMO = 'dist/demo/main.js';

interface Run {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runDemo(args: string[], env: Record<string, string> = {}): Run {
  if (!existsSync(DEMO)) throw new Error(`${DEMO} is missing: run \`npm run build\` (it builds the demo too)`);
  const child = spawn(process.execPath, [DEMO, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => output, exit };
}

/** Asks `check` every 200 ms until it gives a value; fails with what it waited for after `ms`. */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type Samples = Map<string, number>;

const queueDepths = (s: Samples) => [...s].filter(([k]) => k.startsWith('rabbitmq_queue_messages_ready{')).map(([k, v]) => `${k} ${v}`).join('\n');

describe('npm run demo', () => {
  let demo: Run;
  let url: string;
  let first: Samples;

  beforeAll(async () => {
    demo = runDemo(['--web.listen-address', '127.0.0.1:0', '--poll.interval', '1s']);
    const [port] = await listeningPorts(demo.child, { name: 'the demo', timeoutMs: 30_000 });
    url = `http://127.0.0.1:${port}`;
    // Every enabled collector has polled once (a _collector_success beside each _collector_enabled).
    first = await until('first poll of every collector', 60_000, async () => {
      const { samples } = parseExposition(await (await fetch(`${url}/metrics`)).text());
      const enabled = [...samples.keys()].filter((k) => k.startsWith('rabbitmq_exporter_collector_enabled{'));
      return enabled.length > 0 && enabled.every((k) => samples.has(k.replace('_enabled{', '_success{'))) ? samples : undefined;
    });
  }, 90_000);

  afterAll(() => {
    if (demo?.child.exitCode === null) demo.child.kill('SIGTERM');
  });

  it('serves a cluster of 1,000 queues on three nodes, up, every collector succeeding', () => {
    expect(first.get('rabbitmq_up')).toBe(1);
    const failing = [...first].filter(([k, v]) => k.startsWith('rabbitmq_exporter_collector_success{') && v !== 1);
    expect(failing).toEqual([]);
    expect(queueDepths(first).split('\n')).toHaveLength(1000);
    expect(first.get('rabbitmq_queues')).toBe(1000);
    const nodes = new Set([...first.keys()].filter((k) => k.startsWith('rabbitmq_node_')).map((k) => /node="([^"]+)"/.exec(k)?.[1]).filter(Boolean));
    expect([...nodes].sort()).toEqual(['rabbit@demo-1', 'rabbit@demo-2', 'rabbit@demo-3']);
    expect(first.get('rabbitmq_global_messages_received_per_second')).toBeGreaterThan(0);
  });

  it('marks its series as simulated', () => {
    const marks = [...first].filter(([k]) => k.startsWith('rabbitmq_simulated_info{'));
    expect(marks).toEqual([['rabbitmq_simulated_info{simulation="the rabbitmq-exporter demo (npm run demo)"}', 1]]);
  });

  it('moves: counters grow and queue depths change between two polls', async () => {
    const received = first.get('rabbitmq_global_messages_received_total')!;
    expect(received).toBeGreaterThan(0);
    const later = await until('a later poll with other figures', 30_000, async () => {
      const { samples } = parseExposition(await (await fetch(`${url}/metrics`)).text());
      return samples.get('rabbitmq_global_messages_received_total')! > received && queueDepths(samples) !== queueDepths(first) ? samples : undefined;
    });
    expect(later.get('rabbitmq_global_messages_delivered_total')).toBeGreaterThan(first.get('rabbitmq_global_messages_delivered_total')!);
  }, 60_000);

  it('says SIMULATED on the landing page', async () => {
    const html = await (await fetch(`${url}/`)).text();
    expect(html).toMatch(/<p class="simulated">SIMULATED: no RabbitMQ is watched here\./);
    expect(html).toContain('the rabbitmq-exporter demo (npm run demo)');
  });

  it('exits cleanly on SIGTERM', async () => {
    demo.child.kill('SIGTERM');
    expect(await demo.exit).toEqual({ code: 0, signal: null });
    expect(demo.output()).toMatch(/stopped/);
  }, 30_000);
});

describe('npm run demo with a broker configured', () => {
  it('is refused when the environment names a broker', async () => {
    const run = runDemo([], { RABBITMQ_URL: 'http://mq.example.com:15672' });
    expect(await run.exit).toEqual({ code: 2, signal: null });
    expect(run.output()).toContain('a broker is configured: environment variable RABBITMQ_URL sets target.url');
  }, 30_000);

  it('is refused when the config file lists targets', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'demo-')), 'exporter.yaml');
    writeFileSync(file, 'targets:\n  - name: orders\n    url: http://orders:15672\n');
    const run = runDemo(['--config.file', file]);
    expect(await run.exit).toEqual({ code: 2, signal: null });
    expect(run.output()).toContain(`a broker is configured: config file ${file} sets targets`);
  }, 30_000);

  it('is not refused for a config file that configures no broker', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'demo-')), 'exporter.yaml');
    writeFileSync(file, 'poll:\n  interval: 5s\n');
    const run = runDemo(['--config.file', file, '--web.listen-address', '127.0.0.1:0']);
    const [port] = await listeningPorts(run.child, { name: 'the demo', timeoutMs: 30_000 });
    const url = `http://127.0.0.1:${port}`;
    await until('the demo ready', 30_000, async () => ((await fetch(`${url}/-/ready`)).status === 200 ? true : undefined));
    run.child.kill('SIGTERM');
    expect(await run.exit).toEqual({ code: 0, signal: null });
  }, 90_000);
});
