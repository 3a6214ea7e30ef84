import { exporterMetrics as e } from '../../src/collectors/exporter/metrics.js';
import { queueMetrics } from '../../src/collectors/queues/metrics.js';
import type { DashboardSpec } from './grafana.js';
import { DASHBOARD_SCOPE, PROCESS_SCOPE, matcherText, scoped, scopedRate, series } from './promql.js';
import { PROCESS } from './process-metrics.js';

const byCollector = '{{collector}}';
const byProcess = '{{job}} {{instance}}';

export const exporterDashboard: DashboardSpec = {
  uid: 'rabbitmq-exporter-exporter',
  title: 'RabbitMQ / Exporter',
  description:
    'The exporter itself: poll duration and success per collector, data age, withdrawn collectors, series served, requests and bytes read, for the clusters picked; memory, CPU and event loop of the exporter processes picked (Exporter job and process: with several targets these series are on /metrics, a scrape job of their own).',
  variables: ['exporter'],
  fill(l) {
    l.row('Collectors')
      .timeseries({ title: 'Poll duration', description: 'How long each collector\'s last poll took.', unit: 's', targets: [{ expr: scoped(e.collectorDuration), legend: byCollector }] })
      .timeseries({
        title: 'Poll success',
        description: '1 when the collector\'s last poll succeeded, 0 when it failed (the exporter\'s log says why).',
        unit: 'none',
        targets: [{ expr: scoped(e.collectorSuccess), legend: byCollector }],
      })
      .timeseries({
        title: 'Data age',
        description: 'Time since each collector\'s last successful poll; past its max_age the data are withdrawn.',
        unit: 's',
        targets: [{ expr: `time() - ${scoped(e.collectorLastSuccess)}`, legend: byCollector }],
      })
      .timeseries({
        title: 'Withdrawn',
        description: '1 while a collector\'s series are withdrawn because its last success is older than its max_age.',
        unit: 'none',
        targets: [{ expr: scoped(e.collectorDataWithdrawn), legend: byCollector }],
      });

    l.row('Series and requests')
      .timeseries({
        title: 'Samples served',
        description: 'Samples each collector\'s current data hold, and what Prometheus scraped in total.',
        unit: 'short',
        targets: [
          { expr: scoped(e.collectorSamples), legend: byCollector },
          { expr: `scrape_samples_scraped${matcherText(DASHBOARD_SCOPE)}`, legend: 'scraped' },
        ],
      })
      .timeseries({
        title: 'Queues left out',
        description: 'Queues whose per-queue series were filtered out or cut by max_queues (still counted in the per-vhost aggregates), and values skipped because the broker sent null.',
        unit: 'short',
        targets: [
          { expr: scoped(queueMetrics.seriesFiltered), legend: 'queues filtered' },
          { expr: scoped(queueMetrics.seriesCapped), legend: 'queues capped' },
          { expr: scoped(e.collectorSkipped), legend: 'skipped values {{collector}}' },
        ],
      })
      .timeseries({ title: 'Management API requests', description: 'Requests per second the exporter sends to the management API.', unit: 'reqps', targets: [{ expr: scopedRate(e.requests), legend: 'requests' }] })
      .timeseries({ title: 'Bytes read', description: 'Response body bytes per second read from the management API.', unit: 'Bps', targets: [{ expr: scopedRate(e.responseBytes), legend: 'bytes read' }] });

    const process = matcherText(PROCESS_SCOPE);
    l.row('Process')
      .timeseries({
        title: 'Exporter memory',
        description: 'Resident memory of each exporter process picked (Exporter job and process).',
        unit: 'bytes',
        span: 8,
        targets: [{ expr: `${PROCESS.residentMemory}${process}`, legend: byProcess }],
      })
      .timeseries({
        title: 'Exporter CPU',
        description: 'CPU seconds per second used by each exporter process picked.',
        unit: 'percentunit',
        span: 8,
        targets: [{ expr: `rate(${PROCESS.cpuSeconds}${process}[$__rate_interval])`, legend: byProcess }],
      })
      .timeseries({
        title: 'Event loop delay',
        description: 'The longest each exporter process\'s event loop was blocked in the last minute; scrapes wait that long.',
        unit: 's',
        span: 8,
        targets: [{ expr: series(e.eventLoopDelayMax, PROCESS_SCOPE), legend: byProcess }],
      });
  },
};
