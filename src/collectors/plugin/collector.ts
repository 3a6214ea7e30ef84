import pLimit from 'p-limit';
import { z } from 'zod';
import { parseVersion } from '../../broker/broker-info.js';
import { duration } from '../../model/duration.js';
import { type MetricDef, metricsOf } from '../../model/metric-def.js';
import type { SampleSink } from '../../exposition/sample-sink.js';
import type { CollectContext, Collector } from '../kit/collector.js';
import { logOnce } from '../kit/log-once.js';
import { partTimeoutMs, partsCutOff } from '../kit/optional-part.js';
import { carried } from '../kit/carried.js';
import { pluginEndpoints } from './endpoints.js';
import { erlangVmMetrics } from './erlang-vm-metrics.js';
import { pluginMetrics as M } from './metrics.js';
import { type NodeScrape, scrapeNode } from './node-scrape.js';
import { type NodeCounters, QueueCounterMemory, queueCounterFamilies, writeQueueCounters } from './queue-counters.js';
import type { PluginExposition } from './text-parser.js';

/** Detailed families whose samples this collector serves (the per-queue counters' families come by themselves). */
export const PLUGIN_FAMILIES = ['auth_attempt_metrics', 'ra_metrics'] as const;
const CAP_SETTING = 'collectors.plugin.max_answer_bytes';

const options = z.strictObject({
  /** rabbitmq_prometheus base URLs (e.g. https://mq.example:15692) instead of the nodes of /api/nodes: brokers behind a load balancer, hosted brokers. */
  urls: z.array(z.url({ protocol: /^https?$/ }).refine((url) => !new URL(url).username && !new URL(url).password, 'a plugin URL carries no credentials: the target\'s are used')).default([]),
  /** The plugin's port on each node found in /api/nodes (prometheus.tcp.port / prometheus.ssl.port). */
  port: z.number().int().min(1).max(65_535).default(15_692),
  scheme: z.enum(['http', 'https']).default('http'),
  /** Detailed families read for what only the plugin counts: auth attempts, Raft. */
  families: z.array(z.enum(PLUGIN_FAMILIES)).default([...PLUGIN_FAMILIES]),
  /** The node's global counters and gauges from `/metrics` (GLOBAL_ROWS, dead-lettered by reason, the metadata store's Raft member). */
  global: z.boolean().default(true),
  /**
   * The node's Erlang VM families from `/metrics` (erlang_vm_*), relayed under the plugin's names
   * for its Erlang dashboards: some 90 families a node, named as the plugin names them, which is
   * not as Prometheus' naming rules would (promtool check metrics says so, of the plugin's too).
   */
  erlang_vm: z.boolean().default(false),
  /** One node's requests, from when they are sent (default: a third of the poll's timeout): a node that never answers fails alone, before the poll's deadline. */
  node_timeout: duration.refine((ms) => ms > 0, 'must be longer than 0').optional(),
  /** Nodes scraped at once. */
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Largest answer of one node accepted, in bytes; a larger one fails that node alone. */
  max_answer_bytes: z.number().int().positive().default(64 * 1024 * 1024),
});
type PluginOptions = z.infer<typeof options>;

