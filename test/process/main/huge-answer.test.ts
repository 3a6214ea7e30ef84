// Issue 12: while the management API sent a 200 MB answer, /metrics did not answer for seconds.
// The built exporter against the simulated API whose /api/queues answers 200 MB of valid JSON
// without announcing its length: scrapes are answered throughout, the answer is refused once it
// passes the default cap (160 MiB), the transfer stops, and nothing from that poll is served.
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { samples } from '../../support/parse-exposition.js';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

let sim: Simulator | undefined;
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await sim?.close();
});

const MB = 1024 * 1024;

interface Scrape {
  start: number;
  end: number;
  status: number;
}

/** Scrapes `url` back to back (50 ms apart) in a child process from start() to stop(); wall-clock times. */
function scrapeInChild(url: string): { start(): void; stop(): Promise<Scrape[]> } {
  // The first fetch of a fresh process loads undici, which took over a second on a busy machine:
  // done before the first timed scrape.
  const script = `
    const lines = [];
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => lines.push(...d.split('\\n').filter(Boolean)));
    (async () => {
      await fetch('data:,warm-up').then((r) => r.text());
      while (lines.length === 0) await new Promise((r) => setTimeout(r, 10));
      const scrapes = [];
      while (lines.length === 1) {
        const start = Date.now();
        let status = 0;
        try { const res = await fetch(process.argv[1]); await res.arrayBuffer(); status = res.status; } catch {}
        scrapes.push({ start, end: Date.now(), status });
        await new Promise((r) => setTimeout(r, 50));
      }
      process.stdout.write(JSON.stringify(scrapes));
      process.exit(0);
    })();`;
  const child = spawn(process.execPath, ['-e', script, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    start: () => child.stdin.write('start\n'),
    async stop() {
      child.stdin.end('stop\n');
      await exited;
      return JSON.parse(out) as Scrape[];
    },
  };
}

it('a 200 MB answer: scrapes go on, the queue poll fails over the cap, nothing of it is served', async () => {
  const running = await startSimulator({ queues: 20, vhosts: 1 });
  sim = running;
  // The first queue poll fails (so no queue series exist); the next, 5 s later, gets the huge
  // answer while the scraper is running.
  running.fault(/^\/api\/queues/, { kind: 'status', status: 503 });
  const disabled = ['nodes', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers', 'streams', 'health_checks', 'limits', 'federation', 'shovels', 'feature_flags', 'inventory'];
  exporter = await startExporter({
    configYaml: [
      'poll:',
      '  interval: 5s',
      'target:',
      `  url: ${running.url}`,
      `  username: ${running.username}`,
      `  password: ${running.password}`,
      'collectors:',
      '  queues:',
      '    interval: 5s',
      ...disabled.map((c) => `  ${c}:\n    enabled: false`),
      '',
    ].join('\n'),
  });
  const exp = exporter;
  // Scrapes come from a process of their own: the simulator's writes keep this one busy.
  const scraper = scrapeInChild(`${exp.url}/metrics`);
  const refusedTotal = 'rabbitmq_exporter_answers_refused_total{collector="queues",path="/api/queues"}';
  await eventually(
    async () => (samples((await exp.metrics()).text).get('rabbitmq_exporter_collector_success{collector="queues"}') === 0 ? true : undefined),
    30_000,
    'the first queue poll to fail',
  );
  scraper.start();
  running.fault(/^\/api\/queues/, { kind: 'huge', bytes: 200 * MB, contentLength: false });
  const failed = await eventually(
    async () => {
      const values = samples((await exp.metrics()).text);
      return values.get(refusedTotal) === 1 ? values : undefined;
    },
    90_000,
    'the huge answer to be refused',
  );
  const scrapes = await scraper.stop();
  const progress = running.hugeProgress;
  const from = progress.find((p) => p.bytes > 10 * MB)!.at;
  const to = progress.at(-1)!.at;
  const during = scrapes.filter((s) => s.start >= from && s.end <= to);
  expect(to - from, 'the transfer lasted long enough to be scraped during it').toBeGreaterThan(200);
  expect(scrapes.filter((s) => s.status !== 200)).toEqual([]);
  expect(during.length, JSON.stringify({ from, to, scrapes: scrapes.slice(0, 20) })).toBeGreaterThan(0);
  // The bound: /metrics answered within 3 s throughout (it answered in 70 ms here).
  expect(Math.max(...scrapes.map((s) => s.end - s.start))).toBeLessThan(3000);
  expect(failed.get('rabbitmq_exporter_collector_success{collector="queues"}')).toBe(0);
  expect([...failed.keys()].filter((k) => k.startsWith('rabbitmq_queue_'))).toEqual([]);
  // A generous bound: the old code held the loop for seconds parsing such an answer.
  expect(failed.get('rabbitmq_exporter_event_loop_delay_max_seconds')).toBeLessThan(2);
  // The transfer stopped at the cap: the rest of the 200 MB was never sent.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(running.bytesSent).toBeLessThan(190 * MB);
  // One warning naming the path, the cap and the setting.
  const warnings = exp
    .logs()
    .split('\n')
    .filter((line) => line.includes('"level":"warn"') && line.includes('over the cap'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('"path":"/api/queues"');
  expect(warnings[0]).toContain(`over the cap of 160 MiB (${160 * MB} bytes) (target.max_response_bytes)`);
}, 120_000);
