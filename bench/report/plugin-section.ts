// bench:plugin's results: its section of docs/performance.md.
import { table } from '../run/report.js';
import { provenanceOf, type LegacyRecord } from './legacy-provenance.js';

export interface PluginResults extends LegacyRecord {
  broker: { version?: string; queues?: number; publishRate?: number; baselineCpuPerS: number };
  pollInterval: string;
  requests: { request: string; brokerCpuS: number; wallS: number; bytes: number }[];
  windows: { source: string; brokerCpuPerS: number; windowS: number }[];
}

export function pluginSection(r: PluginResults, file: string): string[] {
  const apiOnly = r.windows[0];
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    provenanceOf(r),
    '',
    `RabbitMQ ${r.broker.version ?? '?'} with ${(r.broker.queues ?? 0).toLocaleString('en')} queues and traffic (${(r.broker.publishRate ?? 0).toFixed(0)} msg/s); the broker's CPU net of its CPU with nobody polling (${r.broker.baselineCpuPerS.toFixed(3)} CPU-s/s).`,
    '',
    'One request at a time (median of the repeats):',
    '',
    table(['request', 'broker CPU per request', 'wall', 'bytes'], r.requests.map((q) => [q.request, `${q.brokerCpuS.toFixed(3)} s`, `${q.wallS.toFixed(3)} s`, q.bytes.toLocaleString('en')])),
    '',
    `The exporter at its defaults (poll.interval ${r.pollInterval}), API only and with the plugin collector enabled:`,
    '',
    table(['source', 'broker CPU-s per s', 'beside API only', 'window'], r.windows.map((w) => [w.source, w.brokerCpuPerS.toFixed(4), apiOnly && apiOnly.brokerCpuPerS > 0 ? `${(w.brokerCpuPerS / apiOnly.brokerCpuPerS).toFixed(2)}×` : 'n/a', `${w.windowS.toFixed(0)} s`])),
    '',
  ];
}
