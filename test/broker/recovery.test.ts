// Issue 32: how the exporter comes back after an outage, and what it serves across a reload.
import { writeFileSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithBroker } from './support/with-broker.js';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';

const INTERVAL_MS = 2000;

/**
 * A TCP proxy in front of the management port that can refuse connections (it stops listening and
 * cuts the open ones: the exporter sees ECONNREFUSED, as with a stopped broker) and let them through again.
 */
class SwitchableProxy {
  private server: Server | undefined;
  private readonly open = new Set<Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly upstreamPort: number,
  ) {}

  async pass(): Promise<void> {
    const server = createServer((client) => {
      const upstream = new Socket();
      for (const s of [client, upstream]) {
        this.open.add(s);
        s.on('close', () => this.open.delete(s));
        s.on('error', () => s.destroy());
      }
      upstream.connect(this.upstreamPort, this.host);
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.open) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function waitFor(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describeWithBroker('recovery after an outage (a proxy that refuses, then lets through)', (broker) => {
  let exporter: ExporterProcess;
  const proxy = new SwitchableProxy(broker.host, broker.managementPort);

  beforeAll(async () => {
    await proxy.pass();
    exporter = await startExporter({
      configYaml: `
poll:
  interval: ${INTERVAL_MS / 1000}s
  jitter: 0
target:
  url: http://127.0.0.1:${proxy.port}
  username: ${broker.username}
`,
      env: { RABBITMQ_PASSWORD: broker.password },
    });
  });

  afterAll(async () => {
    await exporter?.stop();
    await proxy.refuse();
  });

  it('rabbitmq_up and the other collectors are back within one interval of the broker answering again', async () => {
    await eventually(async () => ((await exporter.value('rabbitmq_exporter_collector_success{collector="nodes"}')) === 1 ? true : undefined), 30_000, 'nodes polled');
    await proxy.refuse();
    await eventually(async () => ((await exporter.value('rabbitmq_up')) === 0 ? true : undefined), 3 * INTERVAL_MS, 'rabbitmq_up 0 while refused');
    // Long enough for the other collectors to back off to 8 intervals (failures at 0, 1, 3, 7, 15 intervals).
    await waitFor(18 * INTERVAL_MS);
    await proxy.pass();
    const back = performance.now();
    const upAfter = await eventually(
      async () => ((await exporter.value('rabbitmq_up')) === 1 ? performance.now() - back : undefined),
      30_000,
      'rabbitmq_up 1 after the outage',
    );
    const nodesAfter = await eventually(
      async () => ((await exporter.value('rabbitmq_exporter_collector_success{collector="nodes"}')) === 1 ? performance.now() - back : undefined),
      30_000,
      'the nodes collector succeeding after the outage',
    );
    console.log(`recovery: rabbitmq_up 1 after ${Math.round(upAfter)} ms, nodes after ${Math.round(nodesAfter)} ms (interval ${INTERVAL_MS} ms)`);
    // One interval, plus what the poll, the snapshot's assembly (100 ms) and our 200 ms checks take.
    expect(upAfter).toBeLessThan(INTERVAL_MS + 1000);
    expect(nodesAfter).toBeLessThan(INTERVAL_MS + 2000);
    // The outage and its end are in the log: the end with how long it lasted, once the nodes collector is back too.
    const ended = await eventually(
      async () => exporter.logs().split('\n').find((line) => line.includes('"polls succeed again"') && line.includes('"failing_for"')),
      10_000,
      'the end of the outage in the log',
    );
    expect(ended).toMatch(/"failed_polls":\d+/);
    // Cutting the open connections may fail a poll in flight first (ECONNRESET): the refusal is a cause of its own.
    const started = exporter.logs().split('\n').find((line) => line.includes('"msg":"poll failed"') && line.includes('"level":"warn"') && line.includes('ECONNREFUSED'));
    expect(started).toContain(`"hint":"nothing listens at 127.0.0.1:${proxy.port}`);
  }, 90_000);
});

describeWithBroker('a reload that changes only the log level', (broker) => {
  let exporter: ExporterProcess;
  const config = (level: string) => `
log:
  level: ${level}
poll:
  interval: 2s
target:
  url: ${broker.managementUrl}
  username: ${broker.username}
`;

  beforeAll(async () => {
    exporter = await startExporter({ configYaml: config('info'), env: { RABBITMQ_PASSWORD: broker.password } });
  });

  afterAll(async () => {
    await exporter?.stop();
  });

  it('serves rabbitmq_up 1, all the series and /-/ready 200 at every scrape across SIGHUP and POST /-/reload', async () => {
    const brokerSeries = (text: string) => [...samples(text).keys()].filter((k) => !k.startsWith('rabbitmq_exporter_') && !k.startsWith('process_') && !k.startsWith('nodejs_')).length;
    // Every collector has polled once: the baseline is the whole exposition.
    const baseline = await eventually(
      async () => {
        const { text } = await exporter.metrics();
        const values = samples(text);
        const polled = [...values.entries()].filter(([k]) => k.startsWith('rabbitmq_exporter_collector_enabled{'));
        return polled.every(([k]) => values.has(k.replace('_enabled', '_success'))) ? brokerSeries(text) : undefined;
      },
      30_000,
      'every collector polled',
    );
    expect(baseline).toBeGreaterThan(50);

    const answers: { up: number | undefined; series: number; ready: number }[] = [];
    let scraping = true;
    const loop = (async () => {
      while (scraping) {
        const [{ text }, ready] = await Promise.all([exporter.metrics(), fetch(`${exporter.url}/-/ready`)]);
        answers.push({ up: samples(text).get('rabbitmq_up'), series: brokerSeries(text), ready: ready.status });
      }
    })();
    try {
      writeFileSync(exporter.configFile, config('debug'));
      exporter.signal('SIGHUP');
      await eventually(async () => (exporter.logs().includes('configuration reloaded') ? true : undefined), 10_000, 'the reload by SIGHUP');
      await waitFor(3000);
      writeFileSync(exporter.configFile, config('info'));
      const posted = await fetch(`${exporter.url}/-/reload`, { method: 'POST' });
      expect(posted.status).toBe(200);
      // Past the new target's first polls.
      await waitFor(3000);
    } finally {
      scraping = false;
      await loop;
    }
    expect(exporter.logs().match(/configuration reloaded/g)?.length).toBe(2);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => a.up !== 1)).toEqual([]);
    expect(answers.filter((a) => a.ready !== 200)).toEqual([]);
    // A handful of series may come and go with the broker's own statistics; a tenth of them was the fault.
    expect(answers.filter((a) => a.series < baseline * 0.9)).toEqual([]);
  }, 60_000);
});
