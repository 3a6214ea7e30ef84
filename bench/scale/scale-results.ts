// What bench:scale writes to bench/results/scale.json (and renders into scale.md and docs/performance.md).
import type { Provenance } from '../provenance.js';
import type { SizeResult } from './measure.js';
import type { TargetCheck } from './targets.js';

export interface ScaleResults {
  bench: 'scale';
  provenance: Provenance;
  settings: { vhosts: number; polls: number; changes: number[]; latencyChange: number; queueInterval: string; collectors?: readonly string[]; signals?: boolean; families?: true | Readonly<Record<string, unknown>>; pollThread?: boolean | 'auto'; pollThreadFromSeries?: number };
  wallSeconds: number;
  sizes: SizeResult[];
  targets: TargetCheck[];
}
