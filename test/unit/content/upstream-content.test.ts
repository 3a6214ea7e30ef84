import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import type { MetricDef } from '../../../src/model/metric-def.js';
import { NODE_TARGET_FAMILIES } from '../../../src/pipeline/node-share.js';
import { NODE_TOTALS } from '../../../src/pipeline/node-totals.js';
import { REPO_ROOT } from '../../support/fixtures.js';
import { UPSTREAM_EXPRESSIONS, type UpstreamExpression } from './upstream-content.js';

/**
 * Which of the names that public content for rabbitmq_prometheus uses (upstream-content.ts) the
 * exporter serves, by the catalogue. Every name it does not serve is listed with the reason, and the
 * lists must stay true: a name served since, or no longer used upstream, fails the test too.
 */

// Why a name is not served. A reason is one of these kinds; "another name" ones name the exporter's
// family, which the test checks is served.
const PLUGIN_ONLY = 'plugin only: ';
const ANOTHER_NAME = 'another name: served as ';
const NOT_RABBITMQ = 'not RabbitMQ: ';
const MADE_BY_PROMETHEUS = 'made by Prometheus: ';
const GONE = 'served by no broker here: ';
const REASON_KINDS = [PLUGIN_ONLY, ANOTHER_NAME, NOT_RABBITMQ, MADE_BY_PROMETHEUS, GONE];
const servedAs = (name: string, note?: string): string => `${ANOTHER_NAME}${name}${note ? ` (${note})` : ''}`;

const OLD_VM_NAME = `${GONE}an older prometheus.erl's name; the plugin of RabbitMQ 3.10, 4.0 and 4.3 serves none by it (test/fixtures/plugin-*/metrics.prom), so neither does its relay`;
const INET_TCP = `${PLUGIN_ONLY}the experimental inet_tcp_metrics distribution carrier (-proto_dist inet_tcp_metrics) serves them on the node's /metrics`;
const PERFTEST = `${NOT_RABBITMQ}PerfTest, the load tool (RabbitMQ-PerfTest and Erlang-Distributions-Compare)`;
const KUBE_STATE = `${NOT_RABBITMQ}kube-state-metrics`;
const CADVISOR = `${NOT_RABBITMQ}cAdvisor (the kubelet's container metrics)`;
const NODE_EXPORTER = `${NOT_RABBITMQ}node_exporter`;
const PROCESS_FDS = 'prometheus.erl\'s process collector, which the plugin does not serve; the exporter\'s own process_* are its Node process\'s';

