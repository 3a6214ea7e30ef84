import { describe, expect, it } from 'vitest';
import { nodesCollector } from '../../../../src/collectors/nodes/collector.js';
import { fakeApi, NOT_FOUND, type FakeRoute } from '../../../support/fake-broker-api.js';
import { readFixture } from '../../../support/fixtures.js';
import { samples, seriesNames, seriesOf } from '../../../support/parse-exposition.js';
import { brokerFrom, runCollector } from '../../../support/run-collector.js';

const SINGLE = 'rabbitmq-3.10.8';
const CLUSTER = 'rabbitmq-3.10.8-cluster';
const NO_STATS = 'rabbitmq-3.10.8-stats-disabled';

const MEMORY_A = '/api/nodes/rabbit%40vm';
const MEMORY_B = '/api/nodes/rabbit%40vm/memory';
const MEMORY2_B = '/api/nodes/rabbit2%40vm/memory';

function singleRoutes(): Record<string, FakeRoute> {
  return {
    '/api/nodes': readFixture(SINGLE, 'nodes.json'),
    [MEMORY_A]: readFixture(SINGLE, 'node-memory.json'),
    [MEMORY_B]: readFixture(SINGLE, 'node-memory-b.json'),
  };
}

const N = 'node="rabbit@vm"';

