/**
 * Node process metrics come from prom-client, not from the catalogue; their names are its
 * defaults, the standard ones. The dashboard lint checks them against what the
 * exporter really serves (ProcessMetrics.names()).
 */
export const PROCESS = {
  residentMemory: 'process_resident_memory_bytes',
  cpuSeconds: 'process_cpu_seconds_total',
} as const;
