// Issue 26, signal 5: quorum queue placement and health, from the queue records the queue
// collector fetches. Literals of the recorded cluster were read off the fixture JSON by hand.
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { quorumOf } from '../../../../src/collectors/queues/quorum-placement.js';
import { loadFixture } from '../../../support/fixtures.js';
import { type Q, type PageFixture, BROKER_STATS_OFF, FULL, SD_TOTALS, listRoute, run, warnings } from './queue-fixtures.js';

const R1 = 'rabbit1-684-k62gcm@localhost';
const R2 = 'rabbit2-684-pqhufx@localhost';
/** RabbitMQ 4.3.6, two nodes, rabbit2's application stopped: fx.quorum2 has members on both, rabbit1 online and leading. */
const DOWN = loadFixture<PageFixture>('rabbitmq-4.3.x-cluster/queues-rabbit2-down.json').items;
const NODES_DOWN = loadFixture<Q[]>('rabbitmq-4.3.x-cluster/nodes-rabbit2-down.json');

const qq = (name: string, members: string[], online: string[], leader: string | undefined, fields: Q = {}): Q => ({
  name, vhost: 'v', type: 'quorum', state: 'running', messages: 0, messages_ready: 0, messages_unacknowledged: 0,
  members, online, ...(leader === undefined ? {} : { leader }), arguments: { 'x-queue-type': 'quorum' }, ...fields,
});
const nodeList = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `n${i + 1}` }));
const OPTIONS = { per_vhost: false, quorum_placement: true };

