// The queue signals against a second private node with management statistics off: what counts
// give (length-limit fill and time to full, dead-letter targets from arguments and bindings) is
// served, what needs counters or bytes (estimated wait, without progress, stuck, bytes limit) is
// absent, not zero.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { eventually } from '../harness/eventually.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker, getBroker } from './support/with-broker.js';

describeWithBroker('queue signals on a broker with statistics disabled', () => {
  let broker: BrokerHandle;
  let client: ManagementClient;

  beforeAll(async () => {
    broker = await startBroker({
      version: getBroker()?.brokerVersion,
      nodeNamePrefix: 'rmqexp-sigoff',
      extraConfig: ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'],
    });
    client = clientFor(broker);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await broker?.stop();
  }, 60_000);

  it('serves the count-based signals and leaves the counter-based ones absent', async () => {
    const api = managementApi(broker);
    await api('PUT', '/api/exchanges/%2F/off-dlx', { type: 'fanout', durable: true });
    await api('PUT', '/api/queues/%2F/off-dead', { durable: true });
    await api('POST', '/api/bindings/%2F/e/off-dlx/q/off-dead', { routing_key: '' });
    await api('PUT', '/api/queues/%2F/off-limit', { durable: true, arguments: { 'x-max-length': 20, 'x-max-length-bytes': 100_000, 'x-dead-letter-exchange': 'off-dlx' } });
    const publish = async (n: number) => {
      for (let i = 0; i < n; i++) await api('POST', '/api/exchanges/%2F/amq.default/publish', { properties: {}, routing_key: 'off-limit', payload: 'x', payload_encoding: 'string' });
    };
    const ctlReady = async () => {
      const row = (await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages_ready'])).split('\n').map((l) => l.trim().split(/\s+/)).find((cols) => cols[0] === 'off-limit');
      return Number(row?.[1]);
    };
    const memory = new Map<string, unknown>();
    const options = { per_vhost: false, signals: true, signals_window: 50 };
    const labels = { vhost: '/', queue: 'off-limit' };
    const pollUntil = (ready: number) =>
      eventually(async () => {
        const r = await runCollector(queuesCollector, { api: client, memory, options });
        expect(r.value('rabbitmq_queue_messages_ready', labels)).toBe(ready);
        return r;
      }, 30_000, `the counts-only list showing ${ready} ready`);
    await publish(5);
    const first = await pollUntil(5);
    expect(first.value('rabbitmq_queue_statistics_degraded')).toBe(1);
    await publish(5);
    const second = await pollUntil(10);
    expect(await ctlReady()).toBe(10);
    expect(second.value('rabbitmq_queue_length_limit_ratio', labels)).toBe(10 / 20);
    const toFull = second.value('rabbitmq_queue_length_limit_time_to_full_seconds', labels)!;
    expect(toFull).toBeGreaterThan(0);
    expect(toFull).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(second.family('rabbitmq_queue_dead_letter_target_info').map((s) => s.labels)).toEqual([{ vhost: '/', queue: 'off-dead', dead_letter_exchange: 'off-dlx' }]);
    for (const name of ['rabbitmq_queue_estimated_wait_seconds', 'rabbitmq_queue_without_progress_seconds', 'rabbitmq_queue_unacked_stalled_seconds', 'rabbitmq_queue_consumers_stuck', 'rabbitmq_vhost_queues_consumers_stuck', 'rabbitmq_queue_bytes_limit_ratio', 'rabbitmq_queue_bytes_limit_time_to_full_seconds']) {
      expect(second.family(name), name).toEqual([]);
    }
  });
});
