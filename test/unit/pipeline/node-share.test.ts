// The split of a snapshot among its nodes (node-share.ts) as the server asks for it: concurrent
// scrapes share one split, and a big snapshot is split with turns of the event loop between.
import { describe, expect, it } from 'vitest';
import { nodeMetrics } from '../../../src/collectors/nodes/metrics.js';
import { overviewMetrics } from '../../../src/collectors/overview/metrics.js';
import { pluginMetrics } from '../../../src/collectors/plugin/metrics.js';
import { queueMetrics as Q } from '../../../src/collectors/queues/metrics.js';
import { LabelBlock } from '../../../src/exposition/label-block.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import { NodeShares } from '../../../src/pipeline/node-share.js';

const NODES = ['rabbit@a', 'rabbit@b'];

/** A nodes part and a queues part of `queues` queues, placed on the nodes in turn. */
function snapshot(queues: number) {
  const sink = new SampleSink();
  const empty = Object.fromEntries(Q.info.labels.map((label) => [label, '']));
  for (let i = 0; i < queues; i++) {
    sink.addToBlock(Q.messages, new LabelBlock(['vhost', 'queue'], ['/', `q${i}`]), i);
    sink.addToBlock(Q.consumers, new LabelBlock(['vhost', 'queue'], ['/', `q${i}`]), i % 3);
    sink.add(Q.info, { ...empty, vhost: '/', queue: `q${i}`, node: NODES[i % 2]!, type: 'classic' }, 1);
  }
  const nodes = new SampleSink();
  for (const node of NODES) nodes.add(nodeMetrics.info, { node, type: 'disc', mem_calculation_strategy: 'rss', rates_mode: 'basic' }, 1);
  const parts = [nodes.finish(), sink.finish()];
  return { parts, exposition: new Exposition(parts, Infinity, Date.now()) };
}