export const pluginCollector: Collector<PluginOptions> = {
  name: 'plugin',
  description: 'GET /api/nodes (unless urls are given), then each node\'s rabbitmq_prometheus: GET /metrics/detailed?family=... and GET /metrics (its global counters, its metadata store\'s Raft member, and its Erlang VM families relayed as erlang_vm_*). Off by default.',
  defaultEnabled: false,
  defaultIntervalMultiplier: 2,
  metrics: [...metricsOf(M), ...metricsOf(erlangVmMetrics)],
  optionsSchema: options,
  async collect(ctx) {
    const { sink, options: o } = ctx;
    const [major] = parseVersion(ctx.broker.rabbitmqVersion);
    // The queue collector serves these counters from the management API while it has statistics:
    // one family is fed by one collector at a time.
    const queueCounters = ctx.broker.statisticsDisabled;
    const families = [...o.families, ...(queueCounters ? queueCounterFamilies(major) : [])];
    const endpoints = await pluginEndpoints(ctx, o);
    const limit = pLimit(o.concurrency);
    // Each node's requests end at their own deadline, and all of them before the poll's.
    const limits = { timeoutMs: partTimeoutMs(ctx, o.node_timeout), signal: partsCutOff(ctx) };
    const plan = { families, global: o.global || o.erlang_vm, cap: { bytes: o.max_answer_bytes, name: CAP_SETTING }, limits };
    const scrapes = await Promise.all(endpoints.map((endpoint) => limit(() => scrapeNode(ctx, endpoint, plan))));
    const answered: { node: string; detailed?: PluginExposition; global?: PluginExposition }[] = [];
    const seen = new Set<string>();
    for (const scrape of scrapes) {
      const duplicate = !('failure' in scrape) && seen.has(scrape.node);
      const failure = 'failure' in scrape ? scrape.failure : duplicate ? duplicateOf(scrape) : undefined;
      // A duplicate is named by its URL: its node's name is already served, up.
      const node = duplicate ? scrape.endpoint.node : scrape.node;
      sink.add(M.nodeUp, { node }, failure ? 0 : 1);
      if (failure) {
        sink.add(M.nodeFailure, { node, reason: failure.reason }, 1);
        logOnce(ctx, 'warn', `plugin:${scrape.endpoint.base}:${failure.reason}`, { node, reason: failure.reason, detail: failure.detail }, 'rabbitmq_prometheus of a node failed: its plugin series are missing');
        continue;
      }
      if ('failure' in scrape) continue; // (narrowing only: a failed scrape has its failure)
      seen.add(scrape.node);
      answered.push(scrape);
    }
    for (const node of answered) {
      writeNodeRows(sink, { ...node, global: o.global ? node.global : undefined });
      if (o.erlang_vm) relayErlangVm(ctx, node.node, node.global);
    }
    sink.add(M.queueCountersServed, {}, queueCounters ? 1 : 0);
    if (queueCounters) writeQueueCounters(sink, queueCountersOf(scrapes, ctx.carryOver), major, carried(ctx.carryOver, 'queue-counters', () => new QueueCounterMemory()));
  },
};

/**
 * Each node's per-queue counters; a node that failed this poll gives those of its last answer, so
 * its queues' counters neither drop nor count twice when it answers again. A node answering twice
 * (two URLs behind one load balancer) is counted once.
 */
function queueCountersOf(scrapes: readonly NodeScrape[], carryOver: Map<string, unknown>): NodeCounters[] {
  const lastAnswers = carried(carryOver, 'last-answers', () => new Map<string, PluginExposition>());
  const nodes = new Set<string>();
  const counters: NodeCounters[] = [];
  for (const scrape of scrapes) {
    const source = scrape.endpoint.base;
    const answer = 'failure' in scrape ? lastAnswers.get(source) : scrape.detailed;
    if (!('failure' in scrape)) {
      if (nodes.has(scrape.node)) continue;
      nodes.add(scrape.node);
      if (scrape.detailed) lastAnswers.set(source, scrape.detailed);
    }
    if (answer) counters.push({ source, exposition: answer });
  }
  for (const source of lastAnswers.keys()) if (!scrapes.some((s) => s.endpoint.base === source)) lastAnswers.delete(source);
  return counters;
}

/** Two URLs answered by the same node (a load balancer): the second is left out, or its counts would be served twice. */
function duplicateOf(scrape: NodeScrape) {
  return { reason: 'duplicate_node', detail: `${scrape.endpoint.base} is answered by node ${scrape.node}, which another URL already answered` };
}

const NODE_CHANNEL = 'rabbitmq_node_channel_';

