// The inventory collector against the private RabbitMQ node (test/broker/support).
import { afterAll, expect, it } from 'vitest';
import { inventoryCollector } from '../../src/collectors/inventory/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { describeWithBroker } from './support/with-broker.js';

describeWithBroker('inventory collector on a real broker', (broker) => {
  const client = clientFor(broker);
  const json = async <T>(args: string[]) => JSON.parse(await broker.ctl(['-q', ...args, '--formatter', 'json'])) as T;

  afterAll(async () => {
    await broker.ctl(['clear_policy', 'hf-inv']).catch(() => undefined);
    await broker.ctl(['clear_parameter', 'federation-upstream', 'hf-inv-up']).catch(() => undefined);
    await broker.ctl(['delete_user', 'hf-inv-user']).catch(() => undefined);
    await client.close();
  });

  it('counts what rabbitmqctl lists, without any parameter value', async () => {
    await broker.ctl(['add_user', 'hf-inv-user', 'pw']);
    await broker.ctl(['set_policy', 'hf-inv', '^hf-inv\\.', '{"max-length": 10}']);
    await broker.ctl(['set_operator_policy', 'hf-inv-op', '^hf-inv\\.', '{"max-length": 100}', '--apply-to', 'queues']);
    await broker.ctl(['set_parameter', 'federation-upstream', 'hf-inv-up', JSON.stringify({ uri: 'amqp://u:hf-inv-secret@127.0.0.1:1' })]);

    const users = await json<{ user: string }[]>(['list_users']);
    const policies = await json<unknown[]>(['list_policies', '-p', '/']);
    const operatorPolicies = await json<unknown[]>(['list_operator_policies', '-p', '/']);
    const parameters = await json<{ component: string }[]>(['list_parameters', '-p', '/']);
    const globals = await json<unknown[]>(['list_global_parameters']);
    const r = await runCollector(inventoryCollector, { api: client });

    expect(r.value('rabbitmq_users')).toBe(users.length);
    expect(r.value('rabbitmq_users_without_permissions')).toBeGreaterThanOrEqual(1); // hf-inv-user has none
    expect(r.value('rabbitmq_policies', { vhost: '/' })).toBe(policies.length);
    expect(operatorPolicies.length).toBeGreaterThanOrEqual(1);
    expect(r.value('rabbitmq_operator_policies', { vhost: '/' })).toBe(operatorPolicies.length);
    expect(r.value('rabbitmq_global_runtime_parameters')).toBe(globals.length);
    const byComponent = new Map<string, number>();
    for (const p of parameters) byComponent.set(p.component, (byComponent.get(p.component) ?? 0) + 1);
    expect(
      Object.fromEntries(r.family('rabbitmq_runtime_parameters').filter((s) => s.labels.vhost === '/').map((s) => [s.labels.component, s.value])),
    ).toEqual(Object.fromEntries(byComponent));
    expect(r.text).not.toContain('hf-inv-secret');
    expect(r.logs.filter((l) => l.level >= 40)).toEqual([]);
  });
});
