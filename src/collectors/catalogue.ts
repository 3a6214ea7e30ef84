import type { MetricDef } from '../model/metric-def.js';
import { exporterMetrics } from './exporter/metrics.js';

/**
 * The one list of every family the exporter serves besides Node's process metrics: the
 * exporter's own, then each collector's (`collectors`: the registry's list, handed in from above:
 * the catalogue sits below the collectors). Names are checked to be unique.
 */
export function catalogue(collectors: readonly { readonly metrics: readonly MetricDef[] }[]): MetricDef[] {
  const all: MetricDef[] = [...Object.values(exporterMetrics)];
  for (const collector of collectors) all.push(...collector.metrics);
  const seen = new Map<string, MetricDef>();
  const unique: MetricDef[] = [];
  for (const def of all) {
    const other = seen.get(def.name);
    if (other === def) continue;
    if (other) throw new Error(`metric ${def.name} is defined by both ${other.owner} and ${def.owner}`);
    seen.set(def.name, def);
    unique.push(def);
  }
  return unique;
}
