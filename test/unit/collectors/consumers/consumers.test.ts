import { describe, expect, it } from 'vitest';
import { consumersCollector, prefetchRange } from '../../../../src/collectors/consumers/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

type Rec = Record<string, unknown>;

/** GET /api/consumers/vh0 of the recorded 3.10.8 broker: 10 manual-ack consumers, prefetch 0, queues q0, q100, ..., q900. */
const vh0 = loadFixture<Rec[]>('rabbitmq-3.10.8/consumers-vh0.json');

let tag = 0;
function consumer(vhost: string, queue: string, fields: Rec = {}): Rec {
  tag++;
  return {
    ack_required: true,
    activity_status: 'up',
    consumer_tag: `ctag-${tag}`,
    channel_details: { name: `127.0.0.1:1000 -> 127.0.0.1:5672 (${tag})` },
    prefetch_count: 10,
    queue: { name: queue, vhost },
    ...fields,
  };
}

describe('consumers collector', () => {
  it('counts the recorded consumers of vh0 by ack mode, prefetch, activity and queue', async () => {
    const api = fakeApi({ '/api/consumers/vh0': vh0 });
    const r = await runCollector(consumersCollector, { api, options: { vhosts: ['vh0'] } });
    // Checked by hand on the fixture with python3: all 10 ack_required, prefetch_count 0, up.
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: 'vh0', ack_mode: 'manual' })).toBe(10);
    expect(r.family('rabbitmq_consumers_by_ack_mode')).toHaveLength(1);
    expect(r.value('rabbitmq_consumers_by_prefetch', { vhost: 'vh0', prefetch: 'unlimited' })).toBe(10);
    expect(r.family('rabbitmq_consumers_by_prefetch')).toHaveLength(1);
    expect(r.value('rabbitmq_consumers_by_activity', { vhost: 'vh0', activity_status: 'up' })).toBe(10);
    const perQueue = r.family('rabbitmq_queue_consumers_by_ack_mode');
    expect(perQueue).toHaveLength(10);
    expect(perQueue.map((s) => s.labels.queue).sort()).toEqual(['q0', 'q100', 'q200', 'q300', 'q400', 'q500', 'q600', 'q700', 'q800', 'q900']);
    expect(perQueue.every((s) => s.value === 1 && s.labels.ack_mode === 'manual' && s.labels.vhost === 'vh0')).toBe(true);
    expect(r.skipped).toBe(0);
  });

  it('asks /api/consumers for a few columns when no vhost is configured', async () => {
    const api = fakeApi({ '/api/consumers': vh0 });
    await runCollector(consumersCollector, { api });
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.path).toBe('/api/consumers');
    expect(api.calls[0]!.query.columns!.split(',').sort()).toEqual(['ack_required', 'activity_status', 'channel_details.name', 'consumer_tag', 'prefetch_count', 'queue']);
  });

  it('buckets manual-ack prefetch limits and leaves auto-ack consumers out of them', async () => {
    const api = fakeApi({
      '/api/consumers': [
        consumer('a', 'q1', { prefetch_count: 1 }),
        consumer('a', 'q1', { prefetch_count: 5 }),
        consumer('a', 'q1', { prefetch_count: 10 }),
        consumer('a', 'q2', { prefetch_count: 250 }),
        consumer('a', 'q2', { prefetch_count: 5000 }),
        consumer('a', 'q2', { prefetch_count: 0, ack_required: false }),
        consumer('b', 'q1', { prefetch_count: 100, activity_status: 'single_active' }),
        consumer('b', 'q1', { prefetch_count: 100, activity_status: 'waiting' }),
      ],
    });
    const r = await runCollector(consumersCollector, { api });
    const p = (vhost: string, prefetch: string) => r.value('rabbitmq_consumers_by_prefetch', { vhost, prefetch });
    expect(p('a', '1')).toBe(1);
    expect(p('a', '2-10')).toBe(2);
    expect(p('a', '101-1000')).toBe(1);
    expect(p('a', 'over_1000')).toBe(1);
    expect(p('a', 'unlimited')).toBeUndefined();
    expect(p('b', '11-100')).toBe(2);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: 'a', ack_mode: 'manual' })).toBe(5);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: 'a', ack_mode: 'auto' })).toBe(1);
    expect(r.value('rabbitmq_consumers_by_activity', { vhost: 'b', activity_status: 'single_active' })).toBe(1);
    expect(r.value('rabbitmq_consumers_by_activity', { vhost: 'b', activity_status: 'waiting' })).toBe(1);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: 'a', queue: 'q1', ack_mode: 'manual' })).toBe(3);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: 'a', queue: 'q2', ack_mode: 'manual' })).toBe(2);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: 'a', queue: 'q2', ack_mode: 'auto' })).toBe(1);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: 'b', queue: 'q1', ack_mode: 'manual' })).toBe(2);
  });

  it('prefetch ranges', () => {
    expect([0, 1, 2, 10, 11, 100, 101, 1000, 1001, '7'].map(prefetchRange)).toEqual([
      'unlimited', '1', '2-10', '2-10', '11-100', '11-100', '101-1000', '101-1000', 'over_1000', '2-10',
    ]);
    expect([null, undefined, 'many', -1, 2.5].map(prefetchRange)).toEqual([undefined, undefined, undefined, undefined, '2-10']);
  });

  it('skips a null or malformed prefetch_count (counted as skipped), never a 0; unknown ack mode is empty', async () => {
    const api = fakeApi({
      '/api/consumers': [
        consumer('/', 'q', { prefetch_count: 'lots' }),
        consumer('/', 'q', { prefetch_count: null }),
        consumer('/', 'q', { ack_required: null, activity_status: null }),
      ],
    });
    const r = await runCollector(consumersCollector, { api });
    expect(r.family('rabbitmq_consumers_by_prefetch')).toEqual([]);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: '/', ack_mode: 'manual' })).toBe(2);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: '/', ack_mode: '' })).toBe(1);
    expect(r.value('rabbitmq_consumers_by_activity', { vhost: '/', activity_status: 'up' })).toBe(2);
    expect(r.skipped).toBe(2);
  });

  it('counts a consumer listed twice once, and escapes odd names', async () => {
    const twice = consumer('v"\\\n', 'q "x"', {});
    const api = fakeApi({ '/api/consumers': [twice, twice] });
    const r = await runCollector(consumersCollector, { api });
    expect(r.text).toContain('rabbitmq_queue_consumers_by_ack_mode{vhost="v\\"\\\\\\n",queue="q \\"x\\"",ack_mode="manual"} 1\n');
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: 'v"\\\n', ack_mode: 'manual' })).toBe(1);
  });

  it('keeps stream protocol consumers apart although their channel name is empty (recorded on 3.10.8)', async () => {
    // As /api/consumers lists two stream subscriptions with id 0 on two connections.
    const stream = (n: number): Rec => ({
      ack_required: false, activity_status: 'up', channel_details: { name: '' }, consumer_tag: 'stream.subid-0', prefetch_count: 0, queue: { name: 's1', vhost: '/' },
      n,
    });
    const api = fakeApi({ '/api/consumers': [stream(1), stream(2)] });
    const r = await runCollector(consumersCollector, { api });
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: '/', ack_mode: 'auto' })).toBe(2);
    expect(r.value('rabbitmq_queue_consumers_by_ack_mode', { vhost: '/', queue: 's1', ack_mode: 'auto' })).toBe(2);
    expect(r.family('rabbitmq_consumers_by_prefetch')).toEqual([]);
  });

  it('leaves the per-queue series out above per_queue_limit, warning once; per_queue: false drops them', async () => {
    const api = fakeApi({ '/api/consumers': [consumer('/', 'q1'), consumer('/', 'q2'), consumer('/', 'q3')] });
    const memory = new Map<string, unknown>();
    const first = await runCollector(consumersCollector, { api, memory, options: { per_queue_limit: 2 } });
    const second = await runCollector(consumersCollector, { api, memory, options: { per_queue_limit: 2 } });
    expect(first.family('rabbitmq_queue_consumers_by_ack_mode')).toHaveLength(0);
    expect(first.value('rabbitmq_consumers_by_ack_mode', { vhost: '/', ack_mode: 'manual' })).toBe(3);
    expect(first.logs.filter((l) => l.level === 40)).toHaveLength(1);
    expect(second.logs).toHaveLength(0);
    const atLimit = await runCollector(consumersCollector, { api, options: { per_queue_limit: 3 } });
    expect(atLimit.family('rabbitmq_queue_consumers_by_ack_mode')).toHaveLength(3);
    const off = await runCollector(consumersCollector, { api, options: { per_queue: false } });
    expect(off.family('rabbitmq_queue_consumers_by_ack_mode')).toHaveLength(0);
  });

  it('serves nothing and requests nothing when statistics are disabled', async () => {
    const api = fakeApi({});
    const r = await runCollector(consumersCollector, { api, broker: { ...BROKER_3_10_8, statisticsDisabled: true } });
    expect(api.calls).toHaveLength(0);
    expect(r.text).toBe('');
    expect(r.logs).toHaveLength(1);
  });

  it('skips a configured vhost that does not exist', async () => {
    const api = fakeApi({ '/api/consumers/vh0': vh0, '/api/consumers/gone': NOT_FOUND, '/api/consumers/%2F': [consumer('/', 'root-q')] });
    const r = await runCollector(consumersCollector, { api, options: { vhosts: ['vh0', 'gone', '/'] } });
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: 'vh0', ack_mode: 'manual' })).toBe(10);
    expect(r.value('rabbitmq_consumers_by_ack_mode', { vhost: '/', ack_mode: 'manual' })).toBe(1);
    expect(r.logs.filter((l) => l.level === 40 && l.vhost === 'gone')).toHaveLength(1);
  });

  it('with an exclude pattern reads /api/consumers once and leaves the matching vhosts out', async () => {
    const api = fakeApi({ '/api/consumers': [...vh0, consumer('/', 'root-q')] });
    const r = await runCollector(consumersCollector, { api, options: { vhosts: { exclude: '^vh' } } });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/consumers']);
    expect(r.family('rabbitmq_consumers_by_ack_mode').map((s) => s.labels.vhost)).toEqual(['/']);
  });

  it('fails the poll on a non-array answer', async () => {
    const api = fakeApi({ '/api/consumers': { error: 'odd' } });
    await expect(runCollector(consumersCollector, { api })).rejects.toThrow('/api/consumers did not answer a JSON list (got an object)');
  });
});