describe('quorum placement (quorum_placement)', () => {
  it('majority: floor(members / 2) + 1', () => {
    expect([1, 2, 3, 4, 5, 7].map(quorumOf)).toEqual([1, 2, 2, 3, 3, 4]);
  });

  it('the recorded 4.3 cluster with a node down: the two-member queue is below quorum and leads on rabbit1', async () => {
    const { api, result } = run({ '/api/queues': listRoute(DOWN), '/api/nodes': NODES_DOWN }, OPTIONS);
    const r = await result;
    expect(r.value('rabbitmq_quorum_queue_leaders', { vhost: '/', node: R1 })).toBe(1);
    expect(r.value('rabbitmq_quorum_queue_leaders', { vhost: '/', node: R2 })).toBe(0);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: '/', node: R1 })).toBe(1);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: '/', node: R2 })).toBe(1);
    // 1 of 2 members online: a majority of 2 is 2.
    expect(r.value('rabbitmq_quorum_queues_below_quorum', { vhost: '/' })).toBe(1);
    expect(r.value('rabbitmq_quorum_queues_without_leader', { vhost: '/' })).toBe(0);
    // Target min(3, 2 nodes) = 2 members: it has them.
    expect(r.value('rabbitmq_quorum_queues_below_target_size', { vhost: '/' })).toBe(0);
    const columns = api.calls.find((c) => c.path === '/api/queues')?.query.columns?.split(',') ?? [];
    expect(columns).toEqual(expect.arrayContaining(['leader', 'members', 'online', 'arguments']));
    expect(api.calls.find((c) => c.path === '/api/nodes')?.query).toEqual({ columns: 'name' });
  });

  it('counts leaders per node (0 for a node that leads none), below quorum, without leader and below target', async () => {
    const three = ['n1', 'n2', 'n3'];
    const items = [
      qq('a', three, three, 'n1'),
      qq('b', three, three, 'n1'),
      qq('c', three, ['n1'], 'n1'), // 1 of 3 online: below quorum
      qq('d', ['n1', 'n2'], ['n1', 'n2'], 'n2'), // 2 members, target 3: below target
      qq('e', three, ['n2', 'n3'], ''), // no leader, 2 of 3 online: quorum holds
      qq('f', ['n1'], ['n1'], 'n1', { arguments: { 'x-queue-type': 'quorum', 'x-quorum-initial-group-size': 1 } }), // declared with 1: at target
      qq('g', ['n1', 'n2', 'n3'], three, 'n3', { vhost: 'w', arguments: { 'x-quorum-initial-group-size': 5 } }), // target min(5, 3 nodes)
      { name: 'classic', vhost: 'v', type: 'classic', state: 'running', node: 'n3' },
    ];
    const r = await run({ '/api/queues': listRoute(items), '/api/nodes': nodeList(3) }, OPTIONS).result;
    const leaders = Object.fromEntries(r.family('rabbitmq_quorum_queue_leaders').filter((s) => s.labels.vhost === 'v').map((s) => [s.labels.node, s.value]));
    expect(leaders).toEqual({ n1: 4, n2: 1, n3: 0 });
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: 'v', node: 'n1' })).toBe(6);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: 'v', node: 'n3' })).toBe(4);
    expect(r.value('rabbitmq_quorum_queues_below_quorum', { vhost: 'v' })).toBe(1);
    expect(r.value('rabbitmq_quorum_queues_without_leader', { vhost: 'v' })).toBe(1);
    expect(r.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'v' })).toBe(1);
    expect(r.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'w' })).toBe(0);
    expect(r.value('rabbitmq_quorum_queue_leaders', { vhost: 'w', node: 'n3' })).toBe(1);
  });

  it('quorum_target_size applies to queues declared without a size, capped by the cluster\'s nodes', async () => {
    const items = [qq('a', ['n1', 'n2', 'n3'], ['n1', 'n2', 'n3'], 'n1'), qq('b', ['n1', 'n2', 'n3', 'n4', 'n5'], ['n1', 'n2', 'n3', 'n4', 'n5'], 'n2')];
    const five = await run({ '/api/queues': listRoute(items), '/api/nodes': nodeList(5) }, { ...OPTIONS, quorum_target_size: 5 }).result;
    expect(five.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'v' })).toBe(1);
    const four = await run({ '/api/queues': listRoute(items), '/api/nodes': nodeList(4) }, { ...OPTIONS, quorum_target_size: 5 }).result;
    // Target min(5, 4) = 4: the three-member queue is below it.
    expect(four.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'v' })).toBe(1);
    const three = await run({ '/api/queues': listRoute(items), '/api/nodes': nodeList(3) }, { ...OPTIONS, quorum_target_size: 5 }).result;
    expect(three.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'v' })).toBe(0);
  });

  it('without the node list the below-target count is left out (and said once); the rest is served', async () => {
    const items = [qq('a', ['n1', 'n2'], ['n1'], 'n1')];
    const failing = () => {
      throw new ManagementError('http_status', '/api/nodes', 'HTTP 500', 500);
    };
    const r = await run({ '/api/queues': listRoute(items), '/api/nodes': failing }, OPTIONS).result;
    expect(r.family('rabbitmq_quorum_queues_below_target_size')).toHaveLength(0);
    expect(r.value('rabbitmq_quorum_queues_below_quorum', { vhost: 'v' })).toBe(1);
    expect(warnings(r).map((w) => w.msg)).toEqual(expect.arrayContaining([expect.stringContaining('below their target size')]));
  });

  it('is off by default: no quorum series, no node list, and no quorum queues means no request either', async () => {
    const off = await run({ '/api/queues': listRoute([qq('a', ['n1'], ['n1'], 'n1')]) }, { per_vhost: false }).result;
    expect(off.familyNames.filter((n) => n.startsWith('rabbitmq_quorum_'))).toEqual([]);
    // The 3.10 fixture's vh0 queues: classic only. /api/nodes is not routed: asking it would fail the test.
    const classic = await run({ '/api/queues': listRoute(FULL.filter((q) => q.type !== 'quorum')) }, OPTIONS).result;
    expect(classic.familyNames.filter((n) => n.startsWith('rabbitmq_quorum_'))).toEqual([]);
  });

  it('statistics disabled (3.10.8 recorded counts-only list): the placement is served all the same', async () => {
    // The recording's 21 quorum queues of vh0, one member each on rabbit@vm, online, leading there.
    const { api, result } = run({ '/api/queues': listRoute(SD_TOTALS), '/api/nodes': [{ name: 'rabbit@vm' }] }, OPTIONS, { broker: BROKER_STATS_OFF });
    const r = await result;
    expect(api.calls.find((c) => c.path === '/api/queues')?.query).toMatchObject({ disable_stats: 'true', enable_queue_totals: 'true' });
    expect(r.value('rabbitmq_quorum_queue_leaders', { vhost: 'vh0', node: 'rabbit@vm' })).toBe(21);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: 'vh0', node: 'rabbit@vm' })).toBe(21);
    expect(r.value('rabbitmq_quorum_queues_below_quorum', { vhost: 'vh0' })).toBe(0);
    // One node: the target of 3 is capped at 1, which every queue has.
    expect(r.value('rabbitmq_quorum_queues_below_target_size', { vhost: 'vh0' })).toBe(0);
  });

  it('the counts-only polls between statistics polls serve the same placement (stats_every)', async () => {
    const memory = new Map<string, unknown>();
    const routes = { '/api/queues': listRoute(DOWN), '/api/nodes': NODES_DOWN, '/api/consumers': [] };
    const placementOf = async () => {
      const { api, result } = run(routes, { ...OPTIONS, stats_every: 2 }, { memory });
      const r = await result;
      const placement = r.family('rabbitmq_quorum_queue_leaders').map((s) => [s.labels.node, s.value]).concat([['below', r.value('rabbitmq_quorum_queues_below_quorum', { vhost: '/' })]]);
      return { placement, statistics: api.calls.find((c) => c.path === '/api/queues')?.query.disable_stats === undefined };
    };
    const first = await placementOf();
    const second = await placementOf();
    expect([first.statistics, second.statistics]).toEqual([true, false]);
    expect(first.placement).toEqual([[R1, 1], [R2, 0], ['below', 1]]);
    expect(second.placement).toEqual(first.placement);
  });
});
