// Node targets on a real two-node cluster, scraped by a real Prometheus that finds them through
// the exporter's http_sd endpoint, as rabbitmq_prometheus is scraped: one target per node. The
// variable query of RabbitMQ-Overview (label_values(rabbitmq_identity_info, rabbitmq_node)) must
// return both nodes, the per-node join of the upstream content (on(instance, job)
// group_left(rabbitmq_node) rabbitmq_identity_info) one series per node, each node's versions
// rabbitmqctl's, "count the nodes" (sum(rabbitmq_build_info)) two, and each node's connections,
// channels and received messages its own plugin's.
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { overviewMetrics } from '../../src/collectors/overview/metrics.js';
import { startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { joinCluster } from '../harness/broker/cluster.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { samples } from '../support/parse-exposition.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';
import { managementApi } from './support/management-api.js';
import { pluginConfig } from './support/plugin-readings.js';
import { describeWithBroker } from './support/with-broker.js';

/** A quorum queue declared through the second node's API (its leader is the declaring node), a classic queue on the first. */
const ON_SECOND = 'ntgt-quorum-on-2';
const ON_FIRST = 'ntgt-classic-on-1';

/** What rabbitmqctl status says of a node's versions. */
async function statusVersions(node: BrokerHandle): Promise<{ rabbitmq: string; erlang: string }> {
  const status = JSON.parse(await node.ctl(['status', '--formatter', 'json'])) as { rabbitmq_version: string; erlang_version: string };
  return { rabbitmq: status.rabbitmq_version, erlang: status.erlang_version };
}

describeWithBroker('node targets of a two-node cluster, found by a real Prometheus through /discovery/nodes', (shared) => {
  let rabbit1: BrokerHandle | undefined;
  let rabbit2: BrokerHandle | undefined;
  let exporter: ExporterProcess | undefined;
  let prometheus: PrometheusProcess | undefined;
  let nodes: string[];
  const connections: amqp.ChannelModel[] = [];

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error("prometheus is not installed (.ci/run installs Debian's prometheus package)");
    const version = shared.brokerVersion;
    rabbit1 = await startBroker({ version, nodeNamePrefix: 'ntgt1' });
    rabbit2 = await startBroker({ version, nodeNamePrefix: 'ntgt2', peerOf: rabbit1.info });
    await joinCluster(rabbit2, rabbit1.info);
    nodes = [rabbit1.nodeName, rabbit2.nodeName];
    await managementApi(rabbit2)('PUT', `/api/queues/%2F/${ON_SECOND}`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await managementApi(rabbit1)('PUT', `/api/queues/%2F/${ON_FIRST}`, { durable: true, arguments: {} });
    const publish = (queue: string, count: number) =>
      Promise.all(Array.from({ length: count }, () => managementApi(rabbit1!)('POST', '/api/exchanges/%2F/amq.default/publish', { properties: { delivery_mode: 2 }, routing_key: queue, payload: 'x', payload_encoding: 'string' })));
    await publish(ON_SECOND, 3);
    await publish(ON_FIRST, 5);
    exporter = await startExporter({
      configYaml: `web:\n  per_node_scrapes: true\npoll:\n  interval: 1s\ntarget:\n  url: ${rabbit1.managementUrl}\n  username: guest\n  password: guest\ncollectors:\n${pluginConfig([`urls: [${rabbit1.prometheusUrl}, ${rabbit2.prometheusUrl}]`])}`,
    });
    prometheus = await startPrometheus([], '1s', {
      scrapeConfigs: `scrape_configs:
  - job_name: rabbitmq-nodes
    http_sd_configs:
      - url: ${exporter.url}/discovery/nodes
        refresh_interval: 1s
`,
    });
  }, 400_000);

  afterAll(async () => {
    for (const connection of connections) await connection.close().catch(() => undefined);
    await prometheus?.stop();
    await exporter?.stop();
    // The joined node first: the seed owns the shared epmd.
    await rabbit2?.stop();
    await rabbit1?.stop();
  }, 120_000);

  it('lists both nodes, each scraped as a target of its own, and RabbitMQ-Overview\'s node variable returns both', async () => {
    const discovered = await eventually(
      async () => {
        const groups = (await (await fetch(`${exporter!.url}/discovery/nodes`)).json()) as { labels: Record<string, string> }[];
        return groups.length === 3 ? groups : undefined;
      },
      60_000,
      'the target and both nodes on /discovery/nodes',
    );
    expect(discovered.map((g) => g.labels.__param_node).sort()).toEqual([...nodes, undefined].sort());
    const instances = ['default', ...nodes.map((n) => `default/${n}`)].sort();
    const up = await eventually(
      async () => {
        const result = await prometheus!.query('up{job="rabbitmq-nodes"} == 1');
        return result.length === 3 ? result : undefined;
      },
      60_000,
      'Prometheus to scrape the target and both node targets with up=1',
    );
    expect(up.map((s) => s.metric.instance).sort()).toEqual(instances);
    // Each target's identity: the nodes', and the cluster target's without a node.
    const identity = await prometheus!.query('group by (rabbitmq_node, rabbitmq_cluster, instance) (rabbitmq_identity_info)');
    expect(identity.map((s) => [s.metric.instance, s.metric.rabbitmq_node ?? '']).sort()).toEqual([['default', ''], ...nodes.map((n) => [`default/${n}`, n])].sort());
    // What Grafana asks Prometheus for that variable: the label's values over the series matched.
    const nodeValues = await prometheus!.api<string[]>(`/api/v1/label/rabbitmq_node/values?match[]=${encodeURIComponent('rabbitmq_identity_info')}`);
    expect([...nodeValues].sort()).toEqual([...nodes].sort());
    const clusterName = (await (await fetch(`${rabbit1!.managementUrl}/api/cluster-name`, { headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` } })).json()) as { name: string };
    expect(new Set(identity.map((s) => s.metric.rabbitmq_cluster))).toEqual(new Set([clusterName.name]));
    // Every sample of each node's scrape accepted.
    for (const path of ['/probe?target=default', ...nodes.map((n) => `/probe?target=default&node=${encodeURIComponent(n)}`)]) {
      const check = await checkMetricsWithPromtool(await (await fetch(`${exporter!.url}${path}`)).text());
      expect(check.ok, check.output).toBe(true);
    }
  });

  it('a per-node panel of the upstream content shows one series per node, each the node\'s own', async () => {
    // RabbitMQ-Overview's file-descriptor panel, template variables aside.
    const query = 'rabbitmq_process_open_fds * on(instance, job) group_left(rabbitmq_node) rabbitmq_identity_info';
    const series = await eventually(
      async () => {
        const result = await prometheus!.query(query);
        return result.length === 2 ? result : undefined;
      },
      60_000,
      `two series of ${query}`,
    );
    expect(series.map((s) => s.metric.rabbitmq_node).sort()).toEqual([...nodes].sort());
    for (const s of series) expect(s.metric.node).toBe(s.metric.rabbitmq_node);
    // Nothing of the cluster as a whole, nothing of the exporter's own, on a node target: on the target itself, once.
    const onNodes = 'instance=~"default/.+"';
    expect(await prometheus!.query(`rabbitmq_exchanges{${onNodes}}`)).toEqual([]);
    expect(await prometheus!.query(`rabbitmq_up{${onNodes}}`)).toEqual([]);
    expect(await prometheus!.query(`{${onNodes}, __name__=~"rabbitmq_exporter_.*"}`)).toEqual([]);
    expect((await prometheus!.query('rabbitmq_up')).map((s) => s.metric.instance)).toEqual(['default']);
    // A node's series on its own target only: not again on the target's.
    expect(await prometheus!.query('rabbitmq_process_open_fds{instance="default"}')).toEqual([]);
  });

  it("each node's rabbitmq_build_info carries its versions as rabbitmqctl status gives them, and counting them counts the nodes", async () => {
    const count = await eventually(
      async () => {
        const [sample] = await prometheus!.query('sum(rabbitmq_build_info)');
        return sample?.value[1] === '2' ? sample : undefined;
      },
      60_000,
      'sum(rabbitmq_build_info) to be 2',
    );
    expect(count.value[1]).toBe('2');
    const builds = await prometheus!.query('rabbitmq_build_info');
    expect(builds).toHaveLength(2);
    // One rabbitmqctl status per node, side by side: each boots an Erlang VM in the chroot, and four in a row ran past the test's 120 s in a fresh-clone run on 4.0 and 4.3.
    const statuses = new Map(await Promise.all([rabbit1!, rabbit2!].map(async (handle) => [handle, await statusVersions(handle)] as const)));
    const [major, minor] = statuses.get(rabbit1!)!.rabbitmq.split('.').map(Number) as [number, number];
    const perNodeVersions = major > 4 || (major === 4 && minor >= 3);
    for (const handle of [rabbit1!, rabbit2!]) {
      const status = statuses.get(handle)!;
      const build = builds.find((s) => s.metric.node === handle.nodeName);
      expect(build?.metric.instance).toBe(`default/${handle.nodeName}`);
      expect(build?.metric.rabbitmq_version).toBe(status.rabbitmq);
      // rabbitmqctl's is the full banner ("Erlang/OTP 25 [erts-13.1.5] ..."); /api/nodes reports it per node from 4.3, nothing before.
      expect(build?.metric.erlang_full_version).toBe(perNodeVersions ? status.erlang : undefined);
    }
    // The node that answered /api/overview knows its Erlang version on every broker.
    const answering = builds.find((s) => s.metric.node === rabbit1!.nodeName);
    expect(answering?.metric.erlang_version).toMatch(/^\d+(\.\d+)*$/);
    expect(statuses.get(rabbit1!)!.erlang).toContain(`Erlang/OTP ${answering!.metric.erlang_version!.split('.')[0]}`);
  });

  it("a queue's series are on the target of the node rabbitmq_queue_info places it on, and the per-node sums are rabbitmqctl's", async () => {
    // Each queue's ready messages as rabbitmqctl counts them, on the node the management API places it (a quorum queue's leader).
    const listed = await rabbit1!.ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages_ready']);
    const ready = new Map<string, number>();
    for (const line of listed.trim().split('\n')) {
      const [name, messages] = line.trim().split(/\s+/) as [string, string];
      if (name !== ON_FIRST && name !== ON_SECOND) continue;
      // 3.10 gives a quorum queue's leader as `leader` only.
      const placed = await managementApi(rabbit1!)<{ node?: string; leader?: string }>('GET', `/api/queues/%2F/${name}?columns=node,leader`);
      const node = placed.leader ?? placed.node ?? '';
      ready.set(node, (ready.get(node) ?? 0) + Number(messages));
    }
    expect(ready).toEqual(new Map([[rabbit1!.nodeName, 5], [rabbit2!.nodeName, 3]]));
    // RabbitMQ-Overview's "messages ready" by node, template variables aside.
    const query = 'sum by (rabbitmq_node) (rabbitmq_queue_messages_ready * on(instance, job) group_left(rabbitmq_node) rabbitmq_identity_info)';
    const byNode = await eventually(
      async () => {
        const result = await prometheus!.query(query);
        const got = new Map(result.map((s) => [s.metric.rabbitmq_node!, Number(s.value[1])]));
        return got.get(rabbit1!.nodeName) === 5 && got.get(rabbit2!.nodeName) === 3 ? got : undefined;
      },
      60_000,
      `${query} to be 5 on the first node and 3 on the second`,
    );
    expect(byNode).toEqual(ready);
    const [onSecond] = await prometheus!.query(`rabbitmq_queue_messages_ready{queue="${ON_SECOND}", job="rabbitmq-nodes"}`);
    expect(onSecond?.metric.instance).toBe(`default/${rabbit2!.nodeName}`);
  });

  it("each node target's rabbitmq_detailed_queue_messages and _consumers are its plugin's /metrics/detailed, as the cluster operator's per-queue alerts query them", async () => {
    const ours = new Set([ON_FIRST, ON_SECOND]);
    /** node → "queue messages consumers" of our queues, sorted. */
    const fromPlugin = async () => {
      const seen: Record<string, string[]> = {};
      for (const handle of [rabbit1!, rabbit2!]) {
        const text = await (await fetch(`${handle.prometheusUrl}/metrics/detailed?family=queue_coarse_metrics&family=queue_consumer_count`, { signal: AbortSignal.timeout(15_000) })).text();
        const values = new Map<string, Record<string, string>>();
        for (const line of text.split('\n')) {
          const match = /^rabbitmq_detailed_queue_(messages|consumers)\{vhost="\/",queue="([^"]+)"\} (\S+)$/.exec(line);
          if (match && ours.has(match[2]!)) values.set(match[2]!, { ...values.get(match[2]!), [match[1]!]: match[3]! });
        }
        seen[handle.nodeName] = [...values].map(([queue, v]) => `${queue} ${v.messages} ${v.consumers}`).sort();
      }
      return seen;
    };
    const fromTargets = async () => {
      const seen: Record<string, string[]> = { [rabbit1!.nodeName]: [], [rabbit2!.nodeName]: [] };
      const values = new Map<string, Record<string, string>>();
      for (const what of ['messages', 'consumers']) {
        for (const s of await prometheus!.query(`rabbitmq_detailed_queue_${what}{job="rabbitmq-nodes"} * on(instance, job) group_left(rabbitmq_node) rabbitmq_identity_info`)) {
          if (!ours.has(s.metric.queue!)) continue;
          const key = `${s.metric.rabbitmq_node}\t${s.metric.queue}`;
          values.set(key, { ...values.get(key), [what]: s.value[1] });
        }
      }
      for (const [key, v] of values) {
        const [node, queue] = key.split('\t') as [string, string];
        seen[node] = [...(seen[node] ?? []), `${queue} ${v.messages} ${v.consumers}`];
      }
      for (const list of Object.values(seen)) list.sort();
      return seen;
    };
    let last: unknown;
    const agreed = await eventually(
      async () => {
        const [plugin, targets] = [await fromPlugin(), await fromTargets()];
        last = { plugin, targets };
        return JSON.stringify(plugin) === JSON.stringify(targets) ? plugin : undefined;
      },
      60_000,
      'the node targets\' detailed queue series to be the plugin\'s',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(last)}`);
    });
    // Each queue once, on its node (a quorum queue's leader): 5 messages on the first, 3 on the second.
    expect(agreed).toEqual({ [rabbit1!.nodeName]: [`${ON_FIRST} 5 0`], [rabbit2!.nodeName]: [`${ON_SECOND} 3 0`] });
  });

  it("each node target's connections, channels, queues, received messages and (4.1+) message sizes are that node's plugin's own, and summed over the targets the cluster's", async () => {
    // Two connections of two channels each on the first node, one of one channel on the second, which publishes 4 messages.
    for (const [handle, channels] of [[rabbit1!, 2], [rabbit1!, 2], [rabbit2!, 1]] as const) {
      const connection = await amqp.connect({ protocol: 'amqp', hostname: '127.0.0.1', port: handle.amqpPort, username: 'guest', password: 'guest' });
      connections.push(connection);
      for (let i = 0; i < channels; i++) {
        const channel = await connection.createConfirmChannel();
        if (handle === rabbit2) {
          for (let m = 0; m < 4; m++) channel.sendToQueue(ON_FIRST, Buffer.from('x'));
          await channel.waitForConfirms();
        }
        // A consumer of each queue on a channel of each node.
        if (i === 0 && connections.length !== 2) {
          await channel.consume(ON_FIRST, () => undefined, { noAck: false });
          await channel.consume(ON_SECOND, () => undefined, { noAck: false });
        }
      }
    }
    /** What the node's plugin itself serves of each family: its lines summed. */
    const pluginSums = async (handle: BrokerHandle, families: readonly string[]): Promise<Record<string, number>> => {
      const text = await (await fetch(`${handle.prometheusUrl}/metrics`, { signal: AbortSignal.timeout(15_000) })).text();
      const sum = (family: string) => text.split('\n').filter((l) => l.startsWith(`${family} `) || l.startsWith(`${family}{`)).reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      return Object.fromEntries(families.map((family) => [family, sum(family)]));
    };
    // The plugin's histogram of message sizes is there from 4.1 on.
    const messageSizes = shared.brokerVersion === '4.3' ? ['rabbitmq_message_size_bytes_count', 'rabbitmq_message_size_bytes_sum'] : [];
    const pluginOwn = (handle: BrokerHandle) =>
      pluginSums(handle, ['rabbitmq_connections', 'rabbitmq_channels', 'rabbitmq_queues', 'rabbitmq_global_messages_received_total', 'rabbitmq_channel_messages_published_total', ...messageSizes]);
    const byNode = async (family: string) =>
      new Map((await prometheus!.query(`sum by (rabbitmq_node) (${family} * on(instance, job) group_left(rabbitmq_node) rabbitmq_identity_info)`)).map((s) => [s.metric.rabbitmq_node!, Number(s.value[1])]));
    let seen: Record<string, unknown> = {};
    const agreed = await eventually(
      async () => {
        seen = {};
        for (const handle of [rabbit1!, rabbit2!]) {
          const own = await pluginOwn(handle);
          const served: Record<string, number | undefined> = {};
          for (const family of Object.keys(own)) served[family] = (await byNode(family)).get(handle.nodeName);
          seen[handle.nodeName] = { plugin: own, exporter: served };
          if (JSON.stringify(served) !== JSON.stringify(own)) return undefined;
        }
        return seen;
      },
      60_000,
      "each node target's connections, channels, queues, received and published messages to be its plugin's",
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(seen)}`);
    });
    expect(agreed[rabbit1!.nodeName]).toMatchObject({ plugin: { rabbitmq_connections: 2, rabbitmq_channels: 4 } });
    expect(agreed[rabbit2!.nodeName]).toMatchObject({ plugin: { rabbitmq_connections: 1, rabbitmq_channels: 1, rabbitmq_channel_messages_published_total: 4 } });
    if (messageSizes.length > 0) expect((agreed[rabbit2!.nodeName] as { plugin: Record<string, number> }).plugin.rabbitmq_message_size_bytes_count).toBeGreaterThanOrEqual(4);
    // Consumers are counted on their queue's node (a quorum queue's leader), as the API places
    // them; the plugin counts a quorum queue's consumer on its channel's node instead (classic
    // ones on the queue's): per node the two differ here, summed over the nodes they agree.
    const pluginConsumers = async (handle: BrokerHandle) => (await pluginSums(handle, ['rabbitmq_consumers'])).rabbitmq_consumers;
    expect([await pluginConsumers(rabbit1!), await pluginConsumers(rabbit2!)]).toEqual([3, 1]);
    const consumersByNode = async () => {
      const consumers = await byNode('rabbitmq_consumers');
      return [consumers.get(rabbit1!.nodeName), consumers.get(rabbit2!.nodeName)];
    };
    expect(await eventually(async () => { const seen = await consumersByNode(); return seen.join() === '2,2' ? seen : undefined; }, 60_000, 'two consumers served on each queue\'s node').catch(async (error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(await consumersByNode())}`);
    })).toEqual([2, 2]);
    // The cluster target leaves its whole out beside them: summed over every target, each connection counts once.
    const overview = await managementApi(rabbit1!)<{ object_totals: { connections: number } }>('GET', '/api/overview');
    expect(overview.object_totals.connections).toBe(3);
    expect((await prometheus!.query('sum(rabbitmq_connections)')).map((s) => s.value[1])).toEqual(['3']);
    expect(await prometheus!.query('rabbitmq_connections{instance="default"}')).toEqual([]);
    expect((await prometheus!.query('sum(rabbitmq_consumers)')).map((s) => s.value[1])).toEqual(['4']);
  });

  it('node targets ask the broker nothing: after one round of polls, scraping every node target leaves the request count where one cluster target\'s is', async () => {
    // Two exporters of the same cluster that poll once (the next polls an hour away), one with node targets, one without.
    const config = (perNode: boolean) =>
      `web:\n  per_node_scrapes: ${perNode}\npoll:\n  interval: 1h\ntarget:\n  url: ${rabbit1!.managementUrl}\n  username: guest\n  password: guest\n`;
    const [withNodes, without] = await Promise.all([startExporter({ configYaml: config(true) }), startExporter({ configYaml: config(false) })]);
    try {
      const requests = (text: string) => Number(/^rabbitmq_exporter_management_requests_total (\S+)$/m.exec(text)?.[1]);
      // With node targets the target's own series (its polls, its requests) are on the cluster target, not /metrics.
      const ownSeries = async (exporter: ExporterProcess) => (await fetch(`${exporter.url}${exporter === withNodes ? '/probe?target=default' : '/metrics'}`)).text();
      /** The request count once every enabled collector has polled. */
      const afterFirstRound = (exporter: ExporterProcess) =>
        eventually(
          async () => {
            const text = await ownSeries(exporter);
            const enabled = [...text.matchAll(/^rabbitmq_exporter_collector_enabled\{collector="([^"]+)"\} 1$/gm)].map((m) => m[1]);
            const polled = new Set([...text.matchAll(/^rabbitmq_exporter_collector_duration_seconds\{collector="([^"]+)"\}/gm)].map((m) => m[1]));
            return enabled.length > 0 && enabled.every((c) => polled.has(c)) ? requests(text) : undefined;
          },
          60_000,
          'every enabled collector to have polled once',
        );
      const [before, cluster] = await Promise.all([afterFirstRound(withNodes), afterFirstRound(without)]);
      expect(before).toBeGreaterThan(0);
      for (let i = 0; i < 10; i++) {
        for (const node of nodes) expect((await fetch(`${withNodes.url}/probe?target=default&node=${encodeURIComponent(node)}`)).status).toBe(200);
        expect((await fetch(`${withNodes.url}/probe?target=default`)).status).toBe(200);
        await fetch(`${withNodes.url}/discovery/nodes`);
      }
      const after = requests(await ownSeries(withNodes));
      expect(after).toBe(before);
      expect(after).toBe(cluster);
      // The overview's message counters that nothing moves here (no basic.get, redelivery or
      // unroutable message) are served, each the API's value or 0 where the broker does not list
      // it yet (older brokers leave unmoved ones out; the unit tests cover that case), as the plugin serves them.
      const overview = await managementApi(rabbit1!)<{ message_stats?: Record<string, unknown> }>('GET', '/api/overview');
      const served = samples(await ownSeries(without));
      const unmoved = ['get_empty', 'get', 'get_no_ack', 'redeliver', 'drop_unroutable', 'return_unroutable'];
      const rows = Object.values(overviewMetrics).filter((def) => unmoved.some((field) => def.source?.field === `message_stats.${field}`));
      expect(rows).toHaveLength(unmoved.length);
      for (const def of rows) {
        const field = def.source!.field.slice('message_stats.'.length);
        expect([field, served.get(def.name)]).toEqual([field, Number(overview.message_stats?.[field] ?? 0)]);
      }
    } finally {
      await Promise.all([withNodes.stop(), without.stop()]);
    }
  });
});
