import { describe, expect, it } from 'vitest';
import { channelsCollector } from '../../../../src/collectors/channels/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

type Rec = Record<string, unknown>;

/** GET /api/channels?page=1&page_size=20 of the recorded 3.10.8 broker: 20 of its 200 channels, all in vh0. */
const page1 = loadFixture<{ items: Rec[]; page_count: number }>('rabbitmq-3.10.8/channels-page1.json');
const whole = { ...page1, page_count: 1 };
const VH0 = { vhost: 'vh0' };

function channel(fields: Rec): Rec {
  return { vhost: '/', user: 'guest', state: 'running', ...fields };
}

describe('channels collector, aggregated (default)', () => {
  it('counts and sums the recorded channels per vhost', async () => {
    const api = fakeApi({ '/api/channels': whole });
    const r = await runCollector(channelsCollector, { api });
    // Checked by hand on the fixture with python3: 20 channels in vh0, all running; 10 publish
    // (publish 3425 each), 10 consume (31 unacked in all).
    expect(r.value('rabbitmq_channels_by_state', { vhost: 'vh0', state: 'running' })).toBe(20);
    expect(r.family('rabbitmq_channels_by_state')).toHaveLength(1);
    expect(r.value('rabbitmq_channels_messages_unacked', VH0)).toBe(31);
    expect(r.value('rabbitmq_channels_messages_unconfirmed', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_messages_uncommitted', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_acks_uncommitted', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_prefetch', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_messages_published', VH0)).toBe(34250);
    expect(r.value('rabbitmq_channels_messages_published_per_second', VH0)).toBe(500);
    expect(r.value('rabbitmq_channels_messages_delivered_ack', VH0)).toBe(34250);
    expect(r.value('rabbitmq_channels_messages_delivered_ack_per_second', VH0)).toBe(500);
    expect(r.value('rabbitmq_channels_messages_acked', VH0)).toBe(34250);
    expect(r.value('rabbitmq_channels_messages_delivered', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_messages_confirmed', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_get_empty', VH0)).toBe(0);
    expect(r.value('rabbitmq_channels_messages_redelivered', VH0)).toBe(0);
    expect(r.skipped).toBe(0);
    // Aggregated sums are gauges; per-channel series only on request.
    expect(r.text).toContain('# TYPE rabbitmq_channels_messages_published gauge\n');
    expect(r.parsed.filter((s) => s.name.startsWith('rabbitmq_channel_'))).toEqual([]);
  });

  it('asks for the needed columns, with nested message_stats fields', async () => {
    const api = fakeApi({ '/api/channels': whole });
    await runCollector(channelsCollector, { api });
    const columns = api.calls[0]!.query.columns!.split(',');
    expect(columns).toEqual(expect.arrayContaining(['name', 'vhost', 'state', 'messages_unacknowledged', 'prefetch_count', 'message_stats.publish', 'message_stats.publish_details']));
    expect(columns).not.toContain('user');
  });

  it('copes with message_stats absent, null or [] (what columns= answers for a channel without stats)', async () => {
    const api = fakeApi({
      '/api/channels': [
        channel({ name: 'a', message_stats: [], messages_unacknowledged: 2 }),
        channel({ name: 'b', message_stats: null, messages_unacknowledged: null }),
        channel({ name: 'c', messages_unacknowledged: '3' }),
        channel({ name: 'd', vhost: 'idle' }),
      ],
    });
    const r = await runCollector(channelsCollector, { api });
    expect(r.value('rabbitmq_channels_by_state', { vhost: '/', state: 'running' })).toBe(3);
    expect(r.value('rabbitmq_channels_by_state', { vhost: 'idle', state: 'running' })).toBe(1);
    expect(r.value('rabbitmq_channels_messages_unacked', { vhost: '/' })).toBe(5);
    // Nothing known for vhost idle, and no message_stats anywhere: no samples, not zeros.
    expect(r.value('rabbitmq_channels_messages_unacked', { vhost: 'idle' })).toBeUndefined();
    expect(r.family('rabbitmq_channels_messages_published')).toHaveLength(0);
    expect(r.family('rabbitmq_channels_messages_published_per_second')).toHaveLength(0);
    // The null messages_unacknowledged; absent fields and fields under a null message_stats are not counted.
    expect(r.skipped).toBe(1);
  });

  it('counts present non-numeric values as skipped', async () => {
    const api = fakeApi({ '/api/channels': [channel({ name: 'a', prefetch_count: 'many', message_stats: { publish: 'x', publish_details: { rate: 2 } } })] });
    const r = await runCollector(channelsCollector, { api });
    expect(r.value('rabbitmq_channels_prefetch', { vhost: '/' })).toBeUndefined();
    expect(r.value('rabbitmq_channels_messages_published', { vhost: '/' })).toBeUndefined();
    expect(r.value('rabbitmq_channels_messages_published_per_second', { vhost: '/' })).toBe(2);
    expect(r.skipped).toBe(2);
  });

  it('escapes odd vhost names', async () => {
    const api = fakeApi({ '/api/channels': [channel({ name: 'a', vhost: 'a"b\\c\nd', messages_unacknowledged: 1 })] });
    const r = await runCollector(channelsCollector, { api });
    expect(r.text).toContain('rabbitmq_channels_messages_unacked{vhost="a\\"b\\\\c\\nd"} 1\n');
  });

  it('serves nothing, requests nothing and logs once when statistics are disabled (the API answers 400)', async () => {
    const api = fakeApi({});
    const memory = new Map<string, unknown>();
    const broker = { ...BROKER_3_10_8, statisticsDisabled: true };
    const first = await runCollector(channelsCollector, { api, broker, memory });
    const second = await runCollector(channelsCollector, { api, broker, memory });
    expect(api.calls).toHaveLength(0);
    expect(first.text).toBe('');
    expect(first.logs.map((l) => l.level)).toEqual([30]);
    expect(second.logs).toHaveLength(0);
  });

  it('reads configured vhosts from /api/vhosts/{vhost}/channels and skips a missing one', async () => {
    const api = fakeApi({ '/api/vhosts/vh0/channels': page1.items, '/api/vhosts/gone/channels': NOT_FOUND });
    const r = await runCollector(channelsCollector, { api, options: { vhosts: ['vh0', 'gone'] } });
    expect(r.value('rabbitmq_channels_by_state', { vhost: 'vh0', state: 'running' })).toBe(20);
    expect(r.logs.filter((l) => l.level === 40)).toHaveLength(1);
  });

  it('with an include pattern reads /api/channels once and keeps the matching vhosts', async () => {
    const api = fakeApi({ '/api/channels': [...page1.items, { name: 'other-ch', vhost: 'other', state: 'running' }] });
    const r = await runCollector(channelsCollector, { api, options: { vhosts: { include: '^vh' } } });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/channels']);
    expect(r.value('rabbitmq_channels_by_state', { vhost: 'vh0', state: 'running' })).toBe(20);
    expect(r.value('rabbitmq_channels_by_state', { vhost: 'other', state: 'running' })).toBeUndefined();
  });
});