describe('NodeShares', () => {
  it('scrapes of a node at once get one share, made once', async () => {
    const { parts, exposition } = snapshot(10);
    const shares = new NodeShares();
    const [first, second] = await Promise.all([shares.share(exposition, parts, 'rabbit@a', 'c'), shares.share(exposition, parts, 'rabbit@a', 'c')]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(await shares.share(exposition, parts, 'rabbit@zz', 'c')).toBeUndefined();
    const text = first!.body('text').toString('utf8');
    expect(text.split('\n').filter((line) => line.startsWith('rabbitmq_queue_messages{'))).toHaveLength(5);
  });

  it('lets the event loop run while it splits a big snapshot', async () => {
    const { parts, exposition } = snapshot(60_000);
    const shares = new NodeShares();
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const share = await shares.share(exposition, parts, 'rabbit@b', 'c');
    clearInterval(ticking);
    expect(share!.body('text').toString('utf8').split('\n').filter((line) => line.startsWith('rabbitmq_queue_messages{'))).toHaveLength(30_000);
    // Timers ran while it split (none can while a loop holds the thread).
    expect(turns).toBeGreaterThan(0);
  });

  it('serves the node\'s queues\' messages and consumers under the plugin\'s /metrics/detailed names too, and the cluster\'s rest neither', async () => {
    const { parts, exposition } = snapshot(10);
    const shares = new NodeShares();
    const lines = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));
    const text = (await shares.share(exposition, parts, 'rabbit@b', 'c'))!.body('text').toString('utf8');
    const odd = [1, 3, 5, 7, 9];
    expect(lines(text, 'rabbitmq_detailed_queue_messages')).toEqual(odd.map((i) => `rabbitmq_detailed_queue_messages{vhost="/",queue="q${i}"} ${i}`));
    expect(lines(text, 'rabbitmq_detailed_queue_consumers')).toEqual(odd.map((i) => `rabbitmq_detailed_queue_consumers{vhost="/",queue="q${i}"} ${i % 3}`));
    expect(text).toContain('# TYPE rabbitmq_detailed_queue_messages gauge');
    const rest = (await shares.rest(exposition, [], parts)).body('text').toString('utf8');
    expect(rest).not.toContain('rabbitmq_detailed_queue');
  });

  it("serves each node's rabbitmq_consumers, its queues' consumers summed, and the cluster target those of the queues on no node instead of the cluster's whole", async () => {
    const { parts } = snapshot(10);
    // The overview's whole (9 + 7), and a queue whose node the API did not give.
    const more = new SampleSink();
    more.add(overviewMetrics.consumers, [], 16);
    more.addToBlock(Q.consumers, new LabelBlock(['vhost', 'queue'], ['/', 'unplaced']), 7);
    const all = [...parts, more.finish()];
    const exposition = new Exposition(all, Infinity, Date.now());
    const shares = new NodeShares();
    const consumers = (text: string) => text.split('\n').filter((line) => /^rabbitmq_consumers[ {]/.test(line));
    // q0..q9 have i % 3 consumers; the even ones are on rabbit@a.
    expect(consumers((await shares.share(exposition, all, 'rabbit@a', 'c'))!.body('text').toString('utf8'))).toEqual(['rabbitmq_consumers 5']);
    expect(consumers((await shares.share(exposition, all, 'rabbit@b', 'c'))!.body('text').toString('utf8'))).toEqual(['rabbitmq_consumers 4']);
    expect(consumers((await shares.rest(exposition, [], all)).body('text').toString('utf8'))).toEqual(['rabbitmq_consumers 7']);
    // Every queue placed: no series of it on the cluster target, and the nodes' add up to the whole.
    const placed = [parts[0]!, parts[1]!, (() => {
      const sink = new SampleSink();
      sink.add(overviewMetrics.consumers, [], 9);
      return sink.finish();
    })()];
    expect(consumers((await new NodeShares().rest(new Exposition(placed, Infinity, Date.now()), [], placed)).body('text').toString('utf8'))).toEqual([]);
  });

  it("serves each node's message-size histogram under the plugin's name, each series and bucket apart, without the node label", async () => {
    const { parts } = snapshot(2);
    const sink = new SampleSink();
    NODES.forEach((node, i) => {
      sink.addHistogram(pluginMetrics.messageSize, { node, protocol: 'amqp091' }, { buckets: [['100', 3 + i], ['1000', 5 + i], ['+Inf', 6 + i]], count: 6 + i, sum: 1200 + i });
      sink.addHistogram(pluginMetrics.messageSize, { node, protocol: 'amqp10' }, { buckets: [['100', 0], ['1000', 0], ['+Inf', 0]], count: 0, sum: 0 });
    });
    const all = [...parts, sink.finish()];
    const text = (await new NodeShares().share(new Exposition(all, Infinity, Date.now()), all, 'rabbit@b', 'c'))!.body('text').toString('utf8');
    expect(text).toContain('# TYPE rabbitmq_message_size_bytes histogram');
    expect(text.split('\n').filter((line) => line.startsWith('rabbitmq_message_size_bytes_'))).toEqual([
      'rabbitmq_message_size_bytes_bucket{protocol="amqp091",le="100"} 4',
      'rabbitmq_message_size_bytes_bucket{protocol="amqp091",le="1000"} 6',
      'rabbitmq_message_size_bytes_bucket{protocol="amqp091",le="+Inf"} 7',
      'rabbitmq_message_size_bytes_count{protocol="amqp091"} 7',
      'rabbitmq_message_size_bytes_sum{protocol="amqp091"} 1201',
      'rabbitmq_message_size_bytes_bucket{protocol="amqp10",le="100"} 0',
      'rabbitmq_message_size_bytes_bucket{protocol="amqp10",le="1000"} 0',
      'rabbitmq_message_size_bytes_bucket{protocol="amqp10",le="+Inf"} 0',
      'rabbitmq_message_size_bytes_count{protocol="amqp10"} 0',
      'rabbitmq_message_size_bytes_sum{protocol="amqp10"} 0',
    ]);
  });
});