describe('nodes collector on 3.10.8 (variant A)', () => {
  it('requests /api/nodes with columns, then the memory breakdown from /api/nodes/{node}/memory', async () => {
    const { requests, text } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_B]);
    expect(samples(text).get(`rabbitmq_node_memory_bytes{${N},area="binary"}`)).toBe(394455432);
    const columns = String(requests[0]!.query?.columns).split(',');
    for (const column of ['name', 'running', 'type', 'mem_used', 'mem_used_details', 'uptime', 'partitions', 'cluster_links', 'io_read_avg_time']) {
      expect(columns, column).toContain(column);
    }
  });

  it('a 3.x broker without /memory is asked with ?memory=true, and only that from then on', async () => {
    const routes = singleRoutes();
    routes[MEMORY_B] = NOT_FOUND;
    const memory = new Map<string, unknown>();
    // Every poll fetches the breakdown here (the default holds it for 4 polls).
    const options = { memory_breakdown_every: 1 };
    const first = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE), options, memory });
    expect(first.requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_B, MEMORY_A]);
    expect(first.requests[2]).toEqual({ path: MEMORY_A, query: { memory: 'true', columns: 'memory' }, optional: true });
    expect(samples(first.text).get(`rabbitmq_node_memory_bytes{${N},area="binary"}`)).toBe(394447152);
    const second = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE), options, memory });
    expect(second.requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_A]);
  });

  it('a node gone from both memory paths does not switch the path for good', async () => {
    const routes = singleRoutes();
    routes[MEMORY_B] = NOT_FOUND;
    routes[MEMORY_A] = NOT_FOUND;
    const memory = new Map<string, unknown>();
    const options = { memory_breakdown_every: 1 };
    await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE), options, memory });
    const again = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE), options, memory });
    expect(again.requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_B]);
  });

  it('node values from nodes.json', async () => {
    const { text, skipped } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    const s = samples(text);
    expect(s.get(`rabbitmq_node_info{${N},type="disc",mem_calculation_strategy="rss",rates_mode="basic"}`)).toBe(1);
    expect(s.get(`rabbitmq_node_running{${N}}`)).toBe(1);
    expect(s.get(`rabbitmq_process_resident_memory_bytes{${N}}`)).toBe(801255424);
    expect(s.get(`rabbitmq_process_resident_memory_bytes_change_per_second{${N}}`)).toBe(-4562124.8);
    expect(s.get(`rabbitmq_resident_memory_limit_bytes{${N}}`)).toBe(10110425497);
    expect(s.get(`rabbitmq_alarms_memory_used_watermark{${N}}`)).toBe(0);
    expect(s.get(`rabbitmq_disk_space_available_bytes{${N}}`)).toBe(84815073280);
    expect(s.get(`rabbitmq_disk_space_available_limit_bytes{${N}}`)).toBe(50000000);
    expect(s.get(`rabbitmq_alarms_free_disk_space_watermark{${N}}`)).toBe(0);
    expect(s.get(`rabbitmq_process_open_fds{${N}}`)).toBe(160);
    expect(s.get(`rabbitmq_process_max_fds{${N}}`)).toBe(1024);
    expect(s.get(`rabbitmq_process_open_tcp_sockets{${N}}`)).toBe(100);
    expect(s.get(`rabbitmq_process_max_tcp_sockets{${N}}`)).toBe(832);
    expect(s.get(`rabbitmq_erlang_processes_used{${N}}`)).toBe(22010);
    expect(s.get(`rabbitmq_erlang_processes_limit{${N}}`)).toBe(1048576);
    expect(s.get(`rabbitmq_erlang_scheduler_run_queue{${N}}`)).toBe(1);
    expect(s.get(`rabbitmq_node_processors{${N}}`)).toBe(2);
    expect(s.get(`rabbitmq_erlang_net_ticktime_seconds{${N}}`)).toBe(60);
    expect(s.get(`rabbitmq_erlang_gc_runs_total{${N}}`)).toBe(928697);
    expect(s.get(`rabbitmq_erlang_gc_runs_per_second{${N}}`)).toBe(7279.6);
    expect(s.get(`rabbitmq_erlang_gc_reclaimed_bytes_total{${N}}`)).toBe(17509552296);
    expect(s.get(`rabbitmq_erlang_scheduler_context_switches_total{${N}}`)).toBe(4172299);
    expect(s.get(`rabbitmq_schema_db_disk_tx_total{${N}}`)).toBe(15813);
    expect(s.get(`rabbitmq_schema_db_ram_tx_total{${N}}`)).toBe(515);
    expect(s.get(`rabbitmq_node_partitions{${N}}`)).toBe(0);
    expect(s.get(`rabbitmq_node_cluster_links{${N}}`)).toBe(0);
    expect(skipped).toBe(0);
  });

  it('uptime and average times are converted from milliseconds to seconds', async () => {
    const s = samples((await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) })).text);
    expect(s.get(`rabbitmq_erlang_uptime_seconds{${N}}`)).toBe(153.745);
    expect(s.get(`rabbitmq_io_read_average_time_seconds{${N}}`)).toBeCloseTo(0.000021, 15);
    expect(s.get(`rabbitmq_io_write_average_time_seconds{${N}}`)).toBeCloseTo(0.0006419990566037737, 15);
    expect(s.get(`rabbitmq_io_sync_average_time_seconds{${N}}`)).toBeCloseTo(0.0010885938155136268, 15);
    expect(s.get(`rabbitmq_io_seek_average_time_seconds{${N}}`)).toBe(0);
    // The rate of an average time is scaled the same way.
    expect(s.get(`rabbitmq_io_write_average_time_seconds_change_per_second{${N}}`)).toBeCloseTo(0.0006594009163802977, 15);
    // Counts are not scaled.
    expect(s.get(`rabbitmq_io_write_ops_total{${N}}`)).toBe(9540);
    expect(s.get(`rabbitmq_io_write_bytes_total{${N}}`)).toBe(14226631);
    expect(s.get(`rabbitmq_io_sync_ops_total{${N}}`)).toBe(9540);
    expect(s.get(`rabbitmq_io_read_ops_total{${N}}`)).toBe(1);
    expect(s.get(`rabbitmq_io_read_bytes_total{${N}}`)).toBe(1);
  });

  it("milliseconds are divided by 1000, so the seconds are the broker's milliseconds exactly (22990 ms is 22.99 s)", async () => {
    const routes = singleRoutes();
    (routes['/api/nodes'] as { uptime: number }[])[0]!.uptime = 22990; // 22990 * 0.001 is 22.990000000000002
    const s = samples((await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE) })).text);
    expect(s.get(`rabbitmq_erlang_uptime_seconds{${N}}`)).toBe(22.99);
  });

  it('churn counters per node', async () => {
    const s = samples((await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) })).text);
    expect(s.get(`rabbitmq_connections_opened_total{${N}}`)).toBe(100);
    expect(s.get(`rabbitmq_channels_opened_total{${N}}`)).toBe(200);
    expect(s.get(`rabbitmq_connections_closed_total{${N}}`)).toBe(0);
    expect(s.get(`rabbitmq_queues_declared_total{${N}}`)).toBe(0);
    expect(s.get(`rabbitmq_queues_deleted_total{${N}}`)).toBe(0);
  });

  it('metrics_gc_queue_length and ra_open_file_metrics as labelled gauges', async () => {
    const { text } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    expect(seriesOf(text, 'rabbitmq_management_metrics_gc_queue_length').size).toBe(8);
    expect(samples(text).get(`rabbitmq_management_metrics_gc_queue_length{${N},table="queue_deleted"}`)).toBe(0);
    expect([...seriesOf(text, 'rabbitmq_raft_open_files')]).toEqual([
      [`rabbitmq_raft_open_files{${N},process="ra_log_segment_writer"}`, 0],
      [`rabbitmq_raft_open_files{${N},process="ra_log_wal"}`, 1],
    ]);
  });

  it('being_drained, absent in 3.10, is not served as 0', async () => {
    const { text } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    expect(seriesNames(text).has('rabbitmq_node_being_drained')).toBe(false);
  });

  it('memory breakdown from node-memory.json (the ?memory=true answer)', async () => {
    const routes = singleRoutes();
    routes[MEMORY_B] = NOT_FOUND;
    const { text } = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE) });
    const s = samples(text);
    expect(s.get(`rabbitmq_node_memory_bytes{${N},area="binary"}`)).toBe(394447152);
    expect(s.get(`rabbitmq_node_memory_bytes{${N},area="queue_procs"}`)).toBe(184496096);
    expect(s.get(`rabbitmq_node_memory_bytes{${N},area="code"}`)).toBe(35894742);
    expect(s.get(`rabbitmq_node_memory_bytes{${N},area="quorum_ets"}`)).toBe(31426712);
    expect(s.get(`rabbitmq_node_memory_total_bytes{${N},measure="rss"}`)).toBe(784322560);
    expect(s.get(`rabbitmq_node_memory_total_bytes{${N},measure="erlang"}`)).toBe(930801696);
    expect(s.get(`rabbitmq_node_memory_total_bytes{${N},measure="allocated"}`)).toBe(970706944);
    // 25 areas besides strategy and total; strategy is a word, not a size.
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes').size).toBe(25);
    expect(text).not.toContain('area="strategy"');
    expect(text).not.toContain('area="total"');
  });

  it('rates: false leaves the _per_second and _change_per_second gauges out', async () => {
    const { text } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE), options: { rates: false } });
    expect([...seriesNames(text)].filter((n) => n.endsWith('_per_second'))).toEqual([]);
    expect(samples(text).get(`rabbitmq_erlang_gc_runs_total{${N}}`)).toBe(928697);
  });

  it('memory_breakdown: false makes no memory request', async () => {
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE), options: { memory_breakdown: false } });
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes']);
    expect(seriesNames(text).has('rabbitmq_node_memory_bytes')).toBe(false);
    expect(seriesNames(text).has('rabbitmq_node_memory_total_bytes')).toBe(false);
  });

  it('emits only families it declares', async () => {
    const { familyNames } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    const declared = new Set(nodesCollector.metrics.map((m) => m.name));
    for (const name of familyNames) expect(declared.has(name), name).toBe(true);
    expect(familyNames.length).toBeGreaterThan(60);
  });

  it('a node listed twice (overlapping pages): its node series are emitted once', async () => {
    const routes = singleRoutes();
    const nodes = readFixture<unknown[]>(SINGLE, 'nodes.json');
    routes['/api/nodes'] = [...nodes, ...nodes];
    const { text } = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE), options: { memory_breakdown: false } });
    // samples() throws on a duplicated series.
    expect(samples(text).get(`rabbitmq_node_running{${N}}`)).toBe(1);
    expect(text.match(/^rabbitmq_process_resident_memory_bytes\{/gm)).toHaveLength(1);
  });

  // A bug since fixed, kept as a regression test (src/collectors/nodes/collector.ts collect): records are de-duplicated by name for the node
  // series, but the memory breakdown runs over `nodes.filter(running)` without that
  // de-duplication, so a node listed twice is asked for twice and every
  // rabbitmq_node_memory_bytes / _total_bytes series is emitted twice in one exposition.
  it('a node listed twice: its memory breakdown is requested and emitted once', async () => {
    const routes = singleRoutes();
    const nodes = readFixture<unknown[]>(SINGLE, 'nodes.json');
    routes['/api/nodes'] = [...nodes, ...nodes];
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE) });
    expect(text.match(/^rabbitmq_node_memory_bytes\{node="rabbit@vm",area="binary"\}/gm)).toHaveLength(1);
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_B]);
  });

  it('a node whose memory answer is a 404 (stopped in between) just has no breakdown', async () => {
    const routes = singleRoutes();
    routes[MEMORY_A] = NOT_FOUND;
    routes[MEMORY_B] = NOT_FOUND;
    const { text } = await runCollector(nodesCollector, { api: fakeApi(routes), broker: brokerFrom(SINGLE) });
    expect(seriesNames(text).has('rabbitmq_node_memory_bytes')).toBe(false);
    expect(samples(text).get(`rabbitmq_node_running{${N}}`)).toBe(1);
  });

  it('an answer that is not an array fails the poll', async () => {
    await expect(runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': { error: 'x' } }), broker: brokerFrom(SINGLE) })).rejects.toThrow(
      '/api/nodes did not answer a JSON list (got an object)',
    );
  });
});

