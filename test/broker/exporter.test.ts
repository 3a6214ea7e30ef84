import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';

const INTERVAL_S = 1;

describeWithBroker('the built exporter against a real RabbitMQ', (broker) => {
  let exporter: ExporterProcess;
  const api = managementApi(broker);

  beforeAll(async () => {
    exporter = await startExporter({
      configYaml: `
poll:
  interval: ${INTERVAL_S}s
  jitter: 0
  backoff_max: 2s
target:
  url: ${broker.managementUrl}
  username: ${broker.username}
  password_file: /dev/null
collectors:
  queues:
    interval: 1s
`,
      // The password comes from the environment; the file above is overridden by it.
      env: { RABBITMQ_PASSWORD: broker.password },
      // At debug the configuration in force is logged too (password redacted): the secret checks below see it.
      args: ['--log.level', 'debug'],
    });
  });

  afterAll(async () => {
    await exporter?.stop();
  });

  it('serves up=1 and the node values the API reports', async () => {
    expect(await eventually(() => exporter.value('rabbitmq_up').then((v) => (v === 1 ? v : undefined)), 15_000, 'rabbitmq_up 1')).toBe(1);
    type NodeRecord = { name: string; mem_limit: number; fd_total: number; proc_total: number; disk_free_limit: number };
    // Just after start the node's record can lack its statistics for a moment: wait for them.
    const node = await eventually(
      async () => (await api<NodeRecord[]>('GET', '/api/nodes')).find((n) => n.mem_limit !== undefined && n.fd_total !== undefined),
      15_000,
      '/api/nodes to carry the node statistics',
    );
    const labels = `{node="${node!.name}"}`;
    // The overview and nodes polls publish separately: wait for the snapshot holding both.
    const values = await eventually(
      async () => {
        const parsed = samples((await exporter.metrics()).text);
        return parsed.has(`rabbitmq_resident_memory_limit_bytes${labels}`) ? parsed : undefined;
      },
      15_000,
      'the node series',
    );
    // Static per run: equal exactly.
    expect(values.get(`rabbitmq_resident_memory_limit_bytes${labels}`)).toBe(node!.mem_limit);
    expect(values.get(`rabbitmq_process_max_fds${labels}`)).toBe(node!.fd_total);
    expect(values.get(`rabbitmq_erlang_processes_limit${labels}`)).toBe(node!.proc_total);
    expect(values.get(`rabbitmq_disk_space_available_limit_bytes${labels}`)).toBe(node!.disk_free_limit);
    // Memory moves with every statistics sample: read both until one sample is seen by both.
    const matched = await eventually(
      async () => {
        const [fresh] = await api<{ mem_used: number }[]>('GET', '/api/nodes?columns=mem_used');
        const served = await exporter.value(`rabbitmq_process_resident_memory_bytes${labels}`);
        return served === fresh!.mem_used ? served : undefined;
      },
      30_000,
      'served node memory to equal /api/nodes mem_used',
    );
    expect(matched).toBeGreaterThan(0);
    const overview = await api<{ cluster_name: string; rabbitmq_version: string }>('GET', '/api/overview');
    expect(values.get(`rabbitmq_identity_info{rabbitmq_cluster="${overview.cluster_name}"}`)).toBe(1);
  });

  it('follows a queue total that changes', async () => {
    await api('PUT', '/api/queues/%2F/e2e-total', { durable: false });
    try {
      for (let i = 0; i < 7; i++) {
        await api('POST', '/api/exchanges/%2F/amq.default/publish', { properties: {}, routing_key: 'e2e-total', payload: `m${i}`, payload_encoding: 'string' });
      }
      const listed = await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages']);
      expect(listed).toMatch(/^e2e-total\s+7$/m);
      await eventually(
        () => exporter.value('rabbitmq_queue_messages{vhost="/",queue="e2e-total"}').then((v) => (v === 7 ? v : undefined)),
        20_000,
        'rabbitmq_queue_messages of e2e-total to be 7',
      );
      // The cluster-wide total equals what /api/overview says at the same moment.
      await eventually(
        async () => {
          const overview = await api<{ queue_totals?: { messages?: number } }>('GET', '/api/overview');
          const served = await exporter.value('rabbitmq_messages');
          return served !== undefined && served === overview.queue_totals?.messages && served >= 7 ? served : undefined;
        },
        20_000,
        'rabbitmq_messages to equal /api/overview queue_totals.messages',
      );
    } finally {
      await api('DELETE', '/api/queues/%2F/e2e-total');
    }
  });

  it('serves an exposition promtool accepts, in both formats', async () => {
    const { status, text } = await exporter.metrics();
    expect(status).toBe(200);
    const lint = await checkMetricsWithPromtool(text);
    expect(lint.output).toBe('');
    expect(lint.ok).toBe(true);
    const om = await fetch(`${exporter.url}/metrics`, { headers: { accept: 'application/openmetrics-text;version=1.0.0' } });
    expect(om.headers.get('content-type')).toContain('application/openmetrics-text');
    expect((await om.text()).endsWith('# EOF\n')).toBe(true);
  });

  it('reports rabbitmq_up 0 within one interval of the broker stopping, keeps serving, and recovers', async () => {
    await broker.stopApp();
    try {
      const stoppedAt = Date.now();
      await eventually(() => exporter.value('rabbitmq_up').then((v) => (v === 0 ? v : undefined)), 10_000, 'rabbitmq_up 0');
      // One interval plus the client's connect failure and one scrape: generous for a shared machine.
      expect(Date.now() - stoppedAt).toBeLessThan(INTERVAL_S * 1000 + 4000);
      const { status, text } = await exporter.metrics();
      expect(status).toBe(200);
      expect(text).toContain('rabbitmq_exporter_collector_success{collector="overview"} 0');
      expect(exporter.logs()).toMatch(/"msg":"poll failed"/);
      // No secret in the logs, whatever failed.
      expect(exporter.logs()).toContain('"password":"<redacted>"');
      expect(exporter.logs()).not.toMatch(/"password":"(?!<redacted>)/);
      expect(exporter.logs()).not.toContain(Buffer.from(`${broker.username}:${broker.password}`).toString('base64'));
    } finally {
      await broker.startApp();
    }
    await eventually(() => exporter.value('rabbitmq_up').then((v) => (v === 1 ? v : undefined)), 30_000, 'rabbitmq_up back to 1');
    // The other collectors come back too, within their backoff (backoff_max 2s here).
    await eventually(
      () => exporter.value('rabbitmq_exporter_collector_success{collector="nodes"}').then((v) => (v === 1 ? v : undefined)),
      15_000,
      'the nodes collector to succeed again',
    );
  });
});
