// bench:plugin's results: its section of docs/performance.md.
import { table } from '../run/report.js';
import { provenanceOf, type LegacyRecord } from './legacy-provenance.js';

export interface PluginResults extends LegacyRecord {
  broker: { version?: string; queues?: number; publishRate?: number; baselineCpuPerS: number; baselineCpuPerSAfterRequests?: number };
  pollInterval: string;
  requests: { request: string; brokerCpuS: number; wallS: number; bytes: number }[];
  windows: { source: string; brokerCpuPerS: number; idleCpuPerS?: number; windowS: number }[];
  /** Median per source (absent in the first run, which had one window each). */
  bySource?: { source: string; brokerCpuPerS: number }[];
}

export function pluginSection(r: PluginResults, file: string): string[] {
  const perSource = r.bySource ?? r.windows;
  const apiOnly = perSource[0];
  const idle = r.broker.baselineCpuPerSAfterRequests === undefined ? '' : `, ${r.broker.baselineCpuPerSAfterRequests.toFixed(3)} CPU-s/s after the single requests`;
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    provenanceOf(r),
    '',
    `RabbitMQ ${r.broker.version ?? '?'} with ${(r.broker.queues ?? 0).toLocaleString('en')} queues and traffic (${(r.broker.publishRate ?? 0).toFixed(0)} msg/s); the broker's CPU net of its CPU with nobody polling (${r.broker.baselineCpuPerS.toFixed(3)} CPU-s/s at the start${idle}: a drift of the machine's load larger than some differences below).`,
    '',
    'One request at a time (median of the repeats):',
    '',
    table(['request', 'broker CPU per request', 'wall', 'bytes'], r.requests.map((q) => [q.request, `${q.brokerCpuS.toFixed(3)} s`, `${q.wallS.toFixed(3)} s`, q.bytes.toLocaleString('en')])),
    '',
    `The exporter at its defaults (poll.interval ${r.pollInterval}), API only and with the plugin collector enabled, window by window in the order run${r.bySource ? ', each net of the idle rate measured just before it' : ''}:`,
    '',
    table(['source', 'broker CPU-s per s', 'idle just before', 'window'], r.windows.map((w) => [w.source, w.brokerCpuPerS.toFixed(4), w.idleCpuPerS === undefined ? 'n/a' : w.idleCpuPerS.toFixed(4), `${w.windowS.toFixed(0)} s`])),
    '',
    ...(r.bySource
      ? [
          'Median per source:',
          '',
          table(['source', 'broker CPU-s per s', 'beside API only'], perSource.map((w) => [w.source, w.brokerCpuPerS.toFixed(4), apiOnly && apiOnly.brokerCpuPerS > 0 ? `${(w.brokerCpuPerS / apiOnly.brokerCpuPerS).toFixed(2)}×` : 'n/a'])),
          '',
        ]
      : []),
  ];
}