/** Every metric name upstream uses that the exporter does not serve today → why. */
const KNOWN_GAPS: Readonly<Record<string, string>> = {
  erlang_vm_dets_tables: OLD_VM_NAME,
  erlang_vm_ets_tables: OLD_VM_NAME,
  erlang_vm_statistics_run_queues_length_total: OLD_VM_NAME,
  inet_tcp_metrics_atom_cache_ref_entries_total_bucket: INET_TCP,
  inet_tcp_metrics_atom_cache_ref_new_entries_total_bucket: INET_TCP,
  inet_tcp_metrics_control_message_total: INET_TCP,
  inet_tcp_metrics_dist_ctrl_get_data_duration_seconds_bucket: INET_TCP,
  inet_tcp_metrics_dist_ctrl_put_data_duration_seconds_bucket: INET_TCP,
  inet_tcp_metrics_driver_send_duration_seconds_bucket: INET_TCP,
  inet_tcp_metrics_fragmented_messages_total_bucket: INET_TCP,
  inet_tcp_metrics_packet_size_bytes_bucket: INET_TCP,
  inet_tcp_metrics_packet_size_bytes_sum: INET_TCP,
  inet_tcp_metrics_packet_type_total: INET_TCP,
  inet_tcp_metrics_receive_duration_seconds_bucket: INET_TCP,
  process_max_fds: servedAs('rabbitmq_process_max_fds', `Erlang-BEAM reads ${PROCESS_FDS}`),
  process_open_fds: servedAs('rabbitmq_process_open_fds', `Erlang-BEAM reads ${PROCESS_FDS}`),
  container_cpu_usage_seconds_total: CADVISOR,
  container_network_receive_bytes_total: CADVISOR,
  container_network_transmit_bytes_total: CADVISOR,
  http_request_duration_microseconds: `${NOT_RABBITMQ}kbudde/rabbitmq_exporter's own Go HTTP client metric (rabbitmq-exporter_vs_rabbitmq-prometheus)`,
  kube_deployment_status_replicas_unavailable: KUBE_STATE,
  kube_persistentvolumeclaim_labels: KUBE_STATE,
  kube_persistentvolumeclaim_status_phase: KUBE_STATE,
  kube_pod_container_status_restarts_total: KUBE_STATE,
  kube_statefulset_labels: KUBE_STATE,
  kube_statefulset_replicas: KUBE_STATE,
  kube_statefulset_status_replicas_ready: KUBE_STATE,
  node_cpu_seconds_total: NODE_EXPORTER,
  node_network_info: NODE_EXPORTER,
  node_network_receive_bytes_total: NODE_EXPORTER,
  node_network_transmit_bytes_total: NODE_EXPORTER,
  perftest_confirm_latency_seconds: PERFTEST,
  perftest_confirmed: PERFTEST,
  perftest_consumed: PERFTEST,
  perftest_latency_seconds: PERFTEST,
  perftest_nacked: PERFTEST,
  perftest_published: PERFTEST,
  perftest_returned: PERFTEST,
};

/**
 * Series Prometheus itself makes, there beside any target: not the exporter's to serve. The
 * outputs of upstream's own recording rules (their `where` is `record <name>`) count likewise.
 */
const PROMETHEUS_MADE: Readonly<Record<string, string>> = {
  ALERTS: 'Prometheus\'s series of pending and firing alerts',
  ALERTS_FOR_STATE: 'Prometheus\'s series of when each active alert became active',
  scrape_duration_seconds: 'Prometheus adds it to every target\'s scrape',
};

/** Labels Prometheus puts on every series of a target, so an exporter need not serve them. */
const TARGET_LABELS: Readonly<Record<string, string>> = {
  instance: 'target label: the address scraped',
  job: 'target label: the scrape job',
  namespace: 'target label from Kubernetes discovery (Prometheus Operator ServiceMonitor/PodMonitor)',
  pod: 'target label from Kubernetes discovery (Prometheus Operator ServiceMonitor/PodMonitor)',
  service: 'target label from Kubernetes discovery (Prometheus Operator ServiceMonitor)',
  container: 'target label from Kubernetes discovery (Prometheus Operator ServiceMonitor/PodMonitor)',
  endpoint: 'target label from Kubernetes discovery (Prometheus Operator ServiceMonitor: the port\'s name)',
};

/** rabbitmq_identity_info's labels, which upstream joins onto every series with group_left. */
const IDENTITY_LABELS = ['rabbitmq_node', 'rabbitmq_cluster', 'rabbitmq_cluster_permanent_id'];
/** Labels of histogram buckets and summary quantiles. */
const BUCKET_LABELS = ['le', 'quantile'];

const ALERT_LABELS = `${MADE_BY_PROMETHEUS}a label of ALERTS, ALERTS_FOR_STATE or the recording rules made from them (the alert's name, state and own labels)`;
const KUBE_LABEL = `${NOT_RABBITMQ}a label of kube-state-metrics' series`;
const INET_TCP_LABEL = `${PLUGIN_ONLY}a label of inet_tcp_metrics_* series`;