describe('nodes collector on 4.0 and 4.3 (variant B), recorded answers', () => {
  it.each(['rabbitmq-4.0.x', 'rabbitmq-4.3.x'])('%s: asks for /api/nodes/{node}/memory and serves its breakdown', async (dir) => {
    const broker = brokerFrom(dir);
    expect(broker.variant).toBe('B');
    const nodes = readFixture<{ name: string }[]>(dir, 'nodes.json');
    const node = nodes[0]!.name;
    const memoryPath = `/api/nodes/${encodeURIComponent(node)}/memory`;
    const recorded = readFixture<{ memory: Record<string, number | Record<string, number>> }>(dir, 'node-memory-b.json').memory;
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': nodes, [memoryPath]: { memory: recorded } }), broker });
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes', memoryPath]);
    expect(requests[1]!.query).toEqual({});
    const s = samples(text);
    expect(s.get(`rabbitmq_node_memory_bytes{node="${node}",area="binary"}`)).toBe(recorded.binary);
    expect(s.get(`rabbitmq_node_memory_bytes{node="${node}",area="queue_procs"}`)).toBe(recorded.queue_procs);
    expect(s.get(`rabbitmq_node_memory_total_bytes{node="${node}",measure="rss"}`)).toBe((recorded.total as Record<string, number>).rss);
  });

  it.each(['rabbitmq-4.0.x', 'rabbitmq-4.3.x'])('%s: no socket series, though the API still says sockets_used and sockets_total 0', async (dir) => {
    const nodes = readFixture<Record<string, unknown>[]>(dir, 'nodes.json');
    expect([nodes[0]!.sockets_used, nodes[0]!.sockets_total]).toEqual([0, 0]);
    const { text } = await runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': nodes }), broker: brokerFrom(dir), options: { memory_breakdown: false } });
    expect(text).not.toMatch(/^rabbitmq_process_(open|max)_tcp_sockets/m);
    expect(text).toMatch(/^rabbitmq_process_open_fds\{/m);
    // 3.10.8 has them.
    const old = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    expect(samples(old.text).get(`rabbitmq_process_max_tcp_sockets{${N}}`)).toBe(832);
  });
});

describe('nodes collector with statistics disabled', () => {
  it('only info and running; no zeros for what the answer does not carry', async () => {
    const routes: Record<string, FakeRoute> = {
      '/api/nodes': readFixture(NO_STATS, 'nodes.json'),
      // A node record without a memory field: nothing to add.
      [MEMORY_A]: { name: 'rabbit@vm' },
      [MEMORY_B]: NOT_FOUND,
    };
    const broker = brokerFrom(NO_STATS);
    const { text, skipped } = await runCollector(nodesCollector, { api: fakeApi(routes), broker });
    expect(text.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([
      'rabbitmq_node_info{node="rabbit@vm",type="disc",mem_calculation_strategy="",rates_mode=""} 1',
      // No version in the record: the answer of /api/overview's, which this node gave.
      'rabbitmq_node_build_info{node="rabbit@vm",rabbitmq_version="3.10.8",erlang_version="25.2.3",erlang_full_version="",crypto_lib_version=""} 1',
      'rabbitmq_node_running{node="rabbit@vm"} 1',
    ]);
    expect(skipped).toBe(0);
  });
});

describe('nodes collector on a two-node cluster', () => {
  function clusterRoutes(nodesFile: string): Record<string, FakeRoute> {
    return {
      '/api/nodes': readFixture(CLUSTER, nodesFile),
      [MEMORY_B]: readFixture(SINGLE, 'node-memory-b.json'),
      [MEMORY2_B]: readFixture(SINGLE, 'node-memory-b.json'),
    };
  }

  it('both running: per-node values, memory of both, cluster links without the CLI peer', async () => {
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(clusterRoutes('nodes.json')), broker: brokerFrom(CLUSTER) });
    expect(requests.map((r) => r.path).sort()).toEqual(['/api/nodes', MEMORY_B, MEMORY2_B].sort());
    const s = samples(text);
    expect(s.get('rabbitmq_process_resident_memory_bytes{node="rabbit@vm"}')).toBe(1208434688);
    expect(s.get('rabbitmq_process_resident_memory_bytes{node="rabbit2@vm"}')).toBe(188170240);
    expect(s.get('rabbitmq_erlang_uptime_seconds{node="rabbit2@vm"}')).toBe(39.664);
    expect(s.get('rabbitmq_node_cluster_links{node="rabbit@vm"}')).toBe(1);
    expect(s.get('rabbitmq_node_cluster_links{node="rabbit2@vm"}')).toBe(1);
    expect(s.get('rabbitmq_node_cluster_link_sent_bytes_total{node="rabbit@vm",peer="rabbit2@vm"}')).toBe(9236201);
    expect(s.get('rabbitmq_node_cluster_link_received_bytes_total{node="rabbit@vm",peer="rabbit2@vm"}')).toBe(2179624);
    expect(s.get('rabbitmq_node_cluster_link_sent_bytes_total{node="rabbit2@vm",peer="rabbit@vm"}')).toBe(2179480);
    expect(text).not.toContain('rabbitmqcli');
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes', 'node="rabbit2@vm"').size).toBe(25);
  });

  it('rabbit2 stopped: running 0, no memory series, no memory request for it', async () => {
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(clusterRoutes('nodes-rabbit2-down.json')), broker: brokerFrom(CLUSTER) });
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes', MEMORY_B]);
    const s = samples(text);
    expect(s.get('rabbitmq_node_running{node="rabbit2@vm"}')).toBe(0);
    expect(s.get('rabbitmq_node_running{node="rabbit@vm"}')).toBe(1);
    expect(s.get('rabbitmq_node_info{node="rabbit2@vm",type="disc",mem_calculation_strategy="",rates_mode=""}')).toBe(1);
    const rabbit2 = [...s.keys()].filter((k) => k.includes('node="rabbit2@vm"') && !k.includes('peer="rabbit2@vm"'));
    // The stopped node's record has only name, running, type and an empty cluster_links.
    expect(rabbit2.map((k) => k.replace(/\{.*$/, '')).sort()).toEqual(['rabbitmq_node_build_info', 'rabbitmq_node_cluster_links', 'rabbitmq_node_info', 'rabbitmq_node_running']);
    // Stopped, it lists no application, and another node answered /api/overview: its versions are unknown.
    expect(s.get('rabbitmq_node_build_info{node="rabbit2@vm",rabbitmq_version="",erlang_version="",erlang_full_version="",crypto_lib_version=""}')).toBe(1);
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes', 'node="rabbit2@vm"').size).toBe(0);
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes', 'node="rabbit@vm"').size).toBe(25);
    expect(s.get('rabbitmq_process_resident_memory_bytes{node="rabbit@vm"}')).toBe(1140641792);
    expect(s.get('rabbitmq_node_cluster_link_sent_bytes_total{node="rabbit@vm",peer="rabbit2@vm"}')).toBe(9252155);
  });
});

