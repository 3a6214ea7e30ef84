// Issue 26, signal 5 (quorum queue placement and health) on a real two-node cluster of the
// project's version: a quorum queue declared while the cluster had one node (below its target
// once the second joins), one with a member on each node, then the second node's application
// stopped (a member down: below quorum). Every expected value comes from `rabbitmqctl
// list_queues` on the first node, not from the management API the collector reads.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { DEFAULT_PLUGINS, startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { joinCluster } from '../harness/broker/cluster.js';
import { eventually } from '../harness/eventually.js';
import { clientFor, runCollector, type RunResult } from '../support/run-collector.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

interface CtlQueue {
  name: string;
  type: string;
  leader: string;
  members: string[];
  online: string[];
}

const OPTIONS = { quorum_placement: true };

/** The queues as rabbitmqctl lists them on `node` (JSON formatter). */
async function ctlQueues(node: BrokerHandle): Promise<CtlQueue[]> {
  const out = await node.ctl(['list_queues', '-q', '--formatter', 'json', 'name', 'type', 'leader', 'members', 'online'], { timeoutMs: 60_000 });
  const rows = JSON.parse(out) as Record<string, unknown>[];
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return rows.map((r) => ({ name: String(r.name), type: String(r.type), leader: typeof r.leader === 'string' ? r.leader : '', members: list(r.members), online: list(r.online) }));
}

/** What the families must say, worked out from rabbitmqctl's rows (vhost / only). */
function expectedFrom(rows: CtlQueue[], clusterNodes: number) {
  const quorum = rows.filter((q) => q.type === 'quorum');
  const leaders: Record<string, number> = {};
  for (const q of quorum) for (const m of q.members) leaders[m] ??= 0;
  for (const q of quorum) if (q.leader) leaders[q.leader] = (leaders[q.leader] ?? 0) + 1;
  return {
    leaders,
    belowQuorum: quorum.filter((q) => q.online.length < Math.floor(q.members.length / 2) + 1).length,
    belowTarget: quorum.filter((q) => q.members.length < Math.min(3, clusterNodes)).length,
  };
}

function served(r: RunResult) {
  return {
    leaders: Object.fromEntries(r.family('rabbitmq_quorum_queue_leaders').filter((s) => s.labels.vhost === '/').map((s) => [s.labels.node, s.value])),
    belowQuorum: r.value('rabbitmq_quorum_queues_below_quorum', { vhost: '/' }),
    belowTarget: r.value('rabbitmq_quorum_queues_below_target_size', { vhost: '/' }),
  };
}

describeWithBroker('signal 5: quorum queue placement on a two-node cluster', (shared) => {
  let rabbit1: BrokerHandle | undefined;
  let rabbit2: BrokerHandle | undefined;
  let client: ManagementClient;

  beforeAll(async () => {
    const version = shared.brokerVersion;
    rabbit1 = await startBroker({ version, nodeNamePrefix: 'sigq1', plugins: DEFAULT_PLUGINS });
    const api1 = managementApi(rabbit1);
    // Declared while the cluster has one node: one member, below the target once rabbit2 joins.
    await api1('PUT', '/api/queues/%2F/sig.early', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    rabbit2 = await startBroker({ version, nodeNamePrefix: 'sigq2', plugins: DEFAULT_PLUGINS, peerOf: rabbit1.info });
    await joinCluster(rabbit2, rabbit1.info);
    await api1('PUT', '/api/queues/%2F/sig.both', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    client = clientFor(rabbit1);
  }, 300_000);

  afterAll(async () => {
    await client?.close();
    // The joined node first: the seed owns the shared epmd.
    await rabbit2?.stop();
    await rabbit1?.stop();
  }, 120_000);

  it('both nodes up: leaders per node and the queue below its target agree with rabbitmqctl', async () => {
    const node1 = rabbit1!;
    const rows = await eventually(async () => {
      const all = await ctlQueues(node1);
      return all.find((q) => q.name === 'sig.both')?.online.length === 2 ? all : undefined;
    }, 60_000, 'sig.both to list two members online');
    const expected = expectedFrom(rows, 2);
    expect(expected.belowTarget).toBe(1);
    expect(expected.belowQuorum).toBe(0);
    const r = await eventually(async () => {
      const run = await runCollector(queuesCollector, { api: client, options: OPTIONS });
      expect(served(run)).toEqual(expected);
      return run;
    }, 30_000, 'the served placement to equal rabbitmqctl\'s');
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: '/', node: node1.nodeName })).toBe(2);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: '/', node: rabbit2!.nodeName })).toBe(1);
  }, 120_000);

  it('a member stopped: sig.both is below quorum; leaders per node (0 included) as rabbitmqctl lists them', async () => {
    const node1 = rabbit1!;
    await rabbit2!.ctl(['stop_app']);
    const rows = await eventually(async () => {
      const all = await ctlQueues(node1);
      return all.find((q) => q.name === 'sig.both')?.online.length === 1 ? all : undefined;
    }, 90_000, 'rabbitmqctl to list sig.both with one member online');
    const expected = expectedFrom(rows, 2);
    expect(expected.belowQuorum).toBe(1);
    await eventually(async () => {
      const run = await runCollector(queuesCollector, { api: client, options: OPTIONS });
      expect(served(run)).toEqual(expectedFrom(await ctlQueues(node1), 2));
      return run;
    }, 60_000, 'the served placement with a member down to equal rabbitmqctl\'s');
  }, 240_000);
});
