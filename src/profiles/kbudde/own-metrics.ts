import { defineMetrics } from '../../model/metric-def.js';

const g = 'gauge' as const;
const CNM = ['cluster', 'node', 'module'] as const;

/**
 * kbudde/rabbitmq_exporter's own families that no native family carries under another name: its
 * module health (ours is per collector, and one collector can be two of its modules) and its build
 * labels. Served only under the kbudde profile, written with their labels by ./own-series.ts;
 * not in the catalogue, since the native profile never serves them.
 */
export const kbuddeExporterMetrics = defineMetrics('exporter', {
  moduleUp: { name: 'rabbitmq_module_up', type: g, labels: CNM, help: '1 when the last poll of the collector carrying the kbudde module succeeded, 0 when it failed (rabbitmq_exporter_collector_success).' },
  moduleDuration: { name: 'rabbitmq_module_scrape_duration_seconds', type: g, labels: CNM, unit: 'seconds', help: 'How long the last poll of the collector carrying the kbudde module took (rabbitmq_exporter_collector_duration_seconds).' },
  build: { name: 'rabbitmq_exporter_build_info', type: g, labels: ['version', 'revision', 'branch', 'builddate'], help: 'The exporter\'s version, source revision, branch and build date; value 1.' },
});
