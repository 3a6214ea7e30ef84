// The shovels collector against the private RabbitMQ node (test/broker/support; shovel plugins enabled).
import { afterAll, expect, it } from 'vitest';
import { shovelsCollector } from '../../src/collectors/shovels/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { describeWithBroker } from './support/with-broker.js';
import { kbuddeNames } from '../../src/profiles/kbudde/names.js';

describeWithBroker('shovels collector on a real broker', (broker) => {
  const client = clientFor(broker);
  afterAll(async () => {
    await broker.ctl(['clear_parameter', 'shovel', 'hf-shovel']).catch(() => undefined);
    for (const q of ['hf-shovel-src', 'hf-shovel-dst']) await broker.ctl(['delete_queue', q]).catch(() => undefined);
    await client.close();
  });

  it('serves a dynamic shovel between two local queues as running', async () => {
    const definition = {
      'src-protocol': 'amqp091',
      'src-uri': 'amqp://',
      'src-queue': 'hf-shovel-src',
      'dest-protocol': 'amqp091',
      'dest-uri': 'amqp://',
      'dest-queue': 'hf-shovel-dst',
    };
    await broker.ctl(['set_parameter', 'shovel', 'hf-shovel', JSON.stringify(definition)]);
    const id = { vhost: '/', shovel: 'hf-shovel' };
    const r = await eventually(
      async () => {
        const run = await runCollector(shovelsCollector, { api: client });
        return run.value('rabbitmq_shovel_up', id) === 1 ? run : undefined;
      },
      30_000,
      'rabbitmq_shovel_up 1',
    );
    expect(r.value('rabbitmq_shovel_state', { ...id, state: 'running' })).toBe(1);
    expect(r.value('rabbitmq_shovel_state', { ...id, state: 'starting' })).toBe(0);
    expect(r.value('rabbitmq_shovel_info', { ...id, type: 'dynamic', node: broker.nodeName, src_protocol: 'amqp091', dest_protocol: 'amqp091' })).toBe(1);
    expect(r.value('rabbitmq_shovel_dynamic', { status: 'running' })).toBeGreaterThanOrEqual(1);

    // kbudde's profile: rabbitmq_shovel_state, value 1, only the current state, as the API reports it.
    const profile = { names: kbuddeNames, clusterName: 'hf-cluster', node: broker.nodeName } as const;
    const k = await runCollector(shovelsCollector, { api: client, profile });
    const [listed] = await client.getJson<{ state: string; node: string; type: string }[]>('/api/shovels/%2F');
    expect(listed).toMatchObject({ state: 'running', node: broker.nodeName, type: 'dynamic' });
    expect(k.family('rabbitmq_shovel_state').map((s) => [s.labels, s.value])).toEqual([
      [{ cluster: 'hf-cluster', vhost: '/', shovel: 'hf-shovel', type: 'dynamic', self: '1', state: 'running' }, 1],
    ]);
    expect(k.text).not.toMatch(/rabbitmq_shovel_(up|info|dynamic)/);

    await broker.ctl(['clear_parameter', 'shovel', 'hf-shovel']);
    await eventually(
      async () => {
        const run = await runCollector(shovelsCollector, { api: client });
        return run.value('rabbitmq_shovel_up', id) === undefined ? true : undefined;
      },
      30_000,
      'the shovel gone',
    );
  });
});