// The same two-node cluster on 4.0 and 4.3 (test/record/record-cluster.record.ts): rabbit2 joined
// rabbit1 and was stopped with stop_app. Node names carry the recording's pid, so they are read
// from the recording; the values compared are the recorded fields.
describe.each(['rabbitmq-4.0.x-cluster', 'rabbitmq-4.3.x-cluster'])('nodes collector on the two-node cluster of %s', (dir) => {
  type NodeRecord = { name: string; mem_used?: number; uptime?: number; cluster_links?: { name: string; send_bytes: number; recv_bytes: number }[] };
  const up = readFixture<NodeRecord[]>(dir, 'nodes.json');
  const down = readFixture<NodeRecord[]>(dir, 'nodes-rabbit2-down.json');
  const [rabbit1, rabbit2] = up.map((n) => n.name) as [string, string];
  const memory = (node: string) => `/api/nodes/${encodeURIComponent(node)}/memory`;
  const clusterRoutes = (nodesFile: string): Record<string, FakeRoute> => ({
    '/api/nodes': readFixture(dir, nodesFile),
    [memory(rabbit1)]: readFixture(dir, 'node-memory-b.json'),
    [memory(rabbit2)]: readFixture(dir, 'node-memory-b.json'),
  });

  it('records rabbit1 and rabbit2, both running, then rabbit2 stopped', () => {
    expect(up.map((n) => n.name)).toEqual([rabbit1, rabbit2]);
    expect(rabbit1).toMatch(/^rabbit1-/);
    expect(rabbit2).toMatch(/^rabbit2-/);
    expect(down.map((n) => n.name)).toEqual([rabbit1, rabbit2]);
  });

  it('both running: per-node values, memory of both, cluster links without the CLI peer', async () => {
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(clusterRoutes('nodes.json')), broker: brokerFrom(dir) });
    expect(requests.map((r) => r.path).sort()).toEqual(['/api/nodes', memory(rabbit1), memory(rabbit2)].sort());
    const s = samples(text);
    for (const node of up) {
      expect(s.get(`rabbitmq_node_running{node="${node.name}"}`)).toBe(1);
      expect(s.get(`rabbitmq_process_resident_memory_bytes{node="${node.name}"}`)).toBe(node.mem_used);
      expect(s.get(`rabbitmq_erlang_uptime_seconds{node="${node.name}"}`)).toBe(node.uptime! / 1000);
      expect(s.get(`rabbitmq_node_being_drained{node="${node.name}"}`)).toBe(0);
      // The one peer link; rabbitmqctl's own connection (rabbitmqcli-…) is not a cluster link.
      expect(s.get(`rabbitmq_node_cluster_links{node="${node.name}"}`)).toBe(1);
      const peer = node.cluster_links!.find((l) => !l.name.startsWith('rabbitmqcli'))!;
      expect(s.get(`rabbitmq_node_cluster_link_sent_bytes_total{node="${node.name}",peer="${peer.name}"}`)).toBe(peer.send_bytes);
      expect(s.get(`rabbitmq_node_cluster_link_received_bytes_total{node="${node.name}",peer="${peer.name}"}`)).toBe(peer.recv_bytes);
    }
    expect(up.find((n) => n.name === rabbit2)!.cluster_links!.some((l) => l.name.startsWith('rabbitmqcli'))).toBe(true);
    expect(text).not.toContain('rabbitmqcli');
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes', `node="${rabbit2}"`).size).toBeGreaterThan(0);
  });

  it('rabbit2 stopped: running 0, info and being_drained kept, no memory series, no memory request for it', async () => {
    const { text, requests } = await runCollector(nodesCollector, { api: fakeApi(clusterRoutes('nodes-rabbit2-down.json')), broker: brokerFrom(dir) });
    expect(requests.map((r) => r.path)).toEqual(['/api/nodes', memory(rabbit1)]);
    const s = samples(text);
    expect(s.get(`rabbitmq_node_running{node="${rabbit2}"}`)).toBe(0);
    expect(s.get(`rabbitmq_node_running{node="${rabbit1}"}`)).toBe(1);
    // From 4.0 the stopped node's record has name, running, type, being_drained and an empty cluster_links.
    const rabbit2Series = [...s.keys()].filter((k) => k.includes(`node="${rabbit2}"`));
    expect(rabbit2Series.map((k) => k.replace(/\{.*$/, '')).sort()).toEqual(['rabbitmq_node_being_drained', 'rabbitmq_node_build_info', 'rabbitmq_node_cluster_links', 'rabbitmq_node_info', 'rabbitmq_node_running']);
    expect(s.get(`rabbitmq_node_cluster_links{node="${rabbit2}"}`)).toBe(0);
    expect(seriesOf(text, 'rabbitmq_node_memory_bytes', `node="${rabbit1}"`).size).toBeGreaterThan(0);
    expect(s.get(`rabbitmq_process_resident_memory_bytes{node="${rabbit1}"}`)).toBe(down[0]!.mem_used);
  });
});

