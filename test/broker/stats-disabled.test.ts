import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { describeWithBroker, getBroker } from './support/with-broker.js';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { afterFirstPolls, startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { managementApi } from './support/management-api.js';

// A second private node with management statistics off, the direction of RabbitMQ 4: the
// exporter must keep working on what the broker still gives, and say it is degraded.
describeWithBroker('the exporter against a broker with statistics disabled', () => {
  let broker: BrokerHandle;
  let exporter: ExporterProcess;

  beforeAll(async () => {
    broker = await startBroker({
      version: getBroker()?.brokerVersion,
      nodeNamePrefix: 'rmqexp-nostats',
      extraConfig: ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'],
    });
    const api = managementApi({ managementUrl: broker.managementUrl, username: 'guest', password: 'guest' });
    await api('PUT', '/api/queues/%2F/nostats-q', { durable: true });
    for (let i = 0; i < 3; i++) {
      await api('POST', '/api/exchanges/%2F/amq.default/publish', { properties: {}, routing_key: 'nostats-q', payload: 'x', payload_encoding: 'string' });
    }
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: guest\n  password: guest\n`,
    });
  }, 120_000);

  afterAll(async () => {
    await exporter?.stop();
    await broker?.stop();
  }, 60_000);

  it('serves message counts from the totals query, marks itself degraded, and lints clean', async () => {
    const messages = await eventually(
      () => exporter.value('rabbitmq_queue_messages{vhost="/",queue="nostats-q"}').then((v) => (v === 3 ? v : undefined)),
      30_000,
      'rabbitmq_queue_messages of nostats-q to be 3',
    );
    expect(messages).toBe(3);
    const listed = await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages']);
    expect(listed).toMatch(/^nostats-q\s+3$/m);

    // The node and overview series come from other collectors than the queue count waited for.
    const text = await afterFirstPolls(exporter, 30_000);
    const values = samples(text);
    expect(values.get('rabbitmq_up')).toBe(1);
    expect(values.get('rabbitmq_management_statistics_enabled')).toBe(0);
    expect(values.get('rabbitmq_queue_statistics_degraded')).toBe(1);
    expect(values.get('rabbitmq_queue_query_info{mode="totals",per_vhost="false",paged="false"}')).toBe(1);
    // What statistics would give is absent, not zero.
    expect(text).not.toMatch(/^rabbitmq_queue_consumers\{/m);
    expect(text).not.toMatch(/^rabbitmq_global_messages_received_total /m);
    expect(text).not.toMatch(/^rabbitmq_process_resident_memory_bytes\{/m);
    expect(values.get(`rabbitmq_node_running{node="${broker.nodeName}"}`)).toBe(1);
    // The count depends on what the exporter itself does to the broker: with the aliveness test
    // on (it was on by default until issue 8) it declared a second queue, aliveness-test, before or
    // after the overview poll this reads, depending on the machine's speed. By default it declares
    // nothing, so the broker has exactly the one queue this test made, as rabbitmqctl says.
    const names = (await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name'])).split('\n').map((l) => l.trim()).filter(Boolean);
    expect(names).toEqual(['nostats-q']);
    expect(values.get('rabbitmq_queues')).toBe(names.length);
    // Every collector still polls successfully: absent statistics are not failures.
    const failing = [...values.entries()].filter(([k, v]) => k.startsWith('rabbitmq_exporter_collector_success') && v !== 1);
    expect(failing).toEqual([]);
    expect(exporter.logs()).toMatch(/statistics disabled/);
    const lint = await checkMetricsWithPromtool(text);
    expect(lint.output).toBe('');
  });
});
