import type { RenderedFamily } from '../render/exposition.js';
import { exporterFamilies, type ClientCounters } from '../self/exporter-metrics.js';
import type { ProcessMetrics } from '../self/process-metrics.js';
import { Exposition } from './exposition.js';
import type { TargetState } from './target-state.js';

/**
 * Assembles the Exposition served on /metrics from the target's collector parts, the
 * exporter's own series and the process metrics. It is rebuilt after each poll and when a
 * part passes its maximum age; a scrape in between only reads the finished one.
 */
export class SnapshotStore {
  private exposition: Exposition | undefined;
  private builtVersion = -1;
  private building: Promise<Exposition> | undefined;

  constructor(
    private readonly target: TargetState,
    private readonly client: ClientCounters,
    private readonly processMetrics: ProcessMetrics,
  ) {}

  async current(now = Date.now()): Promise<Exposition> {
    const exposition = this.exposition;
    if (exposition && this.builtVersion === this.target.version && now < exposition.validUntil) return exposition;
    return this.rebuild();
  }

  /** Called after every poll; concurrent calls share one build. */
  rebuild(): Promise<Exposition> {
    if (!this.building) {
      this.building = this.build().finally(() => {
        this.building = undefined;
      });
    }
    return this.building;
  }

  private async build(): Promise<Exposition> {
    const version = this.target.version;
    const processFamilies = await this.processMetrics.families();
    const now = Date.now();
    const families: RenderedFamily[] = [...exporterFamilies(this.target, this.client, now), ...processFamilies];
    let validUntil = Infinity;
    for (const state of this.target.collectors.values()) {
      if (!this.target.isFresh(state, now)) continue;
      families.push(...state.families);
      validUntil = Math.min(validUntil, (state.lastSuccessAt as number) + state.maxAgeMs + 1);
    }
    const exposition = new Exposition(families, validUntil, now);
    this.exposition = exposition;
    this.builtVersion = version;
    return exposition;
  }
}
