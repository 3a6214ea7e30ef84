// Issue 26, signals 5 and 7 on a private node of the project's version with management
// statistics disabled: the quorum placement must still equal rabbitmqctl's, and connections by
// client must equal what /api/connections still lists (or be absent where it lists no client
// properties: never counted as "").
import * as amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { connectionsCollector } from '../../src/collectors/connections/collector.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { eventually } from '../harness/eventually.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

type Rec = Record<string, unknown>;
const BY_CLIENT = 'rabbitmq_connections_by_client';

describeWithBroker('signals 5 and 7 with management statistics disabled', (shared) => {
  let node: BrokerHandle | undefined;
  let client: ManagementClient;
  let connection: amqp.ChannelModel | undefined;

  beforeAll(async () => {
    node = await startBroker({
      version: shared.brokerVersion,
      nodeNamePrefix: 'signostats',
      extraConfig: ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'],
    });
    await managementApi(node)('PUT', '/api/queues/%2F/sig.nostats', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    connection = await amqp.connect(node.amqpUrl, { clientProperties: { product: 'nostats-app', version: '3.2.1', platform: 'test-platform' } });
    client = clientFor(node);
  }, 180_000);

  afterAll(async () => {
    await connection?.close().catch(() => undefined);
    await client?.close();
    await node?.stop();
  }, 60_000);

  it('quorum placement equals rabbitmqctl list_queues', async () => {
    const b = node!;
    const out = await b.ctl(['list_queues', '-q', '--formatter', 'json', 'name', 'type', 'leader', 'members', 'online']);
    const row = (JSON.parse(out) as Rec[]).find((q) => q.name === 'sig.nostats');
    expect(row).toMatchObject({ type: 'quorum', leader: b.nodeName, members: [b.nodeName], online: [b.nodeName] });
    const r = await runCollector(queuesCollector, { api: client, options: { quorum_placement: true } });
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(1);
    expect(r.value('rabbitmq_quorum_queue_leaders', { vhost: '/', node: b.nodeName })).toBe(1);
    expect(r.value('rabbitmq_quorum_queue_replicas', { vhost: '/', node: b.nodeName })).toBe(1);
    expect(r.value('rabbitmq_quorum_queues_below_quorum', { vhost: '/' })).toBe(0);
    expect(r.value('rabbitmq_quorum_queues_without_leader', { vhost: '/' })).toBe(0);
    expect(r.value('rabbitmq_quorum_queues_below_target_size', { vhost: '/' })).toBe(0);
  });

  it('connections by client: as /api/connections lists them, absent where it lists no client properties', async () => {
    const b = node!;
    // The connection is open once rabbitmqctl lists it; what the API then says differs by version.
    await eventually(async () => {
      const out = await b.ctl(['list_connections', '-q', '--no-table-headers', 'user']);
      return out.trim() === 'guest' ? true : undefined;
    }, 30_000, 'rabbitmqctl to list the one connection');
    const records = await managementApi(b)<Rec[]>('GET', '/api/connections');
    const properties = records.find((r) => r.client_properties)?.client_properties as Rec | undefined;
    const r = await runCollector(connectionsCollector, { api: client, options: { by_client: true } });
    // What the version gives is recorded in the output: it decides which branch is checked.
    console.log(`[${b.version ?? shared.brokerVersion}] statistics disabled: /api/connections lists ${records.length} connection(s), ${properties ? 'with' : 'without'} client_properties`);
    if (properties) {
      expect(r.family(BY_CLIENT).map((s) => ({ ...s.labels, value: s.value }))).toEqual([
        { vhost: '/', user: 'guest', client_product: 'nostats-app', client_version: '3.2.1', client_platform: 'test-platform', value: 1 },
      ]);
    } else {
      expect(r.family(BY_CLIENT)).toHaveLength(0);
    }
  });
});
