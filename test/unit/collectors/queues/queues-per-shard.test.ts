// Issue 14 ("Past one process"): a shard asks the broker only for the queues of its own vhosts.
import { describe, expect, it } from 'vitest';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { TargetShare } from '../../../../src/model/shard-assignment.js';
import { brokerApiAnswering, type FakeApi } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';

const VHOSTS = ['orders', 'billing', 'search', 'audit', 'mail', 'reports'];

/** Answers /api/vhosts and /api/queues/{vhost} (one queue "q" per vhost), and records every path asked for. */
function recordingApi(asked: string[]): FakeApi {
  return brokerApiAnswering((path) => {
    asked.push(path);
    if (path === '/api/vhosts') return VHOSTS.map((name) => ({ name }));
    const vhost = /^\/api\/queues\/([^/]+)$/.exec(path)?.[1];
    if (vhost !== undefined) return [{ vhost: decodeURIComponent(vhost), name: 'q', messages: 1, messages_ready: 1, messages_unacknowledged: 0, state: 'running' }];
    if (path === '/api/queues') return VHOSTS.map((v) => ({ vhost: v, name: 'q', messages: 1, messages_ready: 1, messages_unacknowledged: 0, state: 'running' }));
    throw new Error(`unexpected request ${path}`);
  });
}

describe('the queues collector on a shard', () => {
  for (const shard of [0, 1]) {
    it(`shard ${shard} of 2 asks per vhost for its own vhosts only, and serves only theirs`, async () => {
      const share = new TargetShare({ shard, totalShards: 2 }, 'prod');
      const own = VHOSTS.filter((v) => share.ownsVhost(v));
      expect(own.length).toBeGreaterThan(0);
      expect(own.length).toBeLessThan(VHOSTS.length);
      const asked: string[] = [];
      const result = await runCollector(queuesCollector, { api: recordingApi(asked), share });
      expect(asked.sort()).toEqual(['/api/vhosts', ...own.map((v) => `/api/queues/${v}`)].sort());
      expect(result.family('rabbitmq_queue_messages').map((s) => s.labels.vhost).sort()).toEqual([...own].sort());
      // The series of the query itself are cluster-wide: on the shard owning the target's name only.
      expect(result.family('rabbitmq_queue_query_info').length).toBe(share.ownsClusterSeries ? 1 : 0);
    });
  }

  it('rabbitmq_vhost_queues_per_node: each shard counts its own vhosts\' queues, and the shards together the unsharded count', async () => {
    const withNode = () =>
      brokerApiAnswering((path) => {
        if (path === '/api/vhosts') return VHOSTS.map((name) => ({ name }));
        const vhost = /^\/api\/queues\/([^/]+)$/.exec(path)?.[1];
        if (vhost !== undefined) return [{ vhost: decodeURIComponent(vhost), name: 'q', node: 'rabbit@a', messages: 1, state: 'running' }];
        throw new Error(`unexpected request ${path}`);
      });
    const perNode = async (share: TargetShare) => (await runCollector(queuesCollector, { api: withNode(), share })).family('rabbitmq_vhost_queues_per_node').map((s) => `${s.labels.vhost} ${s.labels.node} ${s.value}`);
    const whole = await perNode(new TargetShare({ shard: 0, totalShards: 1 }, 'prod'));
    expect(whole.sort()).toEqual(VHOSTS.map((v) => `${v} rabbit@a 1`).sort());
    const shards = [...(await perNode(new TargetShare({ shard: 0, totalShards: 2 }, 'prod'))), ...(await perNode(new TargetShare({ shard: 1, totalShards: 2 }, 'prod')))];
    expect(shards.sort()).toEqual(whole.sort());
  });

  it('reading the whole list (per_vhost: false), a shard leaves the other vhosts out before they become series', async () => {
    const share = new TargetShare({ shard: 0, totalShards: 2 }, 'prod');
    const asked: string[] = [];
    const result = await runCollector(queuesCollector, { api: recordingApi(asked), share, options: { per_vhost: false } });
    expect(asked).toEqual(['/api/queues']);
    expect(result.family('rabbitmq_queue_messages').map((s) => s.labels.vhost).sort()).toEqual(VHOSTS.filter((v) => share.ownsVhost(v)).sort());
  });
});