/** Every label upstream uses that no served family of the expression carries (and not a target, identity or bucket label) → why. */
const KNOWN_LABEL_GAPS: Readonly<Record<string, string>> = {
  alert_state_numeric: ALERT_LABELS,
  alertname: ALERT_LABELS,
  alertstate: ALERT_LABELS,
  rulesgroup: ALERT_LABELS,
  severity: ALERT_LABELS,
  dst_node: INET_TCP_LABEL,
  src_node: INET_TCP_LABEL,
  traffic_direction: INET_TCP_LABEL,
  deployment: KUBE_LABEL,
  label_app_kubernetes_io_component: KUBE_LABEL,
  label_app_kubernetes_io_name: KUBE_LABEL,
  persistentvolumeclaim: `${NOT_RABBITMQ}a label of kube-state-metrics' series (and of the alerts made from them)`,
  phase: KUBE_LABEL,
  statefulset: KUBE_LABEL,
  mode: `${NOT_RABBITMQ}a label of node_exporter's node_cpu_seconds_total`,
  name: `${NOT_RABBITMQ}a label of cAdvisor's container series`,
  prometheus_client_version: `${PLUGIN_ONLY}a label of the plugin's rabbitmq_build_info: the version of its Prometheus client library`,
  rabbitmq_endpoint: `${PLUGIN_ONLY}the plugin's rabbitmq_identity_info tells its endpoints apart (aggregated, per-object, detailed, memory-breakdown); the exporter's has no such label, so a matcher rabbitmq_endpoint="aggregated" finds nothing`,
};

// ---- what the catalogue serves

const defs: readonly MetricDef[] = catalogue(COLLECTORS);
const nodeTargetDefs: ReadonlySet<MetricDef> = new Set(NODE_TARGET_FAMILIES);

