// The quorum-queue and stream fields RabbitMQ 4.3 added to the statistics list, served from the
// recorded 4.3.6 answer (test/fixtures/rabbitmq-4.3.x/queues-page1.json); every literal was read
// off the fixture JSON by hand.
import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview } from '../../../../src/broker/broker-info.js';
import { loadFixture } from '../../../support/fixtures.js';
import { type PageFixture, listRoute, run } from './queue-fixtures.js';

const QUEUES = loadFixture<PageFixture>('rabbitmq-4.3.x/queues-page1.json').items;
const DISABLE_STATS = loadFixture<PageFixture>('rabbitmq-4.3.x/queues-disable-stats-page1.json').items;
const BROKER = brokerInfoFromOverview(loadFixture<Record<string, unknown>>('rabbitmq-4.3.x/overview.json'));
const quorum = { vhost: '/', queue: 'fx.quorum' };
const stream = { vhost: '/', queue: 'fx.stream' };
const classic = { vhost: '/', queue: 'fx.classic' };
const NEW_FAMILIES = ['rabbitmq_queue_messages_delayed', 'rabbitmq_queue_messages_ready_returned', 'rabbitmq_queue_publishers', 'rabbitmq_queue_delivery_limit', 'rabbitmq_queue_stream_segments'];

describe('queues: RabbitMQ 4.3 quorum-queue and stream fields', () => {
  it('serves a quorum queue\'s delayed and returned messages, publishers and delivery limit, and a stream\'s segments', async () => {
    const { api, result } = run({ '/api/queues': listRoute(QUEUES) }, { per_vhost: false }, { broker: BROKER });
    const r = await result;
    expect(String(api.calls[0]!.query.columns).split(',')).toEqual(expect.arrayContaining(['messages_delayed', 'messages_ready_returned', 'publishers', 'delivery_limit', 'segments']));
    expect(r.value('rabbitmq_queue_messages_delayed', quorum)).toBe(0);
    expect(r.value('rabbitmq_queue_messages_ready_returned', quorum)).toBe(0);
    expect(r.value('rabbitmq_queue_publishers', quorum)).toBe(1);
    expect(r.value('rabbitmq_queue_delivery_limit', quorum)).toBe(20);
    expect(r.value('rabbitmq_queue_stream_segments', stream)).toBe(1);
    // Absent where the broker has no such field: never a made-up 0.
    for (const name of NEW_FAMILIES) expect([name, r.value(name, classic)]).toEqual([name, undefined]);
    expect(r.value('rabbitmq_queue_stream_segments', quorum)).toBeUndefined();
    expect(r.value('rabbitmq_queue_delivery_limit', stream)).toBeUndefined();
  });

  it('serves no delivery limit for an unlimited one (4.x lists it as "unlimited")', async () => {
    const unlimited = QUEUES.map((q) => (q.name === 'fx.quorum' ? { ...q, delivery_limit: 'unlimited' } : q));
    const r = await run({ '/api/queues': listRoute(unlimited) }, { per_vhost: false }, { broker: BROKER }).result;
    expect(r.value('rabbitmq_queue_delivery_limit', quorum)).toBeUndefined();
    expect(r.value('rabbitmq_queue_publishers', quorum)).toBe(1);
  });

  it('asks the counts-only list for none of them (it does not carry them)', async () => {
    const { api, result } = run({ '/api/queues': listRoute(DISABLE_STATS) }, { per_vhost: false, details: false, message_stats: false }, { broker: BROKER });
    const r = await result;
    expect(String(api.calls[0]!.query.columns)).not.toMatch(/messages_delayed|segments/);
    for (const name of NEW_FAMILIES) expect(r.family(name)).toEqual([]);
  });
});