/** The plugin's per-node families of GET /metrics served as they are, node added, and the row of each. */
export const GLOBAL_ROWS: readonly (readonly [string, MetricDef])[] = [
  ['rabbitmq_global_messages_received_total', M.received],
  ['rabbitmq_global_messages_received_confirm_total', M.receivedConfirm],
  ['rabbitmq_global_messages_routed_total', M.routed],
  ['rabbitmq_global_messages_confirmed_total', M.confirmed],
  ['rabbitmq_global_messages_unroutable_returned_total', M.unroutableReturned],
  ['rabbitmq_global_messages_unroutable_dropped_total', M.unroutableDropped],
  ['rabbitmq_global_messages_delivered_total', M.delivered],
  ['rabbitmq_global_messages_delivered_consume_manual_ack_total', M.deliveredConsumeManualAck],
  ['rabbitmq_global_messages_delivered_consume_auto_ack_total', M.deliveredConsumeAutoAck],
  ['rabbitmq_global_messages_delivered_get_manual_ack_total', M.deliveredGetManualAck],
  ['rabbitmq_global_messages_delivered_get_auto_ack_total', M.deliveredGetAutoAck],
  ['rabbitmq_global_messages_get_empty_total', M.getEmpty],
  ['rabbitmq_global_messages_redelivered_total', M.redelivered],
  ['rabbitmq_global_messages_acknowledged_total', M.acknowledged],
  ['rabbitmq_global_publishers', M.publishers],
  ['rabbitmq_global_consumers', M.consumers],
  ...Object.values(M)
    .filter((row) => row.name.startsWith(NODE_CHANNEL))
    .map((row) => [`rabbitmq_channel_${row.name.slice(NODE_CHANNEL.length)}`, row] as const),
];

/**
 * The metadata store's Raft member (Khepri, the only store from 4.3 on) among the Raft families of
 * GET /metrics: the samples of module rabbit_khepri; the others there are its log's writers.
 */
const METADATA_STORE_ROWS: readonly (readonly [string, MetricDef])[] = [
  ['rabbitmq_raft_term', M.metadataTerm],
  ['rabbitmq_raft_elections', M.metadataElections],
  ['rabbitmq_raft_commit_index', M.metadataCommitIndex],
  ['rabbitmq_raft_last_applied', M.metadataLastApplied],
  ['rabbitmq_raft_last_written_index', M.metadataLastWritten],
  ['rabbitmq_raft_snapshot_index', M.metadataSnapshotIndex],
  ['rabbitmq_raft_commit_latency_seconds', M.metadataCommitLatency],
];
const METADATA_STORE_MODULE = 'rabbit_khepri';

/**
 * A quorum queue's Raft member on a node, from GET /metrics/detailed?family=ra_metrics: the
 * samples with vhost and queue (the metadata store's carry module and ra_system instead). Before
 * RabbitMQ 4.2 (its release notes, "Ra Metric Changes") the plugin named them otherwise: both names
 * feed one row.
 */
const QUEUE_RAFT_ROWS: readonly (readonly [string, MetricDef])[] = [
  ['rabbitmq_detailed_raft_commit_latency_seconds', M.raftCommitLatency],
  ['rabbitmq_detailed_raft_entry_commit_latency_seconds', M.raftCommitLatency],
  ['rabbitmq_detailed_raft_commit_index', M.raftCommitIndex],
  ['rabbitmq_detailed_raft_log_commit_index', M.raftCommitIndex],
  ['rabbitmq_detailed_raft_term', M.raftTerm],
  ['rabbitmq_detailed_raft_term_total', M.raftTerm],
  ['rabbitmq_detailed_raft_last_applied', M.raftLastApplied],
  ['rabbitmq_detailed_raft_log_last_applied_index', M.raftLastApplied],
  ['rabbitmq_detailed_raft_last_written_index', M.raftLastWritten],
  ['rabbitmq_detailed_raft_log_last_written_index', M.raftLastWritten],
  ['rabbitmq_detailed_raft_snapshot_index', M.raftSnapshotIndex],
  ['rabbitmq_detailed_raft_log_snapshot_index', M.raftSnapshotIndex],
];

