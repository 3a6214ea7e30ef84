import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { GLOBAL_ROWS, pluginCollector } from '../../../../src/collectors/plugin/collector.js';
import { brokerApiAnswering, STALL } from '../../../support/fake-broker-api.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { brokerFrom, runCollector } from '../../../support/run-collector.js';
import { kbuddeNames } from '../../../../src/profiles/kbudde/names.js';
import { METADATA_STORE_FAMILIES } from '../../../support/metadata-store-families.js';

/** A recorded answer of rabbitmq_prometheus (test/record/record-plugin.record.ts). */
const answer = (dir: string, file: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures', dir, file), 'utf8');
/** The node that answered a recorded directory, as its rabbitmq_identity_info says. */
const nodeOf = (dir: string) => /rabbitmq_node="([^"]+)"/.exec(answer(dir, 'collector-detailed.prom'))![1]!;

const QUERY_4 = 'family=auth_attempt_metrics&family=ra_metrics&family=queue_delivery_metrics&family=queue_exchange_metrics';
const QUERY_3 = 'family=auth_attempt_metrics&family=ra_metrics&family=channel_queue_metrics&family=channel_queue_exchange_metrics';
const QUERY_ON = 'family=auth_attempt_metrics&family=ra_metrics';

/** A broker of two nodes, each answering at its plugin URL with `answers[url]` (text, an error to throw, or STALL: no answer). */
function cluster(answers: Record<string, string | Error | typeof STALL>, nodes = ['rabbit@node-a', 'rabbit@node-b']) {
  return brokerApiAnswering((url) => {
    if (url === '/api/nodes') return nodes.map((name) => ({ name, running: true }));
    const found = answers[url];
    if (found === undefined) throw new Error(`unexpected request ${url}`);
    if (found instanceof Error) throw found;
    return found;
  });
}

// The recorded scenario: px.classic 7 published, 2 more dead-lettered into it from px.dlx-source (ttl 1 ms),
// all 9 delivered to a manual-ack consumer that acked 3; px.quorum 4 published, one basic.get without ack.
const EXPECTED = [
  ['rabbitmq_queue_messages_published_total', 'px.classic', 7],
  ['rabbitmq_queue_messages_published_total', 'px.quorum', 4],
  ['rabbitmq_queue_messages_published_total', 'px.dlx-source', 2],
  ['rabbitmq_queue_messages_delivered_ack_total', 'px.classic', 9],
  ['rabbitmq_queue_messages_acked_total', 'px.classic', 3],
  ['rabbitmq_queue_get_total', 'px.quorum', 1],
  ['rabbitmq_queue_messages_delivered_or_got_total', 'px.classic', 9],
  ['rabbitmq_queue_messages_delivered_or_got_total', 'px.quorum', 1],
  ['rabbitmq_queue_messages_redelivered_total', 'px.classic', 0],
] as const;

