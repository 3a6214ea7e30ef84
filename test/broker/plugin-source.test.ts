// The plugin collector against private RabbitMQ nodes: rabbitmq_prometheus as a second source. With
// statistics on, the queue collector's counters (from the API) equal the plugin's own; with them
// off, the plugin collector serves the same families and they equal what the plugin and
// rabbitmqctl say. A listener that refuses degrades only its own node.
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { eventually } from '../harness/eventually.js';
import { afterFirstPolls, startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { freePort } from '../harness/ports.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { samples } from '../support/parse-exposition.js';
import { managementApi } from './support/management-api.js';
import { STATS_OFF, pluginConfig, pluginCounter, pluginSays } from './support/plugin-readings.js';
import { describeWithBroker, getBroker } from './support/with-broker.js';
import { METADATA_STORE_FAMILIES } from '../support/metadata-store-families.js';

describeWithBroker('the plugin source with statistics on: both sources agree, a refusing listener degrades its node alone', (broker) => {
  let exporter: ExporterProcess;
  let conn: amqp.ChannelModel;
  const queue = 'plugin-on-q';
  const quorum = 'plugin-on-qq';
  let refusing: string;

  beforeAll(async () => {
    const api = managementApi(broker);
    await api('PUT', `/api/queues/%2F/${queue}`, { durable: true });
    await api('PUT', `/api/queues/%2F/${quorum}`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 5; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`), { persistent: true });
    ch.sendToQueue(quorum, Buffer.from('q0'), { persistent: true });
    await ch.waitForConfirms();
    // Acked with basic.get, on a channel kept open: a closed channel's counts may never be reported.
    for (let i = 0; i < 3; i++) {
      const message = await ch.get(queue, { noAck: false });
      if (message) ch.ack(message);
    }
    refusing = `127.0.0.1:${await freePort()}`;
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: guest\n  password: guest\ncollectors:\n  queues:\n    stats_every: 1\n${pluginConfig([`urls: [${broker.prometheusUrl}, http://${refusing}]`])}`,
    });
  }, 120_000);

  afterAll(async () => {
    await exporter?.stop();
    await conn?.close().catch(() => undefined);
    await managementApi(broker)('DELETE', `/api/queues/%2F/${queue}`);
    await managementApi(broker)('DELETE', `/api/queues/%2F/${quorum}`);
  }, 60_000);

  it("serves a quorum queue's Raft commit latency, term and log positions as the plugin reports them, under their names before 4.2 too", async () => {
    // rabbitmq_detailed_raft_commit_latency_seconds from 4.2 on, rabbitmq_detailed_raft_entry_commit_latency_seconds before.
    const pluginLatency = async () =>
      (await pluginSays(broker, 'ra_metrics', 'rabbitmq_detailed_raft_commit_latency_seconds', quorum)) ??
      (await pluginSays(broker, 'ra_metrics', 'rabbitmq_detailed_raft_entry_commit_latency_seconds', quorum));
    const served = `rabbitmq_queue_raft_commit_latency_seconds{node="${broker.nodeName}",vhost="/",queue="${quorum}"}`;
    // The same reading on both sides: the queue takes no more entries, so its last commit's latency stays.
    await eventually(
      async () => {
        const [mine, theirs] = [await exporter.value(served), await pluginLatency()];
        if (mine === undefined || theirs === undefined) throw new Error(`served ${mine}, the plugin says ${theirs}`);
        return mine === theirs ? mine : undefined;
      },
      60_000,
      `${served} equal to the plugin's own`,
    );
    // Its term and log positions too, under either version's names.
    const positions = [
      ['rabbitmq_queue_raft_term', 'rabbitmq_detailed_raft_term', 'rabbitmq_detailed_raft_term_total'],
      ['rabbitmq_queue_raft_commit_index', 'rabbitmq_detailed_raft_commit_index', 'rabbitmq_detailed_raft_log_commit_index'],
      ['rabbitmq_queue_raft_last_applied_index', 'rabbitmq_detailed_raft_last_applied', 'rabbitmq_detailed_raft_log_last_applied_index'],
      ['rabbitmq_queue_raft_last_written_index', 'rabbitmq_detailed_raft_last_written_index', 'rabbitmq_detailed_raft_log_last_written_index'],
      ['rabbitmq_queue_raft_snapshot_index', 'rabbitmq_detailed_raft_snapshot_index', 'rabbitmq_detailed_raft_log_snapshot_index'],
    ] as const;
    for (const [name, newer, older] of positions) {
      const series = `${name}{node="${broker.nodeName}",vhost="/",queue="${quorum}"}`;
      await eventually(
        async () => {
          const [mine, theirs] = [await exporter.value(series), (await pluginSays(broker, 'ra_metrics', newer, quorum)) ?? (await pluginSays(broker, 'ra_metrics', older, quorum))];
          if (mine === undefined || theirs === undefined) throw new Error(`served ${mine}, the plugin says ${theirs}`);
          return mine === theirs ? mine : undefined;
        },
        60_000,
        `${series} equal to the plugin's own`,
      );
    }
  });

  it("serves the metadata store's Raft member (Khepri, 4.3) and the unreachable peers (4.0 and later) as the node's plugin reports them", async () => {
    const node = `node="${broker.nodeName}"`;
    const khepri = broker.brokerVersion === '4.3';
    const member = METADATA_STORE_FAMILIES;
    // Read from the plugin and the exporter until both show the same: nothing declares meanwhile, so the member's figures stay.
    const [mine, theirs] = await eventually(
      async () => {
        const plugin = samples(await (await fetch(`${broker.prometheusUrl}/metrics`)).text());
        const served = samples((await exporter.metrics()).text);
        const pluginSide = Object.values(member).map((family) => plugin.get(`${family}{module="rabbit_khepri",ra_system="coordination"}`));
        const exporterSide = Object.keys(member).map((name) => served.get(`${name}{${node}}`));
        const peers = [plugin.get('rabbitmq_unreachable_cluster_peers_count'), served.get(`rabbitmq_node_unreachable_cluster_peers{${node}}`)];
        const both = [[...pluginSide, peers[0]], [...exporterSide, peers[1]]] as const;
        return JSON.stringify(both[0]) === JSON.stringify(both[1]) && served.has(`rabbitmq_exporter_plugin_node_up{${node}}`) ? both : undefined;
      },
      60_000,
      'the metadata store\'s member and the unreachable peers equal to the plugin\'s own',
    );
    expect(mine).toEqual(theirs);
    if (khepri) {
      // A single node that elected itself once: term 1 or more, every entry it wrote committed and applied.
      expect(mine[0]).toBeGreaterThanOrEqual(1);
      expect(mine[2]).toBeGreaterThan(0);
      expect(mine[3]).toBe(mine[2]);
    } else {
      expect(mine.slice(0, 7)).toEqual(Array(7).fill(undefined));
    }
    // 4.0 and later count the peers they cannot reach: none here; 3.10 does not.
    expect(mine[7]).toBe(broker.brokerVersion === '3.10' ? undefined : 0);
  });

  it("relays the node's Erlang VM families as its plugin serves them, with erlang_vm: its limits and processor counts equal the plugin's", async () => {
    const relaying = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: guest\n  password: guest\ncollectors:\n${pluginConfig([`urls: [${broker.prometheusUrl}]`, 'erlang_vm: true'])}`,
    });
    try {
      const plugin = samples(await (await fetch(`${broker.prometheusUrl}/metrics`)).text());
      // Figures that stay put while the node runs, in every version's names.
      const steady = ['erlang_vm_process_limit', 'erlang_vm_port_limit', 'erlang_vm_ets_limit', 'erlang_vm_atom_limit', 'erlang_vm_logical_processors', 'erlang_vm_schedulers'].filter((name) => plugin.has(name));
      expect(steady.length).toBeGreaterThanOrEqual(4);
      const text = await eventually(async () => {
        const { text: t } = await relaying.metrics();
        return t.includes('\nerlang_vm_process_limit{') ? t : undefined;
      }, 60_000, 'erlang_vm_process_limit relayed');
      const served = samples(text);
      for (const name of steady) expect(served.get(`${name}{node="${broker.nodeName}"}`), name).toBe(plugin.get(name));
      // And what changes, there: the node's memory by kind, in either version's name.
      expect([...served.keys()].filter((k) => /^erlang_vm_memory_bytes(_total)?\{kind="(processes|system)",node=/.test(k))).toHaveLength(2);
      // promtool's only complaints are of the plugin's own names before 4.3 (as of the plugin's /metrics itself); 4.3's pass.
      const complaints = (await checkMetricsWithPromtool(text)).output.split('\n').filter((line) => line.trim() !== '');
      for (const line of complaints) expect(line).toMatch(/^erlang_vm_[a-z0-9_]+ /);
    } finally {
      await relaying.stop();
    }
  }, 120_000);

  it('serves the queue counters from the API, equal to what the plugin counts, and the plugin\'s own series per node', async () => {
    const series = (name: string) => `${name}{vhost="/",queue="${queue}"}`;
    for (const [name, counter, want] of [['rabbitmq_queue_messages_published_total', 'published', 5], ['rabbitmq_queue_messages_acked_total', 'acked', 3], ['rabbitmq_queue_get_ack_total', 'get_ack', 3]] as const) {
      const fromApi = await eventually(async () => ((await exporter.value(series(name))) === want ? want : undefined), 60_000, `${name} of ${queue} to be ${want} (from the API)`);
      const [family, metric] = pluginCounter(broker, counter);
      const fromPlugin = await eventually(async () => ((await pluginSays(broker, family, metric, queue)) === want ? want : undefined), 60_000, `the plugin's ${metric} of ${queue} to be ${want}`);
      expect(fromApi, name).toBe(fromPlugin);
    }
    const text = await afterFirstPolls(exporter, 30_000);
    const values = samples(text);
    expect(values.get('rabbitmq_exporter_plugin_queue_counters_served')).toBe(0);
    expect(values.get(`rabbitmq_exporter_plugin_node_up{node="${broker.nodeName}"}`)).toBe(1);
    expect(values.get(`rabbitmq_exporter_plugin_node_up{node="${refusing}"}`)).toBe(0);
    expect(values.get(`rabbitmq_exporter_plugin_node_failure_info{node="${refusing}",reason="network"}`)).toBe(1);
    // The refusing listener is its node's failure alone: the collector, the target and the other node's series stand.
    expect(values.get('rabbitmq_exporter_collector_success{collector="plugin"}')).toBe(1);
    expect(values.get('rabbitmq_up')).toBe(1);
    expect(values.get(`rabbitmq_node_messages_received_total{node="${broker.nodeName}",protocol="amqp091"}`)).toBeGreaterThanOrEqual(5);
    expect(values.get(`rabbitmq_node_auth_attempts_succeeded_total{node="${broker.nodeName}",protocol="amqp091"}`)).toBeGreaterThanOrEqual(1);
    expect(exporter.logs()).toMatch(/rabbitmq_prometheus of a node failed/);
    expect((await checkMetricsWithPromtool(text)).output).toBe('');
  });
});