/** The plugin's stream protocol errors, one family each (rabbitmq_global_stream_error_<error>_total): one row, by error. */
const STREAM_ERROR = /^rabbitmq_global_stream_error_([a-z0-9_]+)_total$/;
/** The errors RabbitMQ's stream dashboard charts (RabbitMQ-Stream.json), which node targets serve under the plugin's names. */
const STREAM_ERRORS = [
  'access_refused', 'authentication_failure', 'frame_too_large', 'internal_error', 'precondition_failed', 'publisher_does_not_exist',
  'sasl_authentication_failure_loopback', 'sasl_challenge', 'sasl_error', 'sasl_mechanism_not_supported', 'stream_already_exists',
  'stream_does_not_exist', 'stream_not_available', 'subscription_id_already_exists', 'subscription_id_does_not_exist', 'unknown_frame',
  'vhost_access_failure',
] as const;

/** A plugin family read into a row, and the value of the row's label that is that family's (a row fed by several). */
export type PluginNamedRow = readonly [family: string, row: MetricDef, where?: { readonly label: string; readonly value: string }];

/**
 * What node targets serve under rabbitmq_prometheus' own names (its aggregated /metrics and its
 * per-object Raft families, as RabbitMQ 4.2 and later name them and as earlier versions did), each
 * from the row it is read into.
 */
export const PLUGIN_NAMED_ROWS: readonly PluginNamedRow[] = [
  ...GLOBAL_ROWS,
  ...STREAM_ERRORS.map((error): PluginNamedRow => [`rabbitmq_global_stream_error_${error}_total`, M.streamErrors, { label: 'error', value: error }]),
  ['rabbitmq_message_size_bytes', M.messageSize],
  ['rabbitmq_raft_commit_latency_seconds', M.raftCommitLatency],
  ['rabbitmq_raft_commit_index', M.raftCommitIndex],
  ['rabbitmq_raft_term', M.raftTerm],
  ['rabbitmq_raft_last_applied', M.raftLastApplied],
  ['rabbitmq_raft_last_written_index', M.raftLastWritten],
  ['rabbitmq_raft_snapshot_index', M.raftSnapshotIndex],
  // The same under the names of the plugins before 4.2, which dashboards of that time query (not
  // rabbitmq_raft_term_total: a gauge named _total).
  ['rabbitmq_raft_entry_commit_latency_seconds', M.raftCommitLatency],
  ['rabbitmq_raft_log_commit_index', M.raftCommitIndex],
  ['rabbitmq_raft_log_last_applied_index', M.raftLastApplied],
  ['rabbitmq_raft_log_last_written_index', M.raftLastWritten],
  ['rabbitmq_raft_log_snapshot_index', M.raftSnapshotIndex],
];

/** The same for the families of GET /metrics/detailed. */
const DETAILED_ROWS: readonly (readonly [string, MetricDef])[] = [
  ['rabbitmq_detailed_auth_attempts_total', M.authAttempts],
  ['rabbitmq_detailed_auth_attempts_succeeded_total', M.authSucceeded],
  ['rabbitmq_detailed_auth_attempts_failed_total', M.authFailed],
];

const DEAD_LETTER_REASONS = ['expired', 'rejected', 'maxlen', 'delivery_limit'] as const;

const ERLANG_VM = metricsOf(erlangVmMetrics);

/**
 * The node's erlang_vm_* samples as its plugin serves them, with its name as `node`; a label a
 * sample lacks is empty. A sample with a label its row does not know is left out (logged once):
 * without that label, series that differ by it would be served as one.
 */
function relayErlangVm(ctx: CollectContext<PluginOptions>, node: string, global: PluginExposition | undefined): void {
  if (!global) return;
  for (const def of ERLANG_VM) {
    for (const sample of global.samples.get(def.name) ?? []) {
      const unknown = Object.keys(sample.labels).filter((label) => !def.labels.includes(label));
      if (unknown.length > 0) {
        logOnce(ctx, 'warn', `plugin:erlang_vm:${def.name}:${unknown.join(',')}`, { node, family: def.name, labels: unknown }, 'an Erlang VM sample of rabbitmq_prometheus has labels the exporter does not relay: those samples are left out');
        continue;
      }
      ctx.sink.add(def, def.labels.map((label) => (label === 'node' ? node : (sample.labels[label] ?? ''))), sample.value);
    }
  }
}

