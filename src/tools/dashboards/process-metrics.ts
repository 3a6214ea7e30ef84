import { PROCESS_METRICS_PREFIX } from '../../self/process-metrics.js';

/**
 * Node process metrics come from prom-client, not from the catalogue; their names are its
 * defaults under the exporter's prefix. The dashboard lint checks them against what the
 * exporter really serves (ProcessMetrics.names()).
 */
export const PROCESS = {
  residentMemory: `${PROCESS_METRICS_PREFIX}process_resident_memory_bytes`,
  cpuSeconds: `${PROCESS_METRICS_PREFIX}process_cpu_seconds_total`,
} as const;
