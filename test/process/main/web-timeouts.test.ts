// Issue 17: the HTTP server had no deadlines. The built exporter as an operator runs it: the web.*
// keys reach its server, and what the server closes is counted in /metrics.
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { closedPort } from '../../support/http-server.js';

let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  exporter = undefined;
});

it('closes a connection that sends no request within web.read_timeout (408), and counts it', async () => {
  const broker = await closedPort();
  exporter = await startExporter({
    configYaml: `web:\n  read_timeout: 1s\n  write_timeout: 5s\n  max_concurrent_scrapes: 3\npoll:\n  interval: 1s\ntarget:\n  url: http://127.0.0.1:${broker}\n`,
    args: ['--log.level', 'debug'],
  });
  const details = exporter.logs().split('\n').find((l) => l.includes('"msg":"configuration in force"'));
  expect(JSON.parse(details ?? '{}').config.web).toEqual({ readTimeoutMs: 1000, writeTimeoutMs: 5000, idleTimeoutMs: 5000, maxConcurrentScrapes: 3, maxConnections: 512 });

  const { port } = new URL(exporter.url);
  const silent = connect(Number(port), '127.0.0.1');
  const received = await new Promise<string>((resolve, reject) => {
    let text = '';
    silent.on('data', (chunk: Buffer) => (text += chunk.toString()));
    silent.once('close', () => resolve(text));
    silent.once('error', reject);
  });
  expect(received).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  // Served from the next snapshot (the next poll, here failing against a closed port).
  await eventually(
    async () => ((await exporter!.value('rabbitmq_exporter_http_timeouts_total{timeout="read"}')) === 1 ? true : undefined),
    20_000,
    'the read timeout counted in /metrics',
  );
  expect(await exporter.value('rabbitmq_exporter_scrapes_refused_total')).toBe(0);
}, 60_000);

// Issue 24: nothing bounded open connections; 1,100 silent ones took every descriptor.
it('closes connections past web.max_connections as soon as they are accepted, and counts them', async () => {
  const broker = await closedPort();
  exporter = await startExporter({
    configYaml: `web:\n  read_timeout: 2s\n  max_connections: 3\npoll:\n  interval: 1s\ntarget:\n  url: http://127.0.0.1:${broker}\n`,
  });
  const { port } = new URL(exporter.url);
  // Five silent connections for three places (fewer if the start-up check's keep-alive connection
  // still holds one): those past the cap close at once, the others at read_timeout, with a 408
  // (read, so that the client sees the end of the connection).
  const openMs = await Promise.all(
    Array.from({ length: 5 }, () => {
      const started = performance.now();
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      return new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
    }),
  );
  const refused = openMs.filter((ms) => ms < 1000).length;
  expect(refused).toBeGreaterThanOrEqual(2);
  expect(openMs.filter((ms) => ms >= 1900)).toHaveLength(5 - refused);
  await eventually(
    async () => ((await exporter!.value('rabbitmq_exporter_http_connections_refused_total')) === refused ? true : undefined),
    20_000,
    'the refused connections counted in /metrics',
  );
}, 60_000);
