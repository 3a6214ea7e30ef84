import { exporterMetrics as M } from '../collectors/exporter/metrics.js';
import type { RenderedFamily } from '../exposition/text-format.js';
import { SampleSink } from '../exposition/sample-sink.js';

/**
 * Whether the last configuration load succeeded, when one last did, and which settings it read
 * that only a restart applies (they keep their running values: the reload succeeded for the rest).
 */
export class ReloadStatus {
  private successful = true;
  private successAt = Date.now();
  private pending: readonly string[] = [];

  /** `restartRequired`: the settings of the loaded configuration that are not in force until a restart. */
  succeeded(at = Date.now(), restartRequired: readonly string[] = []): void {
    this.successful = true;
    this.successAt = at;
    this.pending = restartRequired;
  }

  get restartRequired(): readonly string[] {
    return this.pending;
  }

  failed(): void {
    this.successful = false;
  }

  get lastSuccessful(): boolean {
    return this.successful;
  }

  families(): RenderedFamily[] {
    const sink = new SampleSink();
    sink.add(M.configReloadSuccessful, [], this.successful ? 1 : 0);
    sink.add(M.configReloadSuccessTimestamp, [], this.successAt / 1000);
    sink.add(M.configRestartRequired, [], this.pending.length > 0 ? 1 : 0);
    return sink.finish();
  }
}