/** The names a family answers to, each with the family serving it: its own, a counter's without `_total` (OpenMetrics), a histogram's series, its rate gauge's. */
function namesOf(def: MetricDef): [string, MetricDef][] {
  const names: [string, MetricDef][] = [[def.name, def]];
  if (def.type === 'counter') names.push([def.name.replace(/_total$/, ''), def]);
  if (def.type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.push([`${def.name}${suffix}`, def]);
  if (def.rate) names.push(...namesOf(def.rate));
  return names;
}

/** Served on node targets: node-labelled, queue-labelled (placed by rabbitmq_queue_info's node), or added to each node's share. */
function onNodeTargets(def: MetricDef): boolean {
  return def.labels.includes('node') || (def.labels[0] === 'vhost' && def.labels[1] === 'queue') || nodeTargetDefs.has(def);
}

/** Metric name → the families serving it (rabbitmq_identity_info and rabbitmq_build_info: the cluster target's and the node targets'). */
function servingMap(families: readonly MetricDef[]): Map<string, MetricDef[]> {
  const map = new Map<string, MetricDef[]>();
  for (const def of families) {
    for (const [name, serving] of namesOf(def)) {
      const list = map.get(name) ?? [];
      if (!list.includes(serving)) list.push(serving);
      map.set(name, list);
    }
  }
  return map;
}
const servingDefs = servingMap([...defs, ...nodeTargetDefs]);

/** What is served with the plugin collector off (the management API alone): no family it polls, no node total made from one. */
const PLUGIN_COLLECTOR = 'plugin';
const fromPluginCollector = new Set<MetricDef>(NODE_TOTALS.filter((t) => t.from.polledBy === PLUGIN_COLLECTOR).map((t) => t.def));
const servingDefsApiAlone = servingMap([...defs, ...nodeTargetDefs].filter((def) => def.polledBy !== PLUGIN_COLLECTOR && !fromPluginCollector.has(def)));

const NO_API_SOURCE = 'the management API has no source: ';
const STREAM_ERRORS = `${NO_API_SOURCE}the stream protocol's error counters are kept by the stream plugin alone`;
const RAFT = `${NO_API_SOURCE}a quorum queue member's Raft log indexes, term and commit latency are not in /api/queues`;
const BY_PROTOCOL = `${NO_API_SOURCE}per protocol; the API's totals have none (rabbitmq_consumers is the cluster's or the node's consumers)`;

/**
 * Every name upstream uses, erlang_vm_* aside, that only the plugin collector serves → why the
 * management API cannot: with the plugin collector off, these expressions have no data.
 */
const PLUGIN_COLLECTOR_ONLY: Readonly<Record<string, string>> = {
  rabbitmq_alarms_file_descriptor_limit: `${NO_API_SOURCE}/api/nodes has the memory and disk alarms only (mem_alarm, disk_free_alarm)`,
  rabbitmq_global_consumers: BY_PROTOCOL,
  rabbitmq_global_publishers: `${NO_API_SOURCE}publishers per protocol; /api/overview counts none (quorum queues list their own, rabbitmq_queue_publishers)`,
  rabbitmq_global_messages_received_confirm_total: `${NO_API_SOURCE}message_stats does not count publishes in confirm mode apart`,
  rabbitmq_global_messages_routed_total: `${NO_API_SOURCE}message_stats counts publishes in and out of exchanges, not deliveries routed to queues`,
  ...Object.fromEntries(['bucket', 'count', 'sum'].map((series) => [`rabbitmq_message_size_bytes_${series}`, `${NO_API_SOURCE}the API keeps no histogram of message sizes (the plugin's, 4.1+)`])),
  ...Object.fromEntries(
    [
      'access_refused',
      'authentication_failure',
      'frame_too_large',
      'internal_error',
      'precondition_failed',
      'publisher_does_not_exist',
      'sasl_authentication_failure_loopback',
      'sasl_challenge',
      'sasl_error',
      'sasl_mechanism_not_supported',
      'stream_already_exists',
      'stream_does_not_exist',
      'stream_not_available',
      'subscription_id_already_exists',
      'subscription_id_does_not_exist',
      'unknown_frame',
      'vhost_access_failure',
    ].map((error) => [`rabbitmq_global_stream_error_${error}_total`, STREAM_ERRORS]),
  ),
  ...Object.fromEntries(
    ['commit_index', 'commit_latency_seconds', 'last_written_index', 'log_commit_index', 'log_last_written_index', 'log_snapshot_index', 'snapshot_index', 'term'].map((field) => [`rabbitmq_raft_${field}`, RAFT]),
  ),
};

/** Outputs of upstream's own recording rules. */
const RECORDED = new Set(UPSTREAM_EXPRESSIONS.filter((e) => e.where.startsWith('record ')).map((e) => e.where.slice('record '.length)));

type Availability = 'node targets' | 'cluster target only' | 'prometheus' | undefined;

function availability(name: string, serving: ReadonlyMap<string, MetricDef[]> = servingDefs): Availability {
  const list = serving.get(name);
  if (list) return list.some(onNodeTargets) ? 'node targets' : 'cluster target only';
  if (name in PROMETHEUS_MADE || RECORDED.has(name)) return 'prometheus';
  return undefined;
}

const exporterServes = (name: string): boolean => servingDefs.has(name);

/** A label needs nothing of the exporter (target, identity, bucket label) or a served family of the expression carries it. */
function labelIsFine(label: string, expression: UpstreamExpression): boolean {
  if (label in TARGET_LABELS || IDENTITY_LABELS.includes(label) || BUCKET_LABELS.includes(label)) return true;
  return expression.metrics.some((metric) => (servingDefs.get(metric) ?? []).some((def) => def.labels.includes(label)));
}

// ---- coverage

interface Coverage {
  readonly expressions: number;
  readonly anywhere: number;
  readonly onNodeTargets: number;
  /** Served with the plugin collector off. */
  readonly apiAlone: number;
  readonly apiAloneOnNodeTargets: number;
}

function coverage(expressions: readonly UpstreamExpression[]): Coverage {
  const withMetrics = expressions.filter((e) => e.metrics.length > 0);
  const all = (e: UpstreamExpression, ok: (a: Availability) => boolean, serving = servingDefs): boolean => e.metrics.every((m) => ok(availability(m, serving)));
  const served = (a: Availability) => a !== undefined;
  const onNodes = (a: Availability) => a === 'node targets' || a === 'prometheus';
  return {
    expressions: withMetrics.length,
    anywhere: withMetrics.filter((e) => all(e, served)).length,
    onNodeTargets: withMetrics.filter((e) => all(e, onNodes)).length,
    apiAlone: withMetrics.filter((e) => all(e, served, servingDefsApiAlone)).length,
    apiAloneOnNodeTargets: withMetrics.filter((e) => all(e, onNodes, servingDefsApiAlone)).length,
  };
}

/**
 * The plugin answers an expression (on RabbitMQ 3.10, 4.0 or 4.3) unless it needs a name the plugin
 * does not serve either: another program's, one no broker here serves, the experimental
 * distribution carrier's, or prometheus.erl's process collector's.
 */
const pluginLacks = (reason: string): boolean => reason.startsWith(NOT_RABBITMQ) || reason.startsWith(GONE) || reason === INET_TCP || reason.includes(PROCESS_FDS);
const pluginAnswers = (e: UpstreamExpression): boolean => e.metrics.length > 0 && e.metrics.every((m) => !(m in KNOWN_GAPS) || !pluginLacks(KNOWN_GAPS[m]!));
const ofPluginAnswered = coverage(UPSTREAM_EXPRESSIONS.filter(pluginAnswers));
const percent = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

const isErlangVm = (e: UpstreamExpression): boolean => e.metrics.some((m) => m.startsWith('erlang_vm_'));
const everything = coverage(UPSTREAM_EXPRESSIONS);
const withoutErlangVm = coverage(UPSTREAM_EXPRESSIONS.filter((e) => !isErlangVm(e)));
const describeCoverage = (c: Coverage): string => `${c.anywhere}/${c.expressions} anywhere, ${c.onNodeTargets}/${c.expressions} on node targets`;

/**
 * Ratchets: how many expressions the exporter serves every metric of, today. Raise them as
 * coverage grows; a change that lowers a figure fails.
 */
const FLOOR = { anywhere: 270, onNodeTargets: 270 };
const FLOOR_WITHOUT_ERLANG_VM = { anywhere: 183, onNodeTargets: 183, apiAlone: 146 };

const usedMetrics = new Set(UPSTREAM_EXPRESSIONS.flatMap((e) => e.metrics));
const usedLabels = new Set(UPSTREAM_EXPRESSIONS.flatMap((e) => e.labels));
const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe('public content for rabbitmq_prometheus (upstream-content.ts)', () => {
  it('is names only, each entry distinct and with a source at a commit', () => {
    const identifier = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
    const keys = new Set<string>();
    for (const e of UPSTREAM_EXPRESSIONS) {
      expect(e.source).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}:\S+$/);
      expect(e.where).toMatch(/^(panel \d+ |templating variable |annotation |alert |record )/);
      expect(e.metrics.length + e.labels.length, `${e.source} ${e.where}`).toBeGreaterThan(0);
      for (const name of [...e.metrics, ...e.labels]) expect(name).toMatch(identifier);
      keys.add(JSON.stringify([e.source, e.where, e.metrics, e.labels]));
    }
    expect(keys.size).toBe(UPSTREAM_EXPRESSIONS.length);
  });

  it('every metric name used upstream is served, made by Prometheus, or a known gap', () => {
    expect(sorted([...usedMetrics].filter((m) => availability(m) === undefined && !(m in KNOWN_GAPS)))).toEqual([]);
  });

  it('no known gap is served, made by Prometheus, or unused upstream', () => {
    expect(sorted(Object.keys(KNOWN_GAPS).filter(exporterServes)), 'served now: take them out of KNOWN_GAPS').toEqual([]);
    expect(sorted(Object.keys(KNOWN_GAPS).filter((m) => availability(m) === 'prometheus')), 'made by Prometheus').toEqual([]);
    expect(sorted(Object.keys(KNOWN_GAPS).filter((m) => !usedMetrics.has(m))), 'not used upstream').toEqual([]);
    expect(sorted(Object.keys(PROMETHEUS_MADE).filter((m) => exporterServes(m) || !usedMetrics.has(m)))).toEqual([]);
  });

  it('each reason is of a known kind, and a family it names is served', () => {
    for (const [name, reason] of [...Object.entries(KNOWN_GAPS), ...Object.entries(KNOWN_LABEL_GAPS)]) {
      expect(REASON_KINDS.some((kind) => reason.startsWith(kind)), `${name}: ${reason}`).toBe(true);
      const servedName = reason.startsWith(ANOTHER_NAME) ? reason.slice(ANOTHER_NAME.length).split(' ')[0]! : undefined;
      if (servedName) expect(exporterServes(servedName), `${name}: ${servedName}`).toBe(true);
    }
    for (const name of Object.keys(KNOWN_GAPS)) {
      if (name.startsWith('erlang_vm_')) expect([PLUGIN_ONLY, ANOTHER_NAME, GONE].some((kind) => KNOWN_GAPS[name]!.startsWith(kind)), name).toBe(true);
    }
  });

  it('every label used upstream is a target, identity or bucket label, carried by a served family of its expression, or a known gap', () => {
    const unexplained = new Set<string>();
    for (const e of UPSTREAM_EXPRESSIONS) for (const label of e.labels) if (!labelIsFine(label, e) && !(label in KNOWN_LABEL_GAPS)) unexplained.add(label);
    expect(sorted(unexplained)).toEqual([]);
  });

  it('no known label gap is fine wherever it is used, or unused upstream', () => {
    const needed = new Set<string>();
    for (const e of UPSTREAM_EXPRESSIONS) for (const label of e.labels) if (!labelIsFine(label, e)) needed.add(label);
    expect(sorted(Object.keys(KNOWN_LABEL_GAPS).filter((l) => usedLabels.has(l) && !needed.has(l))), 'fine now: take them out of KNOWN_LABEL_GAPS').toEqual([]);
    expect(sorted(Object.keys(KNOWN_LABEL_GAPS).filter((l) => !usedLabels.has(l))), 'not used upstream').toEqual([]);
  });

  it('every name upstream uses that the plugin collector alone serves (erlang_vm_* aside) is listed with why the management API cannot', () => {
    const pluginCollectorOnly = [...usedMetrics].filter((m) => !m.startsWith('erlang_vm_') && availability(m) !== undefined && availability(m, servingDefsApiAlone) === undefined);
    expect(sorted(pluginCollectorOnly)).toEqual(sorted(Object.keys(PLUGIN_COLLECTOR_ONLY)));
  });

  describe(`coverage: of all expressions ${describeCoverage(everything)}; without erlang_vm_* ${describeCoverage(withoutErlangVm)}`, () => {
    it('does not drop below the ratchet', () => {
      console.log(`upstream expressions with every metric served: all ${describeCoverage(everything)}; without erlang_vm_* ${describeCoverage(withoutErlangVm)}`);
      expect(everything.anywhere).toBeGreaterThanOrEqual(FLOOR.anywhere);
      expect(everything.onNodeTargets).toBeGreaterThanOrEqual(FLOOR.onNodeTargets);
      expect(withoutErlangVm.anywhere).toBeGreaterThanOrEqual(FLOOR_WITHOUT_ERLANG_VM.anywhere);
      expect(withoutErlangVm.onNodeTargets).toBeGreaterThanOrEqual(FLOOR_WITHOUT_ERLANG_VM.onNodeTargets);
      expect(withoutErlangVm.apiAlone).toBeGreaterThanOrEqual(FLOOR_WITHOUT_ERLANG_VM.apiAlone);
    });
  });
});

