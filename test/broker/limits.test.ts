// The limits collector against the private RabbitMQ node (test/broker/support).
import { afterAll, afterEach, expect, it } from 'vitest';
import { limitsCollector } from '../../src/collectors/limits/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { describeWithBroker } from './support/with-broker.js';

describeWithBroker('limits collector on a real broker', (broker) => {
  const client = clientFor(broker);
  afterEach(async () => {
    // Each fails when there is nothing to clear.
    await broker.ctl(['clear_vhost_limits', '-p', '/']).catch(() => undefined);
    await broker.ctl(['clear_user_limits', 'guest', 'all']).catch(() => undefined);
  });
  afterAll(() => client.close());

  it('serves a vhost limit set with rabbitmqctl as set, and leaves out -1', async () => {
    await broker.ctl(['set_vhost_limits', '-p', '/', '{"max-connections": 100, "max-queues": -1}']);
    const r = await runCollector(limitsCollector, { api: client });
    expect(r.family('rabbitmq_vhost_limit').map((s) => [s.labels, s.value])).toEqual([[{ vhost: '/', limit: 'max-connections' }, 100]]);
  });

  it('serves a user limit set with rabbitmqctl (3.10 has user limits)', async () => {
    await broker.ctl(['set_user_limits', 'guest', '{"max-connections": 10, "max-channels": 20}']);
    const r = await runCollector(limitsCollector, { api: client });
    expect(r.family('rabbitmq_user_limit').map((s) => [s.labels, s.value])).toEqual([
      [{ user: 'guest', limit: 'max-channels' }, 20],
      [{ user: 'guest', limit: 'max-connections' }, 10],
    ]);
  });

  it('serves nothing once the limits are cleared', async () => {
    await broker.ctl(['set_vhost_limits', '-p', '/', '{"max-queues": 5}']);
    await broker.ctl(['clear_vhost_limits', '-p', '/']);
    const r = await runCollector(limitsCollector, { api: client });
    expect(r.samples.size).toBe(0);
  });
});