/** The plugin's histogram of message sizes (4.1+), a series per protocol: its buckets in the order given, then count and sum. */
function writeMessageSizes(sink: SampleSink, node: string, global: PluginExposition | undefined): void {
  const family = 'rabbitmq_message_size_bytes';
  const byProtocol = new Map<string, { buckets: [string, number][]; count?: number; sum?: number }>();
  const of = (labels: Readonly<Record<string, string>>) => {
    const protocol = labels.protocol ?? '';
    let series = byProtocol.get(protocol);
    if (!series) {
      series = { buckets: [] };
      byProtocol.set(protocol, series);
    }
    return series;
  };
  for (const sample of global?.samples.get(`${family}_bucket`) ?? []) if (sample.labels.le !== undefined) of(sample.labels).buckets.push([sample.labels.le, sample.value]);
  for (const sample of global?.samples.get(`${family}_count`) ?? []) of(sample.labels).count = sample.value;
  for (const sample of global?.samples.get(`${family}_sum`) ?? []) of(sample.labels).sum = sample.value;
  for (const [protocol, { buckets, count, sum }] of byProtocol) {
    // A series without its count, sum or +Inf bucket is not a histogram Prometheus can read: left out, counted.
    if (count === undefined || sum === undefined || buckets.at(-1)?.[0] !== '+Inf') {
      sink.skipped++;
      continue;
    }
    sink.addHistogram(M.messageSize, { node, protocol }, { buckets, count, sum });
  }
}

/** The rows only the plugin has, from one node's answers. */
function writeNodeRows(sink: SampleSink, { node, detailed, global }: { node: string; detailed?: PluginExposition; global?: PluginExposition }): void {
  const each = (exposition: PluginExposition | undefined, family: string, write: (labels: Readonly<Record<string, string>>, value: number) => void) => {
    for (const sample of exposition?.samples.get(family) ?? []) write(sample.labels, sample.value);
  };
  for (const reason of DEAD_LETTER_REASONS) {
    each(global, `rabbitmq_global_messages_dead_lettered_${reason}_total`, (l, v) => sink.add(M.deadLettered, { node, queue_type: l.queue_type ?? '', dead_letter_strategy: l.dead_letter_strategy ?? '', reason }, v));
  }
  each(global, 'rabbitmq_global_messages_dead_lettered_confirmed_total', (l, v) => sink.add(M.deadLetteredConfirmed, { node, queue_type: l.queue_type ?? '', dead_letter_strategy: l.dead_letter_strategy ?? '' }, v));
  // The node's label is its name; the others are the plugin's own (empty where a sample lacks one).
  const labelled = (row: MetricDef, l: Readonly<Record<string, string>>) => Object.fromEntries(row.labels.map((label) => [label, label === 'node' ? node : (l[label] ?? '')]));
  for (const [family, row] of GLOBAL_ROWS) each(global, family, (l, v) => sink.add(row, labelled(row, l), v));
  for (const [family, row] of DETAILED_ROWS) each(detailed, family, (l, v) => sink.add(row, labelled(row, l), v));
  each(global, 'rabbitmq_alarms_file_descriptor_limit', (_, v) => sink.add(M.fileDescriptorAlarm, { node }, v));
  writeMessageSizes(sink, node, global);
  // Not on node targets under the plugin's name: a gauge named ..._count fails promtool check metrics.
  each(global, 'rabbitmq_unreachable_cluster_peers_count', (_, v) => sink.add(M.unreachablePeers, { node }, v));
  for (const [family, samples] of global?.samples ?? []) {
    const error = STREAM_ERROR.exec(family)?.[1];
    if (error) for (const sample of samples) sink.add(M.streamErrors, { node, protocol: sample.labels.protocol ?? '', error }, sample.value);
  }
  for (const [family, row] of METADATA_STORE_ROWS) {
    each(global, family, (l, v) => {
      if (l.module === METADATA_STORE_MODULE) sink.add(row, { node }, v);
    });
  }
  for (const [family, row] of QUEUE_RAFT_ROWS) {
    each(detailed, family, (l, v) => {
      if (l.queue !== undefined && l.vhost !== undefined) sink.add(row, { node, vhost: l.vhost, queue: l.queue }, v);
    });
  }
}
