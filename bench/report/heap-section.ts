// bench:heap's results: its section of docs/performance.md.
import type { HeapResults } from '../heap/heap-results.js';
import { describe } from '../provenance.js';
import { table } from '../run/report.js';

const mib = (x: number) => `${x.toFixed(1)} MiB`;

export function heapSection(r: HeapResults, file: string): string[] {
  const s = r.summary;
  return [
    `From \`${file}\`, written by the benchmark:`,
    '',
    describe(r.provenance),
    '',
    `The built exporter against the simulated management API with ${r.queues.toLocaleString('en')} queues (${(r.changingFraction * 100).toFixed(0)}% of them changing before each poll, statistics every poll, as \`bench:scale\`); a heap snapshot once ${r.polls} queue polls had ended. Live objects only (a snapshot collects garbage first): RSS is larger by the garbage between collections, the young generation and what is not on the heap (see "At scale" for RSS).`,
    '',
    `Live heap ${mib(s.totalMiB)}, of which ${mib(s.nativeMiB)} backing stores outside the JS heap (buffers and typed arrays: the exposition's chunks, the values held between polls) and ${mib(s.totalMiB - s.nativeMiB)} JS objects.`,
    '',
    'By kind:',
    '',
    table(['kind', 'count', 'size'], s.byKind.map((p) => [p.what, p.count.toLocaleString('en'), mib(p.mib)])),
    '',
    'JS arrays with their elements, by what holds them:',
    '',
    table(['held by', 'count', 'size'], s.arraysByHolder.map((p) => [p.what.replaceAll('|', '\\|'), p.count.toLocaleString('en'), mib(p.mib)])),
    '',
  ];
}
