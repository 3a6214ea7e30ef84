// How a results file written before bench/provenance.ts existed says where its figures come from:
// what it recorded, and plainly what it did not.
import { describe, type Provenance } from '../provenance.js';

export interface LegacyRecord {
  provenance?: Provenance;
  commit?: string;
  dirty?: boolean;
  command?: string;
  load?: string;
  loadAfter?: string;
}

export function provenanceOf(r: LegacyRecord): string {
  if (r.provenance) return describe(r.provenance);
  const known = [
    `Commit ${r.commit ?? 'not recorded'}${r.dirty ? ' with uncommitted changes under src/' : ''}.`,
    r.command ? `Command: \`${r.command}\`.` : 'Command not recorded.',
    r.load ? `Load average (1, 5, 15 min) ${r.load} at the start${r.loadAfter ? `, ${r.loadAfter} at the end` : ''}.` : 'Load average not recorded.',
  ];
  return `${known.join(' ')} Written before the benchmarks recorded machine and date in their results files: not recorded here.`;
}
