// Roll-ups by family (collectors.queues.families) against the private RabbitMQ node: queues of
// two families and one in none, with messages published and consumed in different amounts; each
// family's counts checked against rabbitmqctl list_queues summed by family, its publish counter
// against the API's, and kept when one of its queues is deleted. With every queue rolled up
// (`unmatched` set, per_queue off) the list asks only for the roll-ups' columns: the same checks.
import { afterAll, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import type { RunResult } from '../support/run-collector.js';
import { queueReadings } from './support/queue-readings.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';

type Json = Record<string, unknown>;
/** Each queue with the messages published to it and the prefetch of a consumer that never acks (0: none). */
const QUEUES: Record<string, { publish: number; prefetch: number }> = {
  'fam-orders.1': { publish: 3, prefetch: 2 },
  'fam-orders.2': { publish: 5, prefetch: 0 },
  'fam-orders.3': { publish: 0, prefetch: 0 },
  'fam-billing-a': { publish: 7, prefetch: 3 },
  'fam-billing-b': { publish: 2, prefetch: 0 },
  'fam-lone': { publish: 4, prefetch: 1 },
};
const FAMILIES = { rules: [{ name: 'orders', match: '^fam-orders\\.' }, { name: 'billing', match: '^fam-billing-', per_queue: false }] };
const familyOf = (name: string) => (name.startsWith('fam-orders.') ? 'orders' : name.startsWith('fam-billing-') ? 'billing' : undefined);
/** Every queue rolled up: the same rules with per_queue off, and the other queues of the vhost in family `rest`. */
const ROLLED_UP = { rules: FAMILIES.rules.map((rule) => ({ ...rule, per_queue: false })), per_queue: false, unmatched: 'rest' };
const rolledUpFamilyOf = (name: string) => familyOf(name) ?? 'rest';
const FIELDS = ['messages', 'messages_ready', 'messages_unacknowledged', 'consumers'] as const;
const SERIES: Record<(typeof FIELDS)[number], string> = {
  messages: 'rabbitmq_queue_family_messages',
  messages_ready: 'rabbitmq_queue_family_messages_ready',
  messages_unacknowledged: 'rabbitmq_queue_family_messages_unacked',
  consumers: 'rabbitmq_queue_family_consumers',
};

describeWithBroker('queue families on a real broker', (broker: BrokerHandle) => {
  const { request, ok, connect, collect } = queueReadings(broker);
  const queuePath = (name: string) => `/api/queues/%2F/${encodeURIComponent(name)}`;
  const options = { per_vhost: false, stats_every: 1, families: FAMILIES };
  afterAll(async () => {
    for (const name of Object.keys(QUEUES)) await request('DELETE', queuePath(name)).catch(() => undefined);
  });

  /** rabbitmqctl list_queues of vhost /: per family, its queue count and the sums of FIELDS; and every queue's depth. */
  const ctlByFamily = async (familyOfName: (name: string) => string | undefined = familyOf) => {
    const out = await broker.ctl(['-q', '--no-table-headers', 'list_queues', '-p', '/', 'name', ...FIELDS]);
    const families = new Map<string, Record<string, number>>();
    const depths: number[] = [];
    for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
      const [name, ...values] = line.split('\t');
      const numbers = values.map(Number);
      depths.push(numbers[0]!);
      const family = familyOfName(name!);
      if (!family) continue;
      const sums = families.get(family) ?? { queues: 0, ...Object.fromEntries(FIELDS.map((f) => [f, 0])) };
      sums.queues! += 1;
      for (const [i, field] of FIELDS.entries()) sums[field]! += numbers[i]!;
      families.set(family, sums);
    }
    return { families, depths };
  };
  const served = (r: RunResult, family: string) => ({
    queues: r.value('rabbitmq_queue_family_queues', { vhost: '/', family }),
    ...Object.fromEntries(FIELDS.map((field) => [field, r.value(SERIES[field], { vhost: '/', family })])),
  });
  const published = (r: RunResult, family: string) => r.value('rabbitmq_queue_family_messages_published_total', { vhost: '/', family });

  it('sums each family\'s counts as rabbitmqctl lists them, counts queues by depth, and keeps a deleted queue\'s publishes', async () => {
    for (const name of Object.keys(QUEUES)) {
      await request('DELETE', queuePath(name));
      await ok('PUT', queuePath(name), { durable: false, auto_delete: false });
    }
    const conn = await connect();
    try {
      const pub = await conn.createConfirmChannel();
      for (const [name, { publish }] of Object.entries(QUEUES)) for (let i = 0; i < publish; i++) pub.sendToQueue(name, Buffer.from('x'));
      await pub.waitForConfirms();
      for (const [name, { prefetch }] of Object.entries(QUEUES)) {
        if (prefetch === 0) continue;
        const ch = await conn.createChannel();
        await ch.prefetch(prefetch);
        await ch.consume(name, () => undefined, { noAck: false }); // takes `prefetch`, acks none
      }
      // The statistics list counts the publishes on the queues' statistics tick: wait for them.
      await eventually(async () => {
        const list = await ok<Json[]>('GET', '/api/queues/%2F?columns=name,message_stats.publish,messages_unacknowledged');
        const counted = Object.fromEntries(list.filter((q) => (q.name as string) in QUEUES).map((q) => [q.name, [((q.message_stats as Json | undefined)?.publish as number | undefined) ?? 0, q.messages_unacknowledged]]));
        expect(counted).toEqual(Object.fromEntries(Object.entries(QUEUES).map(([name, q]) => [name, [q.publish, Math.min(q.prefetch, q.publish)]])));
        return true;
      }, 30_000, 'the API counting every publish and delivery');
      const memory = new Map<string, unknown>();
      let first: RunResult | undefined;
      await eventually(async () => {
        const ctl = await ctlByFamily();
        first = await collect(options, memory);
        for (const family of ['orders', 'billing']) expect({ family, ...served(first, family) }).toEqual({ family, ...ctl.families.get(family) });
        // Every queue of the vhost in one depth bucket, as rabbitmqctl counts their messages.
        const bucket = (depth: string) => first!.value('rabbitmq_vhost_queues_by_depth', { vhost: '/', depth }) ?? 0;
        expect([bucket('0'), bucket('1-10')]).toEqual([ctl.depths.filter((n) => n === 0).length, ctl.depths.filter((n) => n >= 1 && n <= 10).length]);
        return true;
      }, 30_000, 'the family roll-ups equal to rabbitmqctl list_queues summed by family');
      expect(published(first!, 'orders')).toBe(8);
      expect(published(first!, 'billing')).toBe(9);
      expect(first!.family('rabbitmq_queue_family_queues').map((s) => s.labels.family).sort()).toEqual(['billing', 'orders']);
      // billing has per_queue off: its queues' per-queue series are not served; the others' are.
      expect(first!.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fam-billing-a' })).toBeUndefined();
      expect(first!.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fam-orders.2' })).toBe(5);
      expect(first!.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fam-lone' })).toBe(4); // 3 ready, 1 unacked

      // Every queue rolled up: the list asks for the roll-ups' columns only, and they sum the same.
      await eventually(async () => {
        const ctl = await ctlByFamily(rolledUpFamilyOf);
        const narrow = await collect({ ...options, families: ROLLED_UP }, new Map());
        const columns = String(narrow.requests.find((call) => call.path.startsWith('/api/queues'))?.query?.columns).split(',');
        expect(columns).toContain('message_stats.publish');
        expect(columns).not.toContain('arguments');
        for (const family of ['orders', 'billing', 'rest']) expect({ family, ...served(narrow, family) }).toEqual({ family, ...ctl.families.get(family) });
        expect(published(narrow, 'orders')).toBe(8);
        expect(published(narrow, 'billing')).toBe(9);
        expect(narrow.family('rabbitmq_queue_messages')).toEqual([]);
        return true;
      }, 30_000, 'the roll-ups of the narrowed list equal to rabbitmqctl list_queues summed by family');

      // fam-orders.2 (5 publishes) goes: the family's count falls, its publish counter does not.
      await ok('DELETE', queuePath('fam-orders.2'));
      const second = await collect(options, memory);
      const ctl = await ctlByFamily();
      expect(served(second, 'orders')).toEqual(ctl.families.get('orders'));
      expect(second.value('rabbitmq_queue_family_queues', { vhost: '/', family: 'orders' })).toBe(2);
      expect(published(second, 'orders')).toBe(8);
    } finally {
      await conn.close();
    }
  });
});
