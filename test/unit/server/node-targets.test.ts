import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { channelMessageStats } from '../../../src/collectors/channels/metrics.js';
import { connectionMetrics } from '../../../src/collectors/connections/metrics.js';
import { nodeMetrics } from '../../../src/collectors/nodes/metrics.js';
import { pluginMetrics } from '../../../src/collectors/plugin/metrics.js';
import { overviewMetrics } from '../../../src/collectors/overview/metrics.js';
import { queueMetrics } from '../../../src/collectors/queues/metrics.js';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { newHttpCounters } from '../../../src/pipeline/own-series.js';
import type { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { SnapshotStore } from '../../../src/pipeline/snapshot-store.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import { targetStatus, targetVerdict } from '../../../src/pipeline/target-status.js';
import { type AppOptions, createApp, NODE_DISCOVERY_PATH } from '../../../src/server/app.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import type { ServedTarget } from '../../../src/server/served-target.js';

const A = 'rabbit@a';
/** A node name with what a label value must escape. */
const ODD = 'rabbit@"b\\c"';

const Test = defineMetrics('nodes', {
  quorum: { name: 'rabbitmq_test_quorum_members', type: 'gauge', labels: ['vhost', 'node'], help: 'test: node not the first label' },
  lookalike: { name: 'rabbitmq_test_lookalike', type: 'gauge', labels: ['node', 'leader_node'], help: 'test: another label ending in node, naming another node' },
});

const Plugin = defineMetrics('plugin', {
  published: { name: 'rabbitmq_test_queue_published_total', type: 'counter', labels: ['vhost', 'queue'], help: 'test: a per-queue family of another collector' },
});

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

function target(name: string, cluster: string, nodes: readonly string[], vhostsPerNode = 1): ServedTarget & { state: TargetState } {
  const state = new TargetState(name, 'http://broker.example:15672');
  state.register('overview', 15_000, 45_000, { decidesUp: true });
  state.register('nodes', 15_000, 45_000);
  const store = new SnapshotStore(state, { requests: 3, bytesRead: 100 }, newHttpCounters(), { families: async () => [] } as unknown as ProcessMetrics, undefined, 'native', {
    broker: () => ({ clusterName: cluster, node: nodes[0]! }),
    running: new Map(),
  });
  const overview = new SampleSink();
  overview.add(overviewMetrics.identity, [cluster], 1);
  overview.add(overviewMetrics.queues, [], 7);
  overview.add(overviewMetrics.connections, [], 5);
  overview.add(overviewMetrics.channels, [], 9);
  overview.add(overviewMetrics.received, [], 100);
  overview.add(overviewMetrics.delivered, [], 50);
  overview.add(overviewMetrics.build, { rabbitmq_version: '4.3.0', erlang_version: '27.3', management_version: '4.3.0', product_name: 'RabbitMQ', product_version: '4.3.0' }, 1);
  overview.add(overviewMetrics.listener, { node: A, protocol: 'amqp', ip_address: '::', port: '5672' }, 1);
  state.succeeded('overview', overview.finish(), 0.05, 0);
  const sink = new SampleSink();
  nodes.forEach((node, i) => {
    sink.add(nodeMetrics.info, { node, type: 'disc', mem_calculation_strategy: 'rss', rates_mode: 'basic' }, 1);
    sink.add(nodeMetrics.build, { node, rabbitmq_version: `4.3.${i}`, erlang_version: '27.3', erlang_full_version: '', crypto_lib_version: '' }, 1);
    sink.add(nodeMetrics.fdUsed, [node], 100 + i);
    sink.add(Test.quorum, ['/', node], 3 + i);
    for (let v = 1; v < vhostsPerNode; v++) sink.add(Test.quorum, [`vhost-${v}`, node], v);
    // Each node's line names the other node in leader_node: only its own is on its target.
    sink.add(Test.lookalike, [node, nodes[(i + 1) % nodes.length]!], 1);
  });
  state.succeeded('nodes', sink.finish(), 0.1, 0);
  return { state, ...served(state, store) };
}

/** What src/target.ts hands the server, made of a state and its store. */
function served(state: TargetState, store: SnapshotStore): ServedTarget {
  return {
    name: state.name,
    ready: state.firstPollAttempted,
    exposition: (gzipFormat) => store.forScrape(gzipFormat),
    nodes: () => store.nodes(),
    restExposition: (gzipFormat) => store.forRestScrape(gzipFormat),
    nodeExposition: (node, gzipFormat) => store.forNodeScrape(node, gzipFormat),
    verdict: () => targetVerdict(state),
    status: () => targetStatus(state),
  };
}

async function start(targets: ServedTarget[], options: AppOptions = { perNodeScrapes: true }): Promise<string> {
  const server = createApp(() => targets, pino({ level: 'silent' }), options).listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function probe(base: string, targetName: string, node: string): string {
  return `${base}/probe?target=${encodeURIComponent(targetName)}&node=${encodeURIComponent(node)}`;
}

describe('node targets', () => {
  it(`${NODE_DISCOVERY_PATH} lists every target and every node of it in http_sd format, addressed as the request addressed the exporter`, async () => {
    const base = await start([target('east', 'cluster-east', [A, ODD]), target('west', 'cluster-west', ['rabbit@w'])]);
    const res = await fetch(`${base}${NODE_DISCOVERY_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const host = new URL(base).host;
    expect(await res.json()).toEqual([
      { targets: [host], labels: { __metrics_path__: '/probe', __param_target: 'east', instance: 'east' } },
      { targets: [host], labels: { __metrics_path__: '/probe', __param_target: 'east', __param_node: A, instance: `east/${A}` } },
      { targets: [host], labels: { __metrics_path__: '/probe', __param_target: 'east', __param_node: ODD, instance: `east/${ODD}` } },
      { targets: [host], labels: { __metrics_path__: '/probe', __param_target: 'west', instance: 'west' } },
      { targets: [host], labels: { __metrics_path__: '/probe', __param_target: 'west', __param_node: 'rabbit@w', instance: 'west/rabbit@w' } },
    ]);
  });

  it("serves a node's series, its identity and its versions, and nothing of the other node, the cluster as a whole or the exporter", async () => {
    const base = await start([target('east', 'cluster-east', [A, ODD])]);
    const res = await fetch(probe(base, 'east', A));
    expect(res.status).toBe(200);
    const text = await res.text();
    const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(samples.sort()).toEqual(
      [
        `rabbitmq_identity_info{rabbitmq_cluster="cluster-east",rabbitmq_node="${A}"} 1`,
        `rabbitmq_build_info{node="${A}",rabbitmq_version="4.3.0",erlang_version="27.3",erlang_full_version="",crypto_lib_version=""} 1`,
        `rabbitmq_node_build_info{node="${A}",rabbitmq_version="4.3.0",erlang_version="27.3",erlang_full_version="",crypto_lib_version=""} 1`,
        `rabbitmq_node_info{node="${A}",type="disc",mem_calculation_strategy="rss",rates_mode="basic"} 1`,
        `rabbitmq_process_open_fds{node="${A}"} 100`,
        `rabbitmq_test_quorum_members{vhost="/",node="${A}"} 3`,
        `rabbitmq_test_lookalike{node="${A}",leader_node="${ODD.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"} 1`,
        `rabbitmq_listener_info{node="${A}",protocol="amqp",ip_address="::",port="5672"} 1`,
      ].sort(),
    );
    expect(text).toContain('# TYPE rabbitmq_build_info gauge\n');
  });

  it('finds a node whose name holds quotes and backslashes, by its escaped label value', async () => {
    const base = await start([target('east', 'cluster-east', [A, ODD])]);
    const text = await (await fetch(probe(base, 'east', ODD))).text();
    expect(text).toContain('rabbitmq_process_open_fds{node="rabbit@\\"b\\\\c\\""} 101\n');
    expect(text).toContain('rabbitmq_identity_info{rabbitmq_cluster="cluster-east",rabbitmq_node="rabbit@\\"b\\\\c\\""} 1\n');
    expect(text).not.toMatch(new RegExp(`[{,]node="${A}"`));
    expect(text).toContain(`rabbitmq_test_lookalike{node="rabbit@\\"b\\\\c\\"",leader_node="${A}"} 1\n`);
  });

  it('gzips a node target on request, to the same text', async () => {
    const base = await start([target('east', 'cluster-east', [A, ODD])]);
    const plain = await (await fetch(probe(base, 'east', A), { headers: { 'accept-encoding': 'identity' } })).text();
    const res = await fetch(probe(base, 'east', A), { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    // fetch gunzips: compare with a hand-made gunzip of the raw bytes too.
    expect(await res.text()).toBe(plain);
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ get }) => {
        get(probe(base, 'east', A), { headers: { 'accept-encoding': 'gzip' } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve(Buffer.concat(chunks)));
        }).on('error', reject);
      }, reject);
    });
    expect(gunzipSync(raw).toString('utf8')).toBe(plain);
  });

  it("a node's share of a large family (kept deflated) holds every one of its lines", async () => {
    const base = await start([target('east', 'cluster-east', [A, 'rabbit@b'], 3_000)]);
    const text = await (await fetch(probe(base, 'east', 'rabbit@b'))).text();
    const lines = text.split('\n').filter((line) => line.startsWith('rabbitmq_test_quorum_members{'));
    expect(lines).toHaveLength(3_000);
    expect(lines.join('\n').length).toBeGreaterThan(64 * 1024);
    expect(lines.every((line) => line.includes(',node="rabbit@b"}'))).toBe(true);
    expect(lines).toContain('rabbitmq_test_quorum_members{vhost="vhost-2999",node="rabbit@b"} 2999');
  });

  it("serves the series of the queues rabbitmq_queue_info places on the node, of every collector, and no other queue's", async () => {
    const t = target('east', 'cluster-east', [A, 'rabbit@b']);
    t.state.register('queues', 15_000, 45_000);
    t.state.register('plugin', 15_000, 45_000);
    const queues = new SampleSink();
    const plugin = new SampleSink();
    const placed: [string, string, string][] = [['/', 'q1', A], ['/', 'q2', 'rabbit@b'], ['odd "vhost"', 'q\\3', A], ['/', 'nowhere', '']];
    placed.forEach(([vhost, queue, node], i) => {
      const info = Object.fromEntries(queueMetrics.info.labels.map((label) => [label, '']));
      queues.add(queueMetrics.info, { ...info, vhost, queue, node, type: 'classic' }, 1);
      queues.add(queueMetrics.running, [vhost, queue], 1);
      plugin.add(Plugin.published, [vhost, queue], 10 + i);
    });
    t.state.succeeded('queues', queues.finish(), 0.1, 0);
    t.state.succeeded('plugin', plugin.finish(), 0.1, 0);
    const base = await start([t]);
    const text = await (await fetch(probe(base, 'east', A))).text();
    const lines = (name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`)).sort();
    expect(lines('rabbitmq_queue_running')).toEqual(['rabbitmq_queue_running{vhost="/",queue="q1"} 1', 'rabbitmq_queue_running{vhost="odd \\"vhost\\"",queue="q\\\\3"} 1']);
    expect(lines('rabbitmq_test_queue_published_total')).toEqual(['rabbitmq_test_queue_published_total{vhost="/",queue="q1"} 10', 'rabbitmq_test_queue_published_total{vhost="odd \\"vhost\\"",queue="q\\\\3"} 12']);
    expect(lines('rabbitmq_queue_info')).toHaveLength(2);
    const other = await (await fetch(probe(base, 'east', 'rabbit@b'))).text();
    expect(other).toContain('rabbitmq_test_queue_published_total{vhost="/",queue="q2"} 11\n');
    expect(other).not.toContain('queue="q1"');
    // A queue without a node (its leader unknown) is on no node's target.
    expect(text + other).not.toContain('queue="nowhere"');
    // The target itself serves what no node does, so nothing is scraped twice.
    const rest = await (await fetch(`${base}/probe?target=east`)).text();
    expect(rest).toContain('rabbitmq_queue_running{vhost="/",queue="nowhere"} 1\n');
    expect(rest).toContain('rabbitmq_queues 7\n');
    expect(rest).toContain('rabbitmq_identity_info{rabbitmq_cluster="cluster-east"} 1\n');
    expect(rest).toContain('\nrabbitmq_up 1\n');
    for (const gone of ['queue="q1"', 'queue="q2"', 'rabbitmq_node_info{', 'rabbitmq_process_open_fds{', 'rabbitmq_listener_info{']) expect(rest).not.toContain(gone);
    const samplesOf = (body: string) => body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    // Every sample of the whole target is on exactly one of them, but for what each node target adds (its identity, its build_info).
    const added = /^rabbitmq_(identity_info\{rabbitmq_cluster="cluster-east",rabbitmq_node=|build_info\{node=)/;
    // The cluster's build_info is not on the rest: each node target has its own.
    const whole = samplesOf((await t.exposition()).body('text').toString('utf8')).filter((line) => !line.startsWith('rabbitmq_build_info{'));
    expect(rest).not.toContain('rabbitmq_build_info');
    const split = [...samplesOf(rest), ...samplesOf(text), ...samplesOf(other)].filter((line) => !added.test(line));
    expect(split.sort()).toEqual(whole.sort());
  });

  it("serves the node's part of the cluster-wide figures, under the plugin's names, and the cluster target then leaves out the whole", async () => {
    const C = 'rabbit@c';
    const t = target('east', 'cluster-east', [A, 'rabbit@b', C]);
    const without = target('west', 'cluster-west', [A]);
    t.state.register('connections', 15_000, 45_000);
    t.state.register('plugin', 15_000, 45_000);
    const connections = new SampleSink();
    const group = (vhost: string, node: string, state: string) => ({ vhost, user: 'app', protocol: 'AMQP 0-9-1', node, state });
    connections.add(connectionMetrics.byState, group('/', A, 'running'), 2);
    connections.add(connectionMetrics.byState, group('/', A, 'blocked'), 1);
    connections.add(connectionMetrics.byState, group('/', 'rabbit@b', 'running'), 2);
    connections.add(connectionMetrics.channels, group('/', A, 'running'), 4);
    connections.add(connectionMetrics.channels, group('/', A, 'blocked'), 1);
    connections.add(connectionMetrics.channels, group('/', 'rabbit@b', 'running'), 4);
    t.state.succeeded('connections', connections.finish(), 0.1, 0);
    const plugin = new SampleSink();
    plugin.add(pluginMetrics.received, { node: A, protocol: 'amqp091' }, 60);
    plugin.add(pluginMetrics.received, { node: A, protocol: 'amqp10' }, 1);
    plugin.add(pluginMetrics.received, { node: 'rabbit@b', protocol: 'amqp091' }, 39);
    plugin.add(pluginMetrics.delivered, { node: A, protocol: 'amqp091', queue_type: 'rabbit_quorum_queue' }, 7);
    plugin.add(pluginMetrics.nodeUp, { node: A }, 1);
    plugin.add(pluginMetrics.channelPublished, { node: A }, 42);
    // A quorum queue's members on two nodes, each with its own term and commit index.
    plugin.add(pluginMetrics.raftTerm, { node: A, vhost: '/', queue: 'qq' }, 3);
    plugin.add(pluginMetrics.raftTerm, { node: 'rabbit@b', vhost: '/', queue: 'qq' }, 2);
    plugin.add(pluginMetrics.raftCommitIndex, { node: A, vhost: '/', queue: 'qq' }, 120);
    // Stream protocol errors, one row by error: a family of the plugin's own for each.
    plugin.add(pluginMetrics.streamErrors, { node: A, protocol: 'stream', error: 'stream_does_not_exist' }, 2);
    plugin.add(pluginMetrics.streamErrors, { node: A, protocol: 'stream', error: 'access_refused' }, 1);
    plugin.add(pluginMetrics.streamErrors, { node: 'rabbit@b', protocol: 'stream', error: 'access_refused' }, 5);
    t.state.succeeded('plugin', plugin.finish(), 0.1, 0);
    // per_channel's series, which carry no node: on the cluster target, until the plugin's per-node sums replace them.
    t.state.register('channels', 15_000, 45_000);
    const channels = new SampleSink();
    const perChannel = channelMessageStats.find((stat) => stat.field === 'publish')!.counter;
    channels.add(perChannel, { channel: 'c (1)', vhost: '/', user: 'app' }, 40);
    t.state.succeeded('channels', channels.finish(), 0.1, 0);
    t.state.register('queues', 15_000, 45_000);
    const queues = new SampleSink();
    queues.add(queueMetrics.nodeQueues, ['/', A], 4);
    queues.add(queueMetrics.nodeQueues, ['/', 'rabbit@b'], 2);
    queues.add(queueMetrics.nodeQueues, ['other', 'rabbit@b'], 1);
    t.state.succeeded('queues', queues.finish(), 0.1, 0);
    const base = await start([t, without]);
    const rest = async (name = 'east') => (await (await fetch(`${base}/probe?target=${name}`)).text()).split('\n');
    const sampleOf = async (node: string, name: string, targetName = 'east') => (await (await fetch(probe(base, targetName, node))).text()).split('\n').filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
    // Without the families they are summed from, the cluster target keeps the cluster's.
    expect(await rest('west')).toEqual(expect.arrayContaining(['rabbitmq_connections 5', 'rabbitmq_channels 9', 'rabbitmq_queues 7', 'rabbitmq_global_messages_received_total 100']));
    expect(await sampleOf(A, 'rabbitmq_connections', 'west')).toEqual([]);


    expect(await sampleOf(A, 'rabbitmq_connections')).toEqual(['rabbitmq_connections 3']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_connections')).toEqual(['rabbitmq_connections 2']);
    // A node without connections has 0, as the plugin serves it there.
    expect(await sampleOf(C, 'rabbitmq_connections')).toEqual(['rabbitmq_connections 0']);
    expect(await sampleOf(A, 'rabbitmq_channels')).toEqual(['rabbitmq_channels 5']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_queues')).toEqual(['rabbitmq_queues 3']);
    expect(await sampleOf(A, 'rabbitmq_channel_messages_published_total')).toEqual(['rabbitmq_channel_messages_published_total 42']);
    expect((await sampleOf(A, 'rabbitmq_global_messages_received_total')).sort()).toEqual(['rabbitmq_global_messages_received_total{protocol="amqp091"} 60', 'rabbitmq_global_messages_received_total{protocol="amqp10"} 1']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_global_messages_received_total')).toEqual(['rabbitmq_global_messages_received_total{protocol="amqp091"} 39']);
    expect(await sampleOf(A, 'rabbitmq_global_messages_delivered_total')).toEqual(['rabbitmq_global_messages_delivered_total{protocol="amqp091",queue_type="rabbit_quorum_queue"} 7']);
    // A queue's Raft member on the node, as the node's plugin names it per object (RabbitMQ 4.2 and later).
    expect(await sampleOf(A, 'rabbitmq_raft_term')).toEqual(['rabbitmq_raft_term{vhost="/",queue="qq"} 3']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_raft_term')).toEqual(['rabbitmq_raft_term{vhost="/",queue="qq"} 2']);
    expect(await sampleOf(A, 'rabbitmq_raft_commit_index')).toEqual(['rabbitmq_raft_commit_index{vhost="/",queue="qq"} 120']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_raft_commit_index')).toEqual([]);
    // And as plugins before 4.2 named it, which RabbitMQ's Quorum-Queues-Raft dashboard still queries.
    expect(await sampleOf(A, 'rabbitmq_raft_log_commit_index')).toEqual(['rabbitmq_raft_log_commit_index{vhost="/",queue="qq"} 120']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_raft_log_commit_index')).toEqual([]);
    expect(await sampleOf(A, 'rabbitmq_global_stream_error_stream_does_not_exist_total')).toEqual(['rabbitmq_global_stream_error_stream_does_not_exist_total{protocol="stream"} 2']);
    expect(await sampleOf(A, 'rabbitmq_global_stream_error_access_refused_total')).toEqual(['rabbitmq_global_stream_error_access_refused_total{protocol="stream"} 1']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_global_stream_error_access_refused_total')).toEqual(['rabbitmq_global_stream_error_access_refused_total{protocol="stream"} 5']);
    expect(await sampleOf('rabbit@b', 'rabbitmq_global_stream_error_stream_does_not_exist_total')).toEqual([]);
    // A figure with labels is served only where the node has lines of it.
    expect(await sampleOf(C, 'rabbitmq_global_messages_received_total')).toEqual([]);
    const lines = await rest();
    for (const gone of ['rabbitmq_connections', 'rabbitmq_channels', 'rabbitmq_queues', 'rabbitmq_global_messages_received_total', 'rabbitmq_global_messages_delivered_total', 'rabbitmq_channel_messages_published_total']) {
      expect(lines.filter((line) => line.startsWith(`${gone} `) || line.startsWith(`${gone}{`)), gone).toEqual([]);
    }
    // What no node target has is left to the cluster target.
    expect(lines).toContain('rabbitmq_identity_info{rabbitmq_cluster="cluster-east"} 1');
    // The exporter's own series about a node stay with the exporter's, not on the node's target.
    expect(lines).toContain(`rabbitmq_exporter_plugin_node_up{node="${A}"} 1`);
    expect(await sampleOf(A, 'rabbitmq_exporter_plugin_node_up')).toEqual([]);
  });

  it('off (web.per_node_scrapes false, the default): no node target, no discovery, the target whole on /probe', async () => {
    const t = target('east', 'cluster-east', [A]);
    const base = await start([t], {});
    for (const path of [NODE_DISCOVERY_PATH, `/probe?target=east&node=${encodeURIComponent(A)}`]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toContain('set web.per_node_scrapes: true');
    }
    expect(await (await fetch(`${base}/probe?target=east`)).text()).toContain(`rabbitmq_process_open_fds{node="${A}"} 100\n`);
    expect(await (await fetch(`${base}/metrics`)).text()).toContain(`rabbitmq_process_open_fds{node="${A}"} 100\n`);
  });

  it("on, with one target: /metrics serves the exporter's own series only", async () => {
    const own = Exposition.of([{ header: { name: 'rabbitmq_exporter_test_own', type: 'gauge', help: 'test' }, chunks: [Buffer.from('rabbitmq_exporter_test_own 1\n')], samples: 1 }]);
    const base = await start([target('east', 'cluster-east', [A])], { perNodeScrapes: true, ownMetrics: async () => own });
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('rabbitmq_exporter_test_own 1\n');
    expect(text).not.toContain('rabbitmq_process_open_fds');
  });

  it('refuses a node the target does not list (404, with the nodes it lists) and a node asked twice (400)', async () => {
    const base = await start([target('east', 'cluster-east', [A])]);
    const unknown = await fetch(probe(base, 'east', 'rabbit@zz'));
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe(`target "east" has no node "rabbit@zz" (its nodes: "${A}")\n`);
    const twice = await fetch(`${base}/probe?target=east&node=a&node=b`);
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('parameter "node" must be given once');
  });

  it('lists the target but no node, and serves none, while the nodes collector has served nothing', async () => {
    const state = new TargetState('empty', 'http://broker.example:15672');
    state.register('nodes', 15_000, 45_000);
    const store = new SnapshotStore(state, { requests: 0, bytesRead: 0 }, newHttpCounters(), { families: async () => [] } as unknown as ProcessMetrics);
    const base = await start([served(state, store)]);
    const groups = (await (await fetch(`${base}${NODE_DISCOVERY_PATH}`)).json()) as { labels: Record<string, string> }[];
    expect(groups.map((g) => g.labels)).toEqual([{ __metrics_path__: '/probe', __param_target: 'empty', instance: 'empty' }]);
    const res = await fetch(probe(base, 'empty', A));
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('its nodes are not known yet');
  });
});
