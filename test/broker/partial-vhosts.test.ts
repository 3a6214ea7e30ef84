// Issue 32: one sick vhost blanked every queue, and a slow optional part failed its whole
// collector. On the private node: a monitoring user without permissions on one vhost (the others'
// queues are served, that one reported), and, through a small proxy in front of the management
// port, one vhost's queue list and the node memory breakdown that never answer (the other vhosts
// stay fresh, the nodes collector keeps succeeding).
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const VHOSTS = ['pv-a', 'pv-b', 'pv-refused'];
const QUEUES: Record<string, string[]> = { 'pv-a': ['pa1', 'pa2'], 'pv-b': ['pb1'], 'pv-refused': ['pr1'] };
const USER = 'pv-monitor';
const PASSWORD = 'pv-monitor-secret-pw';

/**
 * An HTTP proxy to the management port that never answers the requests `stalls` matches (while it
 * does): they stay open until the client gives up. Everything else is passed on as it is.
 */
async function stallingProxy(target: string): Promise<{ url: string; stalls: (path: string) => boolean; setStall(match: ((path: string) => boolean) | undefined): void; close(): Promise<void> }> {
  const upstream = new URL(target);
  let stall: ((path: string) => boolean) | undefined;
  const held = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (stall?.(path)) {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stalls: (path) => stall?.(path) === true,
    setStall(match) {
      stall = match;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describeWithBroker('a vhost refused, a vhost and the memory breakdown stalled', (broker) => {
  const api = managementApi(broker);
  /** The broker's own `messages` of each test queue, as the API answers it. */
  const apiMessages = async (vhost: string) => {
    const queues = await api<{ name: string; messages?: number }[]>('GET', `/api/queues/${encodeURIComponent(vhost)}?columns=name,messages`);
    return new Map(queues.map((q) => [q.name, q.messages]));
  };
  const publish = (vhost: string, queue: string) =>
    api('POST', `/api/exchanges/${encodeURIComponent(vhost)}/amq.default/publish`, { properties: {}, routing_key: queue, payload: 'm', payload_encoding: 'string' });
  /** Waits for the broker's statistics to show `count` messages in `queue` (they come with its ~5 s tick). */
  const messagesShown = (vhost: string, queue: string, count: number) =>
    eventually(async () => ((await apiMessages(vhost)).get(queue) === count ? true : undefined), 30_000, `${vhost}/${queue} showing ${count} messages`);

  beforeAll(async () => {
    for (const vhost of VHOSTS) {
      await api('PUT', `/api/vhosts/${encodeURIComponent(vhost)}`, {});
      await api('PUT', `/api/permissions/${encodeURIComponent(vhost)}/${encodeURIComponent(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
      for (const queue of QUEUES[vhost]!) await api('PUT', `/api/queues/${encodeURIComponent(vhost)}/${queue}`, { durable: false });
    }
    for (let i = 0; i < 3; i++) await publish('pv-a', 'pa1');
    await publish('pv-b', 'pb1');
    // The monitoring user may read every vhost but pv-refused: a vhost created without granting it.
    await api('PUT', `/api/users/${USER}`, { password: PASSWORD, tags: 'monitoring' });
    for (const vhost of ['/', 'pv-a', 'pv-b']) await api('PUT', `/api/permissions/${encodeURIComponent(vhost)}/${USER}`, { configure: '', write: '', read: '.*' });
    await messagesShown('pv-a', 'pa1', 3);
    await messagesShown('pv-b', 'pb1', 1);
  });
  afterAll(async () => {
    await api('DELETE', `/api/users/${USER}`).catch(() => undefined);
    for (const vhost of VHOSTS) await api('DELETE', `/api/vhosts/${encodeURIComponent(vhost)}`).catch(() => undefined);
  });

  it('a monitoring user without permission on one vhost still gets every other vhost\'s queues, with the API\'s values; the refused one is reported, logged once naming the user, and not asked at the next poll', async () => {
    let client: ManagementClient | undefined;
    try {
      client = clientFor({ managementUrl: broker.managementUrl, username: USER, password: PASSWORD });
      // The premise: the monitoring user is refused pv-refused's queues, which /api/vhosts lists to it.
      // 3.10.8 and 4.0.5 answer 401; 4.3.6 answers 404, as for a vhost that does not exist.
      const refused = await client.getJson('/api/queues/pv-refused').then(() => undefined, (error: { status?: number }) => error.status);
      expect([401, 404]).toContain(refused);
      expect((await client.getJson<{ name: string }[]>('/api/vhosts', { columns: 'name' })).map((v) => v.name)).toContain('pv-refused');
      const memory = new Map<string, unknown>();
      const options = { vhosts: VHOSTS, stats_every: 1 };
      const r = await runCollector(queuesCollector, { api: client, memory, options, limits: { timeoutMs: 30_000, maxAgeMs: 90_000 } });
      for (const vhost of ['pv-a', 'pv-b']) {
        const expected = await apiMessages(vhost);
        expect(new Set(r.family('rabbitmq_queue_messages').filter((s) => s.labels.vhost === vhost).map((s) => s.labels.queue))).toEqual(new Set(QUEUES[vhost]));
        for (const [queue, messages] of expected) expect(r.value('rabbitmq_queue_messages', { vhost, queue }), `${vhost}/${queue}`).toBe(messages);
        expect(r.value('rabbitmq_vhost_queues', { vhost, type: 'classic' })).toBe(QUEUES[vhost]!.length);
      }
      expect(r.parsed.filter((s) => s.labels.vhost === 'pv-refused' && !s.name.startsWith('rabbitmq_exporter_'))).toEqual([]);
      expect(r.family('rabbitmq_exporter_collector_vhost_failed').map((s) => s.labels)).toEqual([{ collector: 'queues', vhost: 'pv-refused', reason: `http_${refused}` }]);
      const warnings = r.logs.filter((l) => l.vhost === 'pv-refused');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toContain(`"${USER}"`);
      expect(warnings[0]!.msg).toContain('set_permissions -p "pv-refused"');
      expect(JSON.stringify(r.logs)).not.toContain(PASSWORD);

      const next = await runCollector(queuesCollector, { api: client, memory, options, limits: { timeoutMs: 30_000, maxAgeMs: 90_000 }, lastServed: r.families });
      expect(next.requests.map((q) => q.path)).not.toContain('/api/queues/pv-refused');
      expect(next.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'pv-refused', reason: `http_${refused}` })).toBe(1);
      expect(next.logs.filter((l) => l.vhost === 'pv-refused')).toEqual([]);
      expect(next.value('rabbitmq_queue_messages', { vhost: 'pv-a', queue: 'pa1' })).toBe(3);
    } finally {
      await client?.close();
    }
  });

  it('through a proxy: a vhost whose list never answers leaves the other vhosts fresh and is reported; a memory breakdown that never answers leaves the nodes collector succeeding', async () => {
    const proxy = await stallingProxy(broker.managementUrl);
    let exporter: ExporterProcess | undefined;
    try {
      exporter = await startExporter({
        configYaml: `
poll:
  interval: 1s
  jitter: 0
  backoff_max: 2s
target:
  url: ${proxy.url}
  username: ${broker.username}
  password_file: /dev/null
collectors:
  queues:
    interval: 1s
    timeout: 6s
    # Long enough for pv-b's held series to outlast the test's waits for the broker's statistics.
    max_age: 2m
    vhost_timeout: 1s
    stats_every: 1
    vhosts: [pv-a, pv-b]
  nodes:
    interval: 1s
    timeout: 3s
    memory_breakdown_every: 1
`,
        env: { RABBITMQ_PASSWORD: broker.password },
      });
      const e = exporter;
      const value = (series: string) => e.value(series);
      const pa = (queue: string) => `rabbitmq_queue_messages{vhost="pv-a",queue="${queue}"}`;
      await eventually(async () => ((await value(pa('pa1'))) === 3 && (await value('rabbitmq_queue_messages{vhost="pv-b",queue="pb1"}')) === 1 ? true : undefined), 30_000, 'both vhosts served');
      await eventually(async () => ((await value('rabbitmq_node_memory_breakdown_age_seconds')) !== undefined ? true : undefined), 30_000, 'a memory breakdown');

      proxy.setStall((path) => path === '/api/queues/pv-b' || /^\/api\/nodes\/[^/]+\/memory$/.test(path));
      const failed = 'rabbitmq_exporter_collector_vhost_failed{collector="queues",vhost="pv-b",reason="timeout"}';
      await eventually(async () => ((await value(failed)) === 1 ? true : undefined), 30_000, 'pv-b reported as timed out');
      // pv-a is fresh while pv-b stalls: a message published now is served.
      await publish('pv-a', 'pa2');
      await messagesShown('pv-a', 'pa2', 1);
      await eventually(async () => ((await value(pa('pa2'))) === 1 ? true : undefined), 30_000, 'pv-a\'s new message served while pv-b stalls');
      const { text } = await e.metrics();
      const at = (series: string) => text.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1];
      expect(at(failed)).toBe('1');
      expect(at('rabbitmq_exporter_collector_success{collector="queues"}')).toBe('1');
      // pv-b's series are held from its last answer, and say since when.
      expect(at('rabbitmq_queue_messages{vhost="pv-b",queue="pb1"}')).toBe('1');
      expect(Number(at('rabbitmq_exporter_collector_vhost_last_success_timestamp_seconds{collector="queues",vhost="pv-b"}'))).toBeGreaterThan(Date.now() / 1000 - 120);

      const partFailed = 'rabbitmq_exporter_collector_part_failed{collector="nodes",part="memory_breakdown",reason="timeout"}';
      await eventually(async () => ((await value(partFailed)) === 1 ? true : undefined), 30_000, 'the memory breakdown reported as timed out');
      const later = (await e.metrics()).text;
      const laterAt = (series: string) => later.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1];
      expect(laterAt('rabbitmq_exporter_collector_success{collector="nodes"}')).toBe('1');
      expect(later).toMatch(/^rabbitmq_process_resident_memory_bytes\{node="[^"]+"\} \d/m);
      // The breakdown of its last fetch is still served, older than a poll.
      expect(later).toMatch(/^rabbitmq_node_memory_bytes\{node="[^"]+",area="[^"]+"\} \d/m);
      expect(Number(laterAt('rabbitmq_node_memory_breakdown_age_seconds'))).toBeGreaterThan(1);
      expect(exporter.logs()).toContain('memory_breakdown');

      proxy.setStall(undefined);
      await eventually(async () => ((await value(failed)) === undefined && (await value(partFailed)) === undefined ? true : undefined), 60_000, 'both reports gone once the proxy answers again');
    } finally {
      await exporter?.stop();
      await proxy.close();
    }
  });
});