describe('rabbitmq_node_build_info: each node\'s versions', () => {
  type Versions = { name: string; rabbitmq_version?: string; erlang_version?: string; erlang_full_version?: string; crypto_lib_version?: string; applications?: { name: string; version: string }[] };
  const build = (text: string) => [...samples(text).keys()].filter((k) => k.startsWith('rabbitmq_node_build_info{')).sort();

  it.each(['rabbitmq-4.3.x-cluster'])('%s: from each running node\'s own record, all four', async (dir) => {
    const up = readFixture<Versions[]>(dir, 'nodes.json');
    const { text } = await runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': up }), broker: brokerFrom(dir), options: { memory_breakdown: false } });
    expect(up.every((n) => n.rabbitmq_version && n.erlang_full_version && n.crypto_lib_version)).toBe(true);
    expect(build(text)).toEqual(
      up.map((n) => `rabbitmq_node_build_info{node="${n.name}",rabbitmq_version="${n.rabbitmq_version}",erlang_version="${n.erlang_version}",erlang_full_version="${n.erlang_full_version}",crypto_lib_version="${n.crypto_lib_version}"}`).sort(),
    );
  });

  it.each(['rabbitmq-3.10.8-cluster', 'rabbitmq-4.0.x-cluster'])('%s: rabbitmq_version from each node\'s rabbit application; erlang_version only for the node that answered /api/overview', async (dir) => {
    const up = readFixture<Versions[]>(dir, 'nodes.json');
    const broker = brokerFrom(dir);
    const { text } = await runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': up }), broker, options: { memory_breakdown: false } });
    expect(up.some((n) => n.rabbitmq_version !== undefined)).toBe(false);
    expect(up.map((n) => n.name)).toContain(broker.node);
    expect(build(text)).toEqual(
      up
        .map((n) => {
          const rabbit = n.applications!.find((a) => a.name === 'rabbit')!.version;
          const erlang = n.name === broker.node ? broker.erlangVersion : '';
          return `rabbitmq_node_build_info{node="${n.name}",rabbitmq_version="${rabbit}",erlang_version="${erlang}",erlang_full_version="",crypto_lib_version=""}`;
        })
        .sort(),
    );
  });

  it('asks for the version fields and the applications with columns=', async () => {
    const { requests } = await runCollector(nodesCollector, { api: fakeApi(singleRoutes()), broker: brokerFrom(SINGLE) });
    const columns = String(requests[0]!.query?.columns).split(',');
    for (const column of ['rabbitmq_version', 'erlang_version', 'erlang_full_version', 'crypto_lib_version', 'applications']) expect(columns).toContain(column);
  });
});