/** One poll of a node whose plugin answers GET /metrics with `text`, as recorded on RabbitMQ `version` with statistics on. */
async function pollWithStatisticsOn(version: string, text: string) {
  const dir = `plugin-${version}`;
  const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_ON}`]: answer(dir, 'auth_attempt_metrics.prom'), 'http://node-a:15692/metrics': text }, ['rabbit@node-a']);
  const run = await runCollector(pluginCollector, { api, broker: brokerFrom(version === '3.10.x' ? 'rabbitmq-3.10.8' : `rabbitmq-${version}`) });
  return { run, node: run.family('rabbitmq_exporter_plugin_node_up')[0]!.labels.node! };
}

describe('plugin collector', () => {
  describe.each([
    ['4.0.x', QUERY_4, 0.024, 0],
    ['4.3.x', QUERY_4, 0.018, -1],
    ['3.10.x', QUERY_3, 0.001, 0],
  ])('with statistics disabled on RabbitMQ %s', (version, query, commitLatency, snapshotIndex) => {
    const statsOff = `plugin-${version}-stats-disabled`;
    const api = () => cluster({ [`http://node-a:15692/metrics/detailed?${query}`]: answer(statsOff, 'collector-detailed.prom'), 'http://node-a:15692/metrics': answer(statsOff, 'metrics.prom') }, ['rabbit@node-a']);
    const broker = brokerFrom(`rabbitmq-${version === '3.10.x' ? '3.10.8' : version}-stats-disabled`);

    it('serves the per-queue counters under the queue collector\'s names, from the plugin\'s per-queue families', async () => {
      const run = await runCollector(pluginCollector, { api: api(), broker });
      const node = nodeOf(statsOff);
      for (const [name, queue, value] of EXPECTED) expect(run.value(name, { vhost: '/', queue }), `${name} ${queue}`).toBe(value);
      expect(run.value('rabbitmq_exporter_plugin_queue_counters_served')).toBe(1);
      expect(run.value('rabbitmq_exporter_plugin_node_up', { node })).toBe(1);
      // 2 messages expired in a classic queue whose dead-letter strategy is at-most-once.
      expect(run.value('rabbitmq_node_messages_dead_lettered_total', { node, queue_type: 'rabbit_classic_queue', dead_letter_strategy: 'at_most_once', reason: 'expired' })).toBe(2);
      expect(run.value('rabbitmq_node_messages_received_total', { node, protocol: 'amqp091' })).toBe(13);
      expect(run.value('rabbitmq_node_auth_attempts_succeeded_total', { node, protocol: 'amqp091' })).toBe(1);
      expect(run.family('rabbitmq_queue_raft_commit_index').map((s) => s.labels.queue)).toEqual(['px.quorum']);
      // The plugin's rabbitmq_detailed_raft_commit_latency_seconds, named ..._raft_entry_commit_latency_seconds before 4.2;
      // the metadata store's rows (raft_cluster, ra_system) are not a queue's.
      expect(run.family('rabbitmq_queue_raft_commit_latency_seconds').map(({ labels, value }) => ({ labels, value }))).toEqual([{ labels: { node, vhost: '/', queue: 'px.quorum' }, value: commitLatency }]);
      // The member's term and log positions, under either version's names (..._log_..._index and raft_term_total before 4.2):
      // one election, 8 entries written, committed and applied; no snapshot on 4.3 (-1), index 0 before.
      const member = { node, vhost: '/', queue: 'px.quorum' };
      const raft = ['term', 'commit_index', 'last_applied_index', 'last_written_index', 'snapshot_index'].map((what) => run.family(`rabbitmq_queue_raft_${what}`).map(({ labels, value }) => ({ labels, value })));
      expect(raft).toEqual([1, 8, 8, 8, snapshotIndex].map((value) => [{ labels: member, value }]));
    });
  });

  it.each(['3.10.x', '4.0.x', '4.3.x'])('serves every sample of the node\'s global families (GLOBAL_ROWS) with its value, recorded on RabbitMQ %s', async (version) => {
    const dir = `plugin-${version}`;
    const text = answer(dir, 'metrics.prom');
    const { run, node } = await pollWithStatisticsOn(version, text);
    for (const [family, row] of GLOBAL_ROWS) {
      // The recorded lines, read apart from the collector's parser: name{labels} value.
      const lines = text.split('\n').filter((line) => line.startsWith(`${family}{`) || line.startsWith(`${family} `));
      for (const line of lines) {
        const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
        expect(run.value(row.name, { ...labels, node }), line).toBe(Number(line.slice(line.lastIndexOf(' ') + 1)));
      }
      expect(lines.length, `${family} recorded`).toBeGreaterThan(0);
      expect(run.family(row.name).length, row.name).toBe(lines.length);
    }
  });

  it.each([
    ['4.3.x', true],
    ['4.0.x', false],
    ['3.10.x', false],
  ])('serves the metadata store\'s Raft member (module rabbit_khepri) and the unreachable peers as the plugin recorded them on RabbitMQ %s: Khepri there %s', async (version, khepri) => {
    const dir = `plugin-${version}`;
    const text = answer(dir, 'metrics.prom');
    const { run, node } = await pollWithStatisticsOn(version, text);
    // The recorded lines, read apart from the collector's parser.
    const recorded = (family: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${family}{module="rabbit_khepri",`));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const rows = METADATA_STORE_FAMILIES;
    for (const [served, family] of Object.entries(rows)) {
      const value = recorded(family);
      expect(value !== undefined, `${family} recorded`).toBe(khepri);
      expect(run.family(served).map((s) => ({ labels: s.labels, value: s.value })), served).toEqual(khepri ? [{ labels: { node }, value }] : []);
    }
    // Every peer reached, on 4.0 and later; 3.10's plugin does not count them.
    expect(run.value('rabbitmq_node_unreachable_cluster_peers', { node })).toBe(version === '3.10.x' ? undefined : 0);
    if (khepri) {
      // As recorded on a single node: term 1 after its one election, 61 entries committed and applied, no snapshot yet.
      expect(run.value('rabbitmq_metadata_store_raft_term', { node })).toBe(1);
      expect(run.value('rabbitmq_metadata_store_raft_snapshot_index', { node })).toBe(-1);
      // The log writers' samples of the same families (ra_log_wal, ra_log_segment_writer) are not the member's.
      expect(text).toMatch(/^rabbitmq_raft_bytes_written\{module="ra_log_wal"/m);
    }
  });

  it.each([
    ['3.10.x', true],
    ['4.0.x', true],
    ['4.3.x', false],
  ])('serves the node\'s file descriptor alarm as its plugin reports it on RabbitMQ %s (the plugin has it: %s)', async (version, reported) => {
    const dir = `plugin-${version}`;
    const recorded = answer(dir, 'metrics.prom');
    expect(recorded.includes('\nrabbitmq_alarms_file_descriptor_limit 0\n'), 'recorded, not raised').toBe(reported);
    for (const value of [0, 1]) {
      const text = recorded.replace('\nrabbitmq_alarms_file_descriptor_limit 0\n', `\nrabbitmq_alarms_file_descriptor_limit ${value}\n`);
      const { run, node } = await pollWithStatisticsOn(version, text);
      expect(run.family('rabbitmq_alarms_file_descriptor_limit').map((s) => ({ labels: s.labels, value: s.value }))).toEqual(reported ? [{ labels: { node }, value }] : []);
    }
  });

  it('with statistics on, leaves the queue counters to the queue collector', async () => {
    const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_ON}`]: answer('plugin-4.3.x', 'auth_attempt_metrics.prom'), 'http://node-a:15692/metrics': answer('plugin-4.3.x', 'metrics.prom') }, ['rabbit@node-a']);
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x') });
    expect(run.familyNames.filter((n) => n.startsWith('rabbitmq_queue_messages'))).toEqual([]);
    expect(run.value('rabbitmq_exporter_plugin_queue_counters_served')).toBe(0);
    expect(run.value('rabbitmq_node_messages_routed_total', { node: run.family('rabbitmq_exporter_plugin_node_up')[0]!.labels.node!, protocol: 'amqp091' })).toBe(13);
  });

  it('a node whose listener fails degrades only that node, and says why', async () => {
    const statsOff = 'plugin-4.3.x-stats-disabled';
    const api = cluster({
      [`http://node-a:15692/metrics/detailed?${QUERY_4}`]: answer(statsOff, 'collector-detailed.prom'),
      'http://node-a:15692/metrics': answer(statsOff, 'metrics.prom'),
      [`http://node-b:15692/metrics/detailed?${QUERY_4}`]: new ManagementError('network', '/metrics/detailed', 'ECONNREFUSED'),
      'http://node-b:15692/metrics': new ManagementError('network', '/metrics', 'ECONNREFUSED'),
    });
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x-stats-disabled') });
    const up = Object.fromEntries(run.family('rabbitmq_exporter_plugin_node_up').map((s) => [s.labels.node, s.value]));
    expect(Object.values(up).sort()).toEqual([0, 1]);
    expect(up['rabbit@node-b']).toBe(0);
    expect(run.family('rabbitmq_exporter_plugin_node_failure_info')).toEqual([{ name: 'rabbitmq_exporter_plugin_node_failure_info', labels: { node: 'rabbit@node-b', reason: 'network' }, value: 1 }]);
    expect(run.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue: 'px.classic' })).toBe(7);
    expect(run.logs.some((l) => l.msg === 'rabbitmq_prometheus of a node failed: its plugin series are missing')).toBe(true);
  });

  it('a node that accepts but never answers fails alone, at its own deadline inside the poll\'s', async () => {
    const statsOff = 'plugin-4.3.x-stats-disabled';
    const api = cluster({
      [`http://node-a:15692/metrics/detailed?${QUERY_4}`]: answer(statsOff, 'collector-detailed.prom'),
      'http://node-a:15692/metrics': answer(statsOff, 'metrics.prom'),
      [`http://node-b:15692/metrics/detailed?${QUERY_4}`]: STALL,
      'http://node-b:15692/metrics': STALL,
    });
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x-stats-disabled'), limits: { timeoutMs: 900, maxAgeMs: 10_000 } });
    expect(run.value('rabbitmq_exporter_plugin_node_up', { node: 'rabbit@node-b' })).toBe(0);
    // Its own deadline (a third of the poll's) ended it: "timeout", not the cut-off before the poll's ("poll_deadline").
    expect(run.value('rabbitmq_exporter_plugin_node_failure_info', { node: 'rabbit@node-b', reason: 'timeout' })).toBe(1);
    expect(run.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue: 'px.classic' })).toBe(7);
    const onNodeA = run.family('rabbitmq_exporter_plugin_node_up').find((s) => s.labels.node !== 'rabbit@node-b');
    expect(onNodeA?.value).toBe(1);
  });

  it('an answer that is not the text format fails that node as malformed_text', async () => {
    const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_ON}`]: '<html>oops</html>\n', 'http://node-a:15692/metrics': '<html>oops</html>\n' }, ['rabbit@node-a']);
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x') });
    expect(run.value('rabbitmq_exporter_plugin_node_failure_info', { node: 'rabbit@node-a', reason: 'malformed_text' })).toBe(1);
    expect(run.logs.find((l) => l.reason === 'malformed_text')?.detail).toBe('http://node-a:15692: line 1: a sample line must start with a metric name, not "<html>oops</html>"');
  });

  it('an empty answer (HTTP 200, no text) fails that node as malformed_text, not as a node that is up', async () => {
    const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_ON}`]: '', 'http://node-a:15692/metrics': '' }, ['rabbit@node-a']);
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x') });
    expect(run.value('rabbitmq_exporter_plugin_node_up', { node: 'rabbit@node-a' })).toBe(0);
    expect(run.value('rabbitmq_exporter_plugin_node_failure_info', { node: 'rabbit@node-a', reason: 'malformed_text' })).toBe(1);
    expect(run.logs.find((l) => l.reason === 'malformed_text')?.detail).toMatch(/answered no sample at all/);
  });

  it('two URLs answered by one node (a load balancer) count its queues once', async () => {
    const statsOff = 'plugin-4.0.x-stats-disabled';
    const text = answer(statsOff, 'collector-detailed.prom');
    const api = cluster({ [`https://lb-1:15691/metrics/detailed?${QUERY_4}`]: text, [`https://lb-2:15691/metrics/detailed?${QUERY_4}`]: text });
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.0.x-stats-disabled'), options: { urls: ['https://lb-1:15691', 'https://lb-2:15691/'], global: false, erlang_vm: false } });
    expect(run.value('rabbitmq_queue_messages_published_total', { vhost: '/', queue: 'px.classic' })).toBe(7);
    expect(run.value('rabbitmq_exporter_plugin_node_failure_info', { node: 'lb-2:15691', reason: 'duplicate_node' })).toBe(1);
    expect(run.requests.map((r) => r.path)).not.toContain('/api/nodes');
  });

  it('keeps a per-channel sum monotonic when a channel closes (before 4.0)', async () => {
    const channelText = (channels: [string, number][]) => `# TYPE rabbitmq_detailed_channel_messages_acked_total counter\n${channels.map(([ch, v]) => `rabbitmq_detailed_channel_messages_acked_total{channel="${ch}",vhost="/",queue="q"} ${v}`).join('\n')}\n`;
    const memory = new Map<string, unknown>();
    const broker = brokerFrom('rabbitmq-3.10.8-stats-disabled');
    const poll = async (text: string) => {
      const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_3}`]: text }, ['rabbit@node-a']);
      return (await runCollector(pluginCollector, { api, broker, memory, options: { global: false, erlang_vm: false } })).value('rabbitmq_queue_messages_acked_total', { vhost: '/', queue: 'q' });
    };
    expect(await poll(channelText([['<0.1.0>', 5], ['<0.2.0>', 4]]))).toBe(9);
    // The first channel closed: its 5 leave the plugin's answer, not the counter.
    expect(await poll(channelText([['<0.2.0>', 6]]))).toBe(11);
    expect(await poll(channelText([['<0.2.0>', 7], ['<0.3.0>', 1]]))).toBe(13);
    // No channel of the queue left on any node: the plugin no longer counts it, and its series ends.
    expect(await poll(channelText([['<0.4.0>', 2]]).replace('queue="q"', 'queue="other"'))).toBeUndefined();
  });

  it('holds the queue counters of a node that failed this poll, so they neither drop nor count twice', async () => {
    const memory = new Map<string, unknown>();
    const broker = brokerFrom('rabbitmq-4.0.x-stats-disabled');
    const text = (v: number) => `# TYPE rabbitmq_detailed_queue_messages_acked_total counter\nrabbitmq_detailed_queue_messages_acked_total{vhost="/",queue="q"} ${v}\n`;
    const poll = async (a: string | Error, b: string | Error) => {
      const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_4}`]: a, [`http://node-b:15692/metrics/detailed?${QUERY_4}`]: b });
      return (await runCollector(pluginCollector, { api, broker, memory, options: { global: false, erlang_vm: false } })).value('rabbitmq_queue_messages_acked_total', { vhost: '/', queue: 'q' });
    };
    expect(await poll(text(3), text(4))).toBe(7);
    expect(await poll(text(5), new ManagementError('timeout', '/metrics/detailed', 'no complete answer within 10 ms'))).toBe(9);
    expect(await poll(text(5), text(6))).toBe(11);
  });

  it('serves the queue counters under kbudde\'s names too, with the labels no plugin answer has left empty', async () => {
    const statsOff = 'plugin-4.3.x-stats-disabled';
    const api = cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_4}`]: answer(statsOff, 'collector-detailed.prom') }, ['rabbit@node-a']);
    const run = await runCollector(pluginCollector, { api, broker: brokerFrom('rabbitmq-4.3.x-stats-disabled'), options: { global: false, erlang_vm: false }, profile: { names: kbuddeNames, clusterName: 'c', node: 'rabbit@node-a' } });
    expect(run.family('rabbitmq_queue_messages_published_total').find((s) => s.labels.queue === 'px.classic')).toEqual({
      name: 'rabbitmq_queue_messages_published_total',
      labels: { cluster: 'c', vhost: '/', queue: 'px.classic', durable: '', policy: '', self: '0' },
      value: 7,
    });
  });

  it('refuses a plugin URL with credentials in it', () => {
    expect(() => pluginCollector.optionsSchema!.parse({ urls: ['http://user:secret@mq:15692'] })).toThrow(/carries no credentials/);
  });

  describe.each(['3.10.x', '4.0.x', '4.3.x'])("relays the node's erlang_vm_* families of RabbitMQ %s as the plugin serves them", (version) => {
    const dir = `plugin-${version}`;
    const text = answer(dir, 'metrics.prom');
    const api = () => cluster({ [`http://node-a:15692/metrics/detailed?${QUERY_ON}`]: answer(dir, 'auth_attempt_metrics.prom'), 'http://node-a:15692/metrics': text }, ['rabbit@node-a']);
    const broker = brokerFrom(`rabbitmq-${version === '3.10.x' ? '3.10.8' : version}`);
    /** The plugin's typed erlang_vm_* samples, as `name{labels} value` with the node's name added. */
    const recorded = (node: string) => {
      const typed = new Set([...text.matchAll(/^# TYPE (erlang_vm_\S+) (gauge|counter)$/gm)].map((m) => m[1]!));
      return text.split('\n').filter((line) => typed.has(line.replace(/[{ ].*$/, ''))).map((line) => {
        const [series, value] = [line.slice(0, line.lastIndexOf(' ')), line.slice(line.lastIndexOf(' ') + 1)];
        const open = series.indexOf('{');
        const name = open === -1 ? series : series.slice(0, open);
        const labels = open === -1 ? '' : `${series.slice(open + 1, -1)},`;
        return `${name}{${labels}node="${node}"} ${Number(value)}`;
      });
    };

    it('every typed sample, value for value, with node; none of the untyped ones', async () => {
      const run = await runCollector(pluginCollector, { api: api(), broker, options: { erlang_vm: true } });
      const node = run.family('rabbitmq_exporter_plugin_node_up')[0]!.labels.node!;
      const served = run.text.split('\n').filter((line) => line.startsWith('erlang_vm_')).map((line) => line.replace(/ (\S+)$/, (_, v) => ` ${Number(v)}`));
      const want = recorded(node);
      expect(want.length).toBeGreaterThan(100);
      // Labels in the plugin's order and the row's may differ: compare as sets of name{sorted labels} value.
      const canonical = (line: string) => {
        const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
        const labels = (m[2] ?? '').match(/[a-z_]+="(?:[^"\\]|\\.)*"/g) ?? [];
        return `${m[1]}{${labels.filter((l) => !l.endsWith('=""')).sort().join(',')}} ${m[3]}`;
      };
      expect(served.map(canonical).sort()).toEqual(want.map(canonical).sort());
      expect(run.text).not.toMatch(/^erlang_vm_(smp_support|threads|time_correction)/m);
    });

    it('erlang_vm: false (the default) relays none, and asks for /metrics only for the global counters', async () => {
      const run = await runCollector(pluginCollector, { api: api(), broker });
      expect(run.text).not.toContain('\nerlang_vm_');
      const off = await runCollector(pluginCollector, { api: api(), broker, options: { erlang_vm: false, global: false } });
      expect(off.requests.map((r) => r.path)).not.toContain('http://node-a:15692/metrics');
    });
  });
});