describe('channels collector, per channel', () => {
  it('serves gauges and message counters per channel', async () => {
    const api = fakeApi({ '/api/channels': whole });
    const r = await runCollector(channelsCollector, { api, options: { per_channel: true } });
    expect(api.calls[0]!.query.columns).toContain('user');
    const publisher = { channel: '127.0.0.1:60010 -> 127.0.0.1:5672 (1)', vhost: 'vh0', user: 'guest' };
    const consumer = { channel: '127.0.0.1:60092 -> 127.0.0.1:5672 (2)', vhost: 'vh0', user: 'guest' };
    expect(r.value('rabbitmq_channel_messages_published_total', publisher)).toBe(3425);
    expect(r.value('rabbitmq_channel_messages_unacked', publisher)).toBe(0);
    expect(r.value('rabbitmq_channel_consumers', publisher)).toBe(0);
    expect(r.value('rabbitmq_channel_messages_unacked', consumer)).toBe(4);
    expect(r.value('rabbitmq_channel_consumers', consumer)).toBe(1);
    expect(r.value('rabbitmq_channel_prefetch', consumer)).toBe(0);
    // A consuming channel has no publish field: no sample rather than 0.
    expect(r.value('rabbitmq_channel_messages_published_total', consumer)).toBeUndefined();
    expect(r.family('rabbitmq_channel_messages_unacked')).toHaveLength(20);
    expect(r.family('rabbitmq_channel_messages_published_total')).toHaveLength(10);
    expect(r.text).toContain('# TYPE rabbitmq_channel_messages_published_total counter\n');
  });
});
