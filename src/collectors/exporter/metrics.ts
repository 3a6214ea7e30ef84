import { defineMetrics } from '../../model/metric-def.js';

const g = 'gauge' as const;
const C = ['collector'] as const;

/** The exporter's own series. Process metrics come from prom-client under the same prefix. */
export const exporterMetrics = defineMetrics('exporter', {
  up: {
    name: 'rabbitmq_up',
    type: g,
    // Under kbudde: 1 only when no enabled module's last poll failed (profiles/kbudde/own-series.ts), as kbudde meant it.
    names: { kbudde: { name: 'rabbitmq_up', labels: ['cluster', 'node'] } },
    help: '1 when the last poll of /api/overview succeeded, 0 when it failed.',
  },
  build: { name: 'rabbitmq_exporter_build_info', type: g, labels: ['version', 'revision', 'branch', 'nodejs_version'], help: 'The exporter\'s version, the source revision and branch it was built from, and the Node.js running it; value 1.' },
  collectorSuccess: { name: 'rabbitmq_exporter_collector_success', type: g, labels: C, help: '1 when the collector\'s last poll succeeded, 0 when it failed.' },
  collectorDuration: { name: 'rabbitmq_exporter_collector_duration_seconds', type: g, labels: C, unit: 'seconds', help: 'How long the collector\'s last poll took.' },
  collectorLastSuccess: { name: 'rabbitmq_exporter_collector_last_success_timestamp_seconds', type: g, labels: C, help: 'When the collector last polled successfully (Unix time); data older than the configured maximum age is withdrawn.' },
  collectorSamples: { name: 'rabbitmq_exporter_collector_samples', type: g, labels: C, help: 'Samples the collector\'s current data holds.' },
  collectorSkipped: { name: 'rabbitmq_exporter_collector_skipped_values', type: g, labels: C, help: 'Values of the collector\'s last successful poll that were null or not numbers and so were left out.' },
  collectorDropped: {
    name: 'rabbitmq_exporter_collector_dropped_objects',
    type: g,
    labels: ['collector', 'reason'],
    help: 'What the collector\'s last successful poll left out of the broker\'s answers, by reason: no_name (a listed object whose name is absent, null, empty or not a string, or an item that is not an object), duplicate (an object listed twice, or a series written twice: the first is served).',
  },
  collectorDataWithdrawn: { name: 'rabbitmq_exporter_collector_data_withdrawn', type: g, labels: C, help: '1 when the collector\'s series are withdrawn because its last success is older than the maximum age.' },
  vhostFailed: {
    name: 'rabbitmq_exporter_collector_vhost_failed',
    type: g,
    labels: ['collector', 'vhost', 'reason'],
    help: '1 for each vhost whose list the collector\'s last poll could not read (read per vhost: queues, and connections, channels, consumers with a list of vhost names), by reason: http_401 or http_403 (the exporter\'s user may not read that vhost; for a vhost /api/vhosts listed, RabbitMQ 4.3 answers http_404 instead, as for one deleted meanwhile), timeout (over collectors.<name>.vhost_timeout), poll_deadline (the poll\'s deadline came first), or another request error (network, http_500, ...). A vhost that failed is asked again after 1, 2, 4, then every 8 polls; the polls between keep its reason. The vhost\'s series are served from its last good answer until the collector\'s max_age; the other vhosts\' are fresh.',
  },
  vhostLastSuccess: {
    name: 'rabbitmq_exporter_collector_vhost_last_success_timestamp_seconds',
    type: g,
    labels: ['collector', 'vhost'],
    help: 'For each vhost in rabbitmq_exporter_collector_vhost_failed that answered before: when it last did (Unix time). Its series are served from that answer until the collector\'s max_age, then withdrawn.',
  },
  partFailed: {
    name: 'rabbitmq_exporter_collector_part_failed',
    type: g,
    labels: ['collector', 'part', 'reason'],
    help: '1 for each optional part of the collector\'s last poll that failed (the nodes collector\'s memory breakdown, one health check, ...), by reason (timeout, http_503, ...). The rest of the poll is served; the part\'s series are left out, or served from their last fetch where the collector holds them (their age says how old).',
  },
  collectorEnabled: { name: 'rabbitmq_exporter_collector_enabled', type: g, labels: C, help: '1 for each collector that is enabled.' },
  targetVerdict: {
    name: 'rabbitmq_exporter_target_verdict',
    type: g,
    labels: ['verdict'],
    help: 'The target\'s verdict as the landing page gives it, one series per verdict: 1 for the one in force (healthy, degraded, starting, down), 0 for the others; why is on the landing page and in the log. One light per cluster: alert on rabbitmq_exporter_target_verdict{verdict=~"down|degraded"} == 1.',
  },
  shardOrdinal: { name: 'rabbitmq_exporter_shard_ordinal', type: g, help: 'This replica\'s shard (--shard, 0-based; 0 when not sharded).' },
  totalShards: { name: 'rabbitmq_exporter_total_shards', type: g, help: 'How many shards the work is split into (--total-shards; 1 when not sharded).' },
  configReloadSuccessful: { name: 'rabbitmq_exporter_config_last_reload_successful', type: g, help: '1 when the last configuration load (at start-up, on SIGHUP or POST /-/reload) succeeded, 0 when it failed and the previous configuration stayed in force.' },
  configRestartRequired: {
    name: 'rabbitmq_exporter_config_restart_required',
    type: g,
    help: '1 when the configuration last loaded changes settings that only a restart applies (web.listen_address, web.telemetry_path, the other web.* keys, log.format): they keep their running values until the exporter restarts; 0 otherwise.',
  },
  configReloadSuccessTimestamp: { name: 'rabbitmq_exporter_config_last_reload_success_timestamp_seconds', type: g, help: 'When the configuration was last loaded successfully (Unix time).' },
  requests: { name: 'rabbitmq_exporter_management_requests_total', type: 'counter', help: 'Requests sent to the management API.' },
  answersRefused: { name: 'rabbitmq_exporter_answers_refused_total', type: 'counter', labels: ['collector', 'path'], help: 'Answers of the management API refused while they arrived because they were over their cap (target.max_response_bytes for lists; the poll fails and serves nothing), by collector and path.' },
  eventLoopDelayMax: { name: 'rabbitmq_exporter_event_loop_delay_max_seconds', type: g, unit: 'seconds', help: 'The longest the exporter\'s event loop was blocked in the last minute (perf_hooks.monitorEventLoopDelay, 10 ms resolution); scrapes wait that long.' },
  responseBytes: { name: 'rabbitmq_exporter_management_response_bytes_total', type: 'counter', help: 'Response body bytes read from the management API.' },
  scrapesRefused: {
    name: 'rabbitmq_exporter_scrapes_refused_total',
    type: 'counter',
    help: 'Scrapes of /metrics answered 503 at once because web.max_concurrent_scrapes scrapes were in progress.',
  },
  httpTimeouts: {
    name: 'rabbitmq_exporter_http_timeouts_total',
    type: 'counter',
    labels: ['timeout'],
    help: 'HTTP connections closed because the client did not send its request within web.read_timeout (timeout="read") or did not take its answer within web.write_timeout (timeout="write").',
  },
  connectionsRefused: {
    name: 'rabbitmq_exporter_http_connections_refused_total',
    type: 'counter',
    help: 'Connections to the exporter closed as soon as they were accepted because web.max_connections connections were open.',
  },
  authRefused: {
    name: 'rabbitmq_exporter_http_auth_refused_total',
    type: 'counter',
    labels: ['reason'],
    help: 'Requests with a password not verified before, answered 429 without checking it: too many password checks in flight (reason="checks_in_flight"), or the client failed too often lately (reason="client_failures").',
  },
});
