// The plugin collector on a real two-node cluster with statistics disabled: messages published on
// the first node to a queue led by the second, consumed and acked on the first. Each count is made
// on one node, so the served counter is the sum of both nodes' plugin answers, once: it must equal
// what was sent and acked, what the plugin of each node says, and rabbitmqctl's depth. Then the
// second node's rabbitmq_prometheus is disabled: only that node is reported down.
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { joinCluster } from '../harness/broker/cluster.js';
import { eventually } from '../harness/eventually.js';
import { afterFirstPolls, startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { samples } from '../support/parse-exposition.js';
import { managementApi } from './support/management-api.js';
import { STATS_OFF, pluginConfig, pluginCounter, pluginSays } from './support/plugin-readings.js';
import { describeWithBroker } from './support/with-broker.js';

const QUEUE = 'plugin-cluster-q';
const PUBLISHED = 7;
const ACKED = 4;

/** What the plugins of all nodes say of the queue's counter, summed over nodes (a node without a row adds 0). */
async function clusterSays(nodes: readonly BrokerHandle[], counter: 'published' | 'acked'): Promise<number> {
  let sum = 0;
  for (const node of nodes) {
    const [family, metric] = pluginCounter(node, counter);
    sum += (await pluginSays(node, family, metric, QUEUE)) ?? 0;
  }
  return sum;
}

describeWithBroker('the plugin source on a two-node cluster with statistics disabled', (shared) => {
  let rabbit1: BrokerHandle | undefined;
  let rabbit2: BrokerHandle | undefined;
  let exporter: ExporterProcess | undefined;
  let conn: amqp.ChannelModel | undefined;
  // The harness's nodes share one host, each with its own plugin port: the collector's one `port`
  // for the nodes of /api/nodes cannot reach both, so each node's plugin is listed by URL.
  let secondUrlNode: string;

  beforeAll(async () => {
    const version = shared.brokerVersion;
    rabbit1 = await startBroker({ version, nodeNamePrefix: 'plgc1', extraConfig: STATS_OFF });
    rabbit2 = await startBroker({ version, nodeNamePrefix: 'plgc2', extraConfig: STATS_OFF, peerOf: rabbit1.info });
    await joinCluster(rabbit2, rabbit1.info);
    // Declared through the second node's API: a quorum queue's leader is the declaring node.
    await managementApi(rabbit2)('PUT', `/api/queues/%2F/${QUEUE}`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    conn = await amqp.connect(rabbit1.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < PUBLISHED; i++) ch.sendToQueue(QUEUE, Buffer.from(`m${i}`), { persistent: true });
    await ch.waitForConfirms();
    // Consumed on the first node; the first ACKED acked, the rest left unacked on a channel kept open.
    let delivered = 0;
    await ch.consume(QUEUE, (message) => {
      if (message && delivered++ < ACKED) ch.ack(message);
    }, { noAck: false });
    secondUrlNode = new URL(rabbit2.prometheusUrl).host;
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${rabbit1.managementUrl}\n  username: guest\n  password: guest\ncollectors:\n${pluginConfig([`urls: [${rabbit1.prometheusUrl}, ${rabbit2.prometheusUrl}]`])}`,
    });
  }, 400_000);

  afterAll(async () => {
    await exporter?.stop();
    await conn?.close().catch(() => undefined);
    // The joined node first: the seed owns the shared epmd.
    await rabbit2?.stop();
    await rabbit1?.stop();
  }, 120_000);

  it('serves the queue\'s published and acked counters once, equal to both plugins\' sum and to rabbitmqctl', async () => {
    const nodes = [rabbit1!, rabbit2!];
    const leader = await rabbit1!.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'leader']);
    expect(leader).toMatch(new RegExp(`^${QUEUE}\\s+${rabbit2!.nodeName}\\s*$`, 'm'));
    const series = (name: string) => `${name}{vhost="/",queue="${QUEUE}"}`;
    for (const [name, counter, want] of [['rabbitmq_queue_messages_published_total', 'published', PUBLISHED], ['rabbitmq_queue_messages_acked_total', 'acked', ACKED]] as const) {
      await eventually(async () => ((await clusterSays(nodes, counter)) === want ? want : undefined), 60_000, `the plugins' ${counter} of ${QUEUE}, summed over both nodes, to be ${want}`);
      await eventually(async () => ((await exporter!.value(series(name))) === want ? want : undefined), 60_000, `${name} of ${QUEUE} to be ${want} (from the plugin)`);
    }
    // Published and not acked: what rabbitmqctl counts in the queue (ready and unacked), once the queue's metrics tick.
    await eventually(async () => {
      const listed = await rabbit1!.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages']);
      return Number(new RegExp(`^${QUEUE}\\s+(\\d+)$`, 'm').exec(listed)?.[1]) === PUBLISHED - ACKED ? true : undefined;
    }, 60_000, `rabbitmqctl to list ${QUEUE} with ${PUBLISHED - ACKED} messages`);
    const values = samples(await afterFirstPolls(exporter!, 30_000));
    expect(values.get('rabbitmq_exporter_plugin_queue_counters_served')).toBe(1);
    for (const node of nodes) expect(values.get(`rabbitmq_exporter_plugin_node_up{node="${node.nodeName}"}`), node.nodeName).toBe(1);
  }, 180_000);

  it('the second node\'s plugin disabled: that node alone is down, the first node\'s series and the target stand', async () => {
    await rabbit2!.plugins(['disable', 'rabbitmq_prometheus']);
    const text = await eventually(async () => {
      const { text: t } = await exporter!.metrics();
      return samples(t).get(`rabbitmq_exporter_plugin_node_up{node="${secondUrlNode}"}`) === 0 ? t : undefined;
    }, 60_000, `rabbitmq_exporter_plugin_node_up{node="${secondUrlNode}"} to be 0`);
    const values = samples(text);
    const reasons = [...values.entries()].filter(([k]) => k.startsWith(`rabbitmq_exporter_plugin_node_failure_info{node="${secondUrlNode}",`));
    expect(reasons, 'one failure reason for the second node').toHaveLength(1);
    expect(reasons[0]![1]).toBe(1);
    expect(values.get(`rabbitmq_exporter_plugin_node_up{node="${rabbit1!.nodeName}"}`)).toBe(1);
    expect(values.get('rabbitmq_exporter_collector_success{collector="plugin"}')).toBe(1);
    expect(values.get('rabbitmq_up')).toBe(1);
    expect(values.get(`rabbitmq_node_messages_received_total{node="${rabbit1!.nodeName}",protocol="amqp091"}`)).toBeGreaterThanOrEqual(PUBLISHED);
    expect(values.get(`rabbitmq_node_auth_attempts_succeeded_total{node="${rabbit1!.nodeName}",protocol="amqp091"}`)).toBeGreaterThanOrEqual(1);
    // The second node's share of the counters is held from its last answer: neither dropped nor counted twice.
    expect(values.get(`rabbitmq_queue_messages_published_total{vhost="/",queue="${QUEUE}"}`)).toBe(PUBLISHED);
    expect(values.get(`rabbitmq_queue_messages_acked_total{vhost="/",queue="${QUEUE}"}`)).toBe(ACKED);
    expect((await checkMetricsWithPromtool(text)).output).toBe('');
  }, 180_000);
});
