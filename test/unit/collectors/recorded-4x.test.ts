import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../src/broker/broker-info.js';
import { healthChecksCollector } from '../../../src/collectors/health-checks/collector.js';
import { queuesCollector } from '../../../src/collectors/queues/collector.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { fixtureBroker } from '../../support/fixture-broker.js';
import { runCollector } from '../../support/run-collector.js';

// Answers recorded from real RabbitMQ 4.0.5 and 4.3.6 nodes (test/fixtures/rabbitmq-4.*.x*/README.md):
// the exporter's values are the recorded numbers, for classic, quorum and stream queues alike.
type Queue = { name: string; vhost: string; type: string; messages?: number; messages_ready?: number; messages_unacknowledged?: number; consumers?: number; members?: string[]; online?: string[] };

const read = <T>(dir: string, file: string) => JSON.parse(readFileSync(`test/fixtures/${dir}/${file}`, 'utf8')) as T;

async function setup(dir: string) {
  const api = fixtureBroker(`test/fixtures/${dir}`);
  const broker = brokerInfoFromOverview(read<Record<string, unknown>>(dir, 'overview.json'));
  return { api, broker };
}

describe.each(['rabbitmq-4.0.x', 'rabbitmq-4.3.x'])('%s recorded with statistics on', (dir) => {
  it('queue counts of every type equal the recorded /api/queues', async () => {
    const { api, broker } = await setup(dir);
    expect(broker.variant).toBe('B');
    expect(broker.statisticsDisabled).toBe(false);
    const recorded = read<{ items: Queue[] }>(dir, 'queues-page1.json').items;
    expect(new Set(recorded.map((q) => q.type))).toEqual(new Set(['classic', 'quorum', 'stream']));
    const r = await runCollector(queuesCollector, { api, broker });
    for (const q of recorded) {
      const labels = { vhost: q.vhost, queue: q.name };
      expect(r.value('rabbitmq_queue_messages', labels), `${q.name} messages`).toBe(q.messages);
      expect(r.value('rabbitmq_queue_messages_ready', labels), `${q.name} ready`).toBe(q.messages_ready);
      expect(r.value('rabbitmq_queue_messages_unacked', labels), `${q.name} unacked`).toBe(q.messages_unacknowledged);
      expect(r.value('rabbitmq_queue_consumers', labels), `${q.name} consumers`).toBe(q.consumers);
      expect(r.value('rabbitmq_queue_members', labels), `${q.name} members`).toBe(q.members?.length);
      expect(r.value('rabbitmq_queue_members_online', labels), `${q.name} online`).toBe(q.online?.length);
    }
    // What was recorded: 20 + 3 + 5 + 5 + 0, one consumer.
    expect(r.family('rabbitmq_queue_messages').reduce((n, s) => n + s.value, 0)).toBe(33);
    expect(r.value('rabbitmq_queue_consumers', { vhost: '/', queue: 'fx.classic' })).toBe(1);
  });

  it('every collector polls without an error', async () => {
    const { api, broker } = await setup(dir);
    for (const collector of COLLECTORS) await expect(runCollector(collector, { api, broker }), collector.name).resolves.toBeDefined();
  });
});

describe.each(['rabbitmq-4.0.x-stats-disabled', 'rabbitmq-4.3.x-stats-disabled'])('%s recorded with statistics off', (dir) => {
  it('is seen as statistics disabled, and every collector polls without an error', async () => {
    const { api, broker } = await setup(dir);
    expect(broker.statisticsDisabled).toBe(true);
    for (const collector of COLLECTORS) await expect(runCollector(collector, { api, broker }), collector.name).resolves.toBeDefined();
  });

  it('queue counts come from the totals query and equal the recorded ones', async () => {
    const { api, broker } = await setup(dir);
    const recorded = read<{ items: Queue[] }>(dir, 'queues-disable-stats-page1.json').items;
    const r = await runCollector(queuesCollector, { api, broker });
    for (const q of recorded) expect(r.value('rabbitmq_queue_messages', { vhost: q.vhost, queue: q.name }), q.name).toBe(q.messages);
    expect(r.value('rabbitmq_queue_consumers', { vhost: '/', queue: 'fx.classic' })).toBeUndefined();
  });
});

describe('health checks each recorded version has', () => {
  it.each([
    ['rabbitmq-4.0.x', []],
    [
      'rabbitmq-4.3.x',
      ['quorum-queues-without-elected-leaders/all-vhosts', 'below-node-connection-limit', 'ready-to-serve-clients', 'is-in-service', 'metadata-store/initialized', 'reached-target-cluster-size'],
    ],
  ])('%s', async (dir, newer) => {
    const { api, broker } = await setup(dir);
    const r = await runCollector(healthChecksCollector, { api, broker });
    const checks = r.family('rabbitmq_health_check_up').map((s) => s.labels.check);
    expect(checks).toEqual(['alarms', 'local-alarms', 'virtual-hosts', 'node-is-quorum-critical', ...newer, 'certificate-expiration', 'port-listener', 'protocol-listener']);
    expect(r.family('rabbitmq_health_check_up').every((s) => s.value === 1)).toBe(true);
  });
});
