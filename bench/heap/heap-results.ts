// bench:heap's results file (bench/results/heap.json).
import type { Provenance } from '../provenance.js';
import type { HeapSummary } from './snapshot-summary.js';

export interface HeapResults {
  bench: 'heap';
  provenance: Provenance;
  queues: number;
  polls: number;
  changingFraction: number;
  summary: HeapSummary;
}