describeWithBroker('the plugin source with statistics disabled: the queue counters come from the plugin', () => {
  let broker: BrokerHandle;
  let exporter: ExporterProcess;
  let conn: amqp.ChannelModel;
  const queue = 'plugin-off-q';

  beforeAll(async () => {
    broker = await startBroker({ version: getBroker()?.brokerVersion, nodeNamePrefix: 'rmqexp-plugin', extraConfig: STATS_OFF });
    const api = managementApi(broker);
    await api('PUT', `/api/queues/%2F/${queue}`, { durable: true });
    conn = await amqp.connect(broker.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 6; i++) ch.sendToQueue(queue, Buffer.from(`m${i}`), { persistent: true });
    await ch.waitForConfirms();
    for (let i = 0; i < 4; i++) {
      const message = await ch.get(queue, { noAck: false });
      if (message) ch.ack(message);
    }
    await ch.get(queue, { noAck: true });
    // Found through /api/nodes: the node's name is rmqexp-plugin-...@localhost, its plugin on its own port.
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: guest\n  password: guest\ncollectors:\n${pluginConfig([`port: ${broker.prometheusPort}`])}`,
    });
  }, 180_000);

  afterAll(async () => {
    await exporter?.stop();
    await conn?.close().catch(() => undefined);
    await broker?.stop();
  }, 60_000);

  it('serves published, acked and gets under the queue collector\'s names, equal to the plugin and to rabbitmqctl\'s depth', async () => {
    const series = (name: string) => `${name}{vhost="/",queue="${queue}"}`;
    const served: Record<string, number> = {};
    for (const [name, counter, want] of [['rabbitmq_queue_messages_published_total', 'published', 6], ['rabbitmq_queue_messages_acked_total', 'acked', 4], ['rabbitmq_queue_get_ack_total', 'get_ack', 4], ['rabbitmq_queue_get_total', 'get', 1]] as const) {
      served[counter] = await eventually(async () => ((await exporter.value(series(name))) === want ? want : undefined), 60_000, `${name} of ${queue} to be ${want} (from the plugin)`);
      const [family, metric] = pluginCounter(broker, counter);
      expect(await pluginSays(broker, family, metric, queue), metric).toBe(served[counter]);
    }
    expect(await exporter.value(series('rabbitmq_queue_messages_delivered_or_got_total'))).toBe(5);
    // What is left in the queue is what was published and neither acked nor taken without ack.
    const listed = await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages']);
    const depth = Number(/^plugin-off-q\s+(\d+)$/m.exec(listed)?.[1]);
    expect(depth).toBe(served.published! - served.acked! - served.get!);
    const text = await afterFirstPolls(exporter, 30_000);
    const values = samples(text);
    expect(values.get('rabbitmq_queue_statistics_degraded')).toBe(1);
    expect(values.get('rabbitmq_exporter_plugin_queue_counters_served')).toBe(1);
    expect(values.get(`rabbitmq_exporter_plugin_node_up{node="${broker.nodeName}"}`)).toBe(1);
    // One family, one collector: the counter is served once, by the plugin collector.
    expect(text.match(/^# TYPE rabbitmq_queue_messages_published_total /gm)).toHaveLength(1);
    expect((await checkMetricsWithPromtool(text)).output).toBe('');
  });
});
