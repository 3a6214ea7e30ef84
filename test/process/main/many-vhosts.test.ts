// Issue 17: with a huge vhost list the exporter froze for good: /metrics and /-/healthy stopped
// answering and SIGTERM was ignored. The built exporter against a local server with 100,000 vhosts.
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { serveApi, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');
const VHOSTS = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ name: `vh${i}` })));
const QUEUES = JSON.stringify([{ name: 'q', vhost: 'vh42', type: 'classic', durable: true, messages: 7, messages_ready: 7, messages_unacknowledged: 0, consumers: 0, state: 'running' }]);

let server: TestServer | undefined;
let exporter: ExporterProcess | undefined;
afterEach(async () => {
  await exporter?.stop();
  await server?.close();
});

it('polls queues against 100,000 vhosts, keeps answering, and stops on SIGTERM', async () => {
  server = await serveApi({ '/api/overview': OVERVIEW, '/api/vhosts': VHOSTS, '/api/queues': QUEUES });
  const disabled = ['nodes', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers', 'streams', 'health_checks', 'limits', 'federation', 'shovels', 'feature_flags', 'inventory'];
  exporter = await startExporter({
    configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${server.url}\ncollectors:\n${disabled.map((c) => `  ${c}:\n    enabled: false\n`).join('')}`,
  });
  await eventually(
    async () => ((await exporter!.value('rabbitmq_exporter_collector_success{collector="queues"}')) === 1 ? true : undefined),
    20_000,
    'the queues collector to succeed',
  );
  expect(await exporter.value('rabbitmq_queue_messages{vhost="vh42",queue="q"}')).toBe(7);
  expect((await fetch(`${exporter.url}/-/healthy`)).status).toBe(200);
  // One list request per poll, not one per vhost.
  expect(server.requests.filter((r) => r.url?.startsWith('/api/queues/'))).toEqual([]);
  // A frozen event loop ignored SIGTERM; this resolves only once the process has exited.
  await exporter.stop();
  exporter = undefined;
}, 60_000);
