import { exporterMetrics as M } from '../catalogue/exporter.js';
import type { RenderedFamily } from '../render/text-format.js';
import { SampleSink } from '../render/sample-sink.js';

/** Whether the last configuration load succeeded, and when one last did. */
export class ReloadStatus {
  private successful = true;
  private successAt = Date.now();

  succeeded(at = Date.now()): void {
    this.successful = true;
    this.successAt = at;
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
    return sink.finish();
  }
}
