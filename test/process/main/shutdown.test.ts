// SIGTERM on the built exporter: a scrape in flight gets its whole answer, then the process exits.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { serveApi, sleep, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');
// Enough queues for an exposition of several MB, which a slow reader takes a while to receive.
const QUEUES = JSON.stringify(
  Array.from({ length: 30_000 }, (_, i) => ({ name: `q${i}`, vhost: '/', type: 'classic', durable: true, messages: i, messages_ready: i, messages_unacknowledged: 0, consumers: 0, state: 'running' })),
);

let server: TestServer | undefined;
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await server?.close();
});

it('finishes the scrape in flight, then exits 0 on SIGTERM', async () => {
  server = await serveApi({ '/api/overview': OVERVIEW, '/api/vhosts': '[{"name":"/"}]', '/api/queues': QUEUES });
  exporter = await startExporter({ configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${server.url}\n` });
  await eventually(async () => ((await exporter!.value('rabbitmq_exporter_collector_success{collector="queues"}')) === 1 ? true : undefined), 30_000, 'the queues');
  const { port } = new URL(exporter.url);

  // Start a plain (uncompressed) scrape and read only its first chunk before SIGTERM.
  const received = await new Promise<{ declared: number; got: number }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path: '/metrics' }, (res) => {
      let got = 0;
      res.once('data', (chunk: Buffer) => {
        got += chunk.length;
        res.pause();
        exporter!.signal('SIGTERM');
        void sleep(500).then(() => {
          res.on('data', (more: Buffer) => (got += more.length));
          res.resume();
        });
      });
      res.on('end', () => resolve({ declared: Number(res.headers['content-length']), got }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  expect(received.declared).toBeGreaterThan(1_000_000);
  expect(received.got).toBe(received.declared);
  await exporter.stop();
  expect(exporter.logs()).toContain('"msg":"stopped"');
  exporter = undefined;
}, 90_000);
