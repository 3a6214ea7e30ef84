// Issue 17: a slow /api/queues held every pooled connection, the overview waited past its
// deadline, and rabbitmq_up went to 0 while /api/overview answered at once.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { Target } from '../../../src/target.js';
import { serveApi, sleep, type TestServer } from '../../support/http-server.js';

const OVERVIEW = readFileSync('test/fixtures/rabbitmq-3.10.8/overview.json', 'utf8');

let server: TestServer | undefined;
let target: Target | undefined;
afterEach(async () => {
  await target?.stop();
  await server?.close();
});

it('rabbitmq_up stays 1 while stalled queue lists hold every shared connection', async () => {
  server = await serveApi({ '/api/overview': OVERVIEW, '/api/vhosts': '[{"name":"a"},{"name":"b"},{"name":"c"}]', '/api/queues/*': 'stall' });
  const config = loadConfig({ pollInterval: '1s' }, { RABBITMQ_URL: server.url }, COLLECTORS);
  for (const c of config.collectors) c.enabled = c.name === 'overview' || c.name === 'queues';
  target = new Target(config, new ProcessMetrics(), pino({ level: 'silent' }));
  target.start();
  const overview = target.state.collectors.get('overview')!;
  for (let i = 0; i < 100 && overview.attempts < 4; i++) await sleep(100);
  expect(overview.attempts).toBeGreaterThanOrEqual(4);
  // Every overview poll succeeded, though the queue lists never answered.
  expect(overview.lastError).toBeUndefined();
  expect(target.state.up).toBe(true);
  expect(target.state.collectors.get('queues')!.lastSuccessAt).toBeUndefined();
  expect(server.requests.filter((r) => r.url?.startsWith('/api/queues/')).length).toBe(config.target.maxConcurrentRequests);
}, 60_000);