// ---- docs/plugin-migration.md's section, from the same figures

const MIGRATION_PAGE = 'docs/plugin-migration.md';
const SECTION = /(<!-- upstream-coverage: [^>]*-->\n)[\s\S]*?(<!-- \/upstream-coverage -->)/;

/** Each source file's figures, then the names not served, by reason. */
function coverageSection(): string {
  const bySource = new Map<string, UpstreamExpression[]>();
  for (const e of UPSTREAM_EXPRESSIONS) {
    const [repo, path] = [e.source.slice(0, e.source.indexOf('@')), e.source.slice(e.source.indexOf(':') + 1)];
    const key = `${repo} \`${path}\``;
    bySource.set(key, [...(bySource.get(key) ?? []), e]);
  }
  const rows = [...bySource].sort(([a], [b]) => a.localeCompare(b)).map(([source, expressions]) => {
    const c = coverage(expressions);
    return `| ${source} | ${c.expressions} | ${c.anywhere} | ${c.onNodeTargets} |`;
  });
  const byReason = (list: Readonly<Record<string, string>>): string[] => {
    const reasons = new Map<string, string[]>();
    for (const [name, reason] of Object.entries(list)) reasons.set(reason, [...(reasons.get(reason) ?? []), name]);
    return [...reasons].sort(([a], [b]) => a.localeCompare(b)).map(([reason, names]) => `- ${reason}: ${names.sort().map((n) => `\`${n}\``).join(', ')}`);
  };
  const apiAlone = coverage(UPSTREAM_EXPRESSIONS.filter((e) => pluginAnswers(e) && !isErlangVm(e)));
  return [
    `In all: ${everything.expressions} expressions with a metric; ${everything.anywhere} served, ${everything.onNodeTargets} on node targets (without \`erlang_vm_*\`: ${withoutErlangVm.anywhere} and ${withoutErlangVm.onNodeTargets} of ${withoutErlangVm.expressions}).`,
    `Of the ${ofPluginAnswered.expressions} that the plugin itself answers (on RabbitMQ 3.10, 4.0 or 4.3; the others need another program's series, or one no broker here serves), ${ofPluginAnswered.onNodeTargets} on node targets: ${percent(ofPluginAnswered.onNodeTargets, ofPluginAnswered.expressions)}.`,
    '',
    '| source | expressions | served | on node targets |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Not served, by reason:',
    '',
    ...byReason(KNOWN_GAPS),
    '',
    `With the plugin collector off (the management API alone), of the ${apiAlone.expressions} that the plugin answers without \`erlang_vm_*\`: ${apiAlone.apiAlone} served, ${apiAlone.apiAloneOnNodeTargets} on node targets (the global message counters are then the cluster's, on its target). ${apiAlone.expressions > apiAlone.anywhere ? `Of the others, ${apiAlone.expressions - apiAlone.anywhere} need a name not served at all (above), and ${apiAlone.anywhere - apiAlone.apiAlone}` : `The other ${apiAlone.anywhere - apiAlone.apiAlone} need`} a family only the plugin collector serves:`,
    '',
    ...byReason(PLUGIN_COLLECTOR_ONLY),
    '',
  ].join('\n');
}

describe(MIGRATION_PAGE, () => {
  it('holds the coverage this test computes (UPDATE_DOCS=1 rewrites it)', () => {
    const path = join(REPO_ROOT, MIGRATION_PAGE);
    const page = readFileSync(path, 'utf8');
    expect(page).toMatch(SECTION);
    const wanted = page.replace(SECTION, (_, open: string, close: string) => `${open}${coverageSection()}${close}`);
    if (process.env.UPDATE_DOCS === '1') writeFileSync(path, wanted);
    expect(page, `${MIGRATION_PAGE} is out of date: UPDATE_DOCS=1 npx vitest run --project unit test/unit/content`).toBe(wanted);
  });
});

