// The queue collector's length limits (option limits) against the private RabbitMQ node: the
// smaller of a queue's argument and its policy's limit, as the API reports both; and the same
// numbers under kbudde's names.
import { afterAll, expect, it } from 'vitest';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { managementRequest } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';
import { kbuddeNames } from '../../src/profiles/kbudde/names.js';

type Json = Record<string, unknown>;
const POLICY = 'ql-policy';
const QUEUES: { name: string; arguments: Json }[] = [
  { name: 'ql-arg', arguments: { 'x-max-length': 100, 'x-max-length-bytes': 5000 } },
  { name: 'ql-both', arguments: { 'x-max-length': 100 } },
  { name: 'ql-none', arguments: {} },
];

describeWithBroker('queue length limits on a real broker', (broker) => {
  const client = clientFor(broker);
  const request = managementRequest(broker);
  afterAll(async () => {
    await request('DELETE', `/api/policies/%2F/${POLICY}`).catch(() => undefined);
    for (const q of QUEUES) await request('DELETE', `/api/queues/%2F/${q.name}`).catch(() => undefined);
    await client.close();
  });

  it('serves the smaller of the argument and the effective policy\'s limit, and nothing for a queue without one', async () => {
    for (const q of QUEUES) expect((await request('PUT', `/api/queues/%2F/${q.name}`, { durable: false, auto_delete: false, arguments: q.arguments })).status).toBeLessThan(300);
    const policy = { pattern: '^ql-both$', 'apply-to': 'queues', definition: { 'max-length': 40, 'max-length-bytes': 1_000_000 } };
    expect((await request('PUT', `/api/policies/%2F/${POLICY}`, policy)).status).toBeLessThan(300);
    // A policy reaches its queues asynchronously: wait until the API shows it applied.
    const records = await eventually(
      async () => {
        const list = await client.getJson<Json[]>('/api/queues/%2F', { columns: 'name,policy,durable,node,arguments,effective_policy_definition' });
        const both = list.find((q) => q.name === 'ql-both');
        return both?.policy === POLICY ? new Map(list.map((q) => [q.name as string, q])) : undefined;
      },
      30_000,
      'the policy applied to ql-both',
    );
    expect(records.get('ql-both')!.effective_policy_definition).toMatchObject({ 'max-length': 40 });

    // Two polls: one with statistics, then one for counts only (whose list may lack the policy's definition).
    const memory = new Map<string, unknown>();
    for (const poll of ['statistics', 'counts only']) {
      const native = await runCollector(queuesCollector, { api: client, memory, options: { limits: true, stats_every: 2 } });
      expect(native.requests.some((r) => r.query.disable_stats === 'true'), poll).toBe(poll === 'counts only');
      const messages = (queue: string) => native.value('rabbitmq_queue_max_length_messages', { vhost: '/', queue });
      const bytes = (queue: string) => native.value('rabbitmq_queue_max_length_bytes', { vhost: '/', queue });
      expect([messages('ql-arg'), bytes('ql-arg')], poll).toEqual([100, 5000]);
      expect([messages('ql-both'), bytes('ql-both')], poll).toEqual([40, 1_000_000]);
      expect([messages('ql-none'), bytes('ql-none')], poll).toEqual([undefined, undefined]);
    }
    // Off by default: the native list does not grow.
    const byDefault = await runCollector(queuesCollector, { api: client });
    expect(byDefault.family('rabbitmq_queue_max_length_messages')).toEqual([]);

    const profile = { names: kbuddeNames, clusterName: 'ql-cluster', node: broker.nodeName } as const;
    const kbudde = await runCollector(queuesCollector, { api: client, options: { limits: true }, profile });
    const labels = (queue: string) => {
      const r = records.get(queue)!;
      return { cluster: 'ql-cluster', vhost: '/', queue, durable: String(r.durable), policy: typeof r.policy === 'string' ? r.policy : '', self: r.node === broker.nodeName ? '1' : '0' };
    };
    expect(kbudde.value('rabbitmq_queue_max_length', labels('ql-both'))).toBe(40);
    expect(kbudde.value('rabbitmq_queue_max_length_bytes', labels('ql-both'))).toBe(1_000_000);
    expect(kbudde.value('rabbitmq_queue_max_length', labels('ql-arg'))).toBe(100);
    expect(kbudde.value('rabbitmq_queue_max_length_bytes', labels('ql-arg'))).toBe(5000);
    expect(kbudde.family('rabbitmq_queue_max_length').some((s) => s.labels.queue === 'ql-none')).toBe(false);
  });
});
