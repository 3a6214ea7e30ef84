import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const WINDOW_MS = 10_000;
const WINDOWS = 6;

/**
 * The longest event-loop delay over the last minute (six windows of 10 s), from
 * perf_hooks.monitorEventLoopDelay at 10 ms resolution. While the loop is blocked, every scrape,
 * health check and landing page waits: this is how long the worst of them waited.
 */
export class EventLoopDelay {
  private histogram: IntervalHistogram | undefined;
  private readonly windows: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    if (this.histogram) return;
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.timer = setInterval(() => this.rotate(), WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    this.histogram?.disable();
    if (this.timer) clearInterval(this.timer);
    this.histogram = undefined;
  }

  /** Seconds; 0 before the first measurement. */
  maxSeconds(): number {
    const current = this.histogram?.max ?? 0;
    return Math.max(current, ...this.windows) / 1e9;
  }

  private rotate(): void {
    if (!this.histogram) return;
    this.windows.push(this.histogram.max);
    if (this.windows.length > WINDOWS - 1) this.windows.shift();
    this.histogram.reset();
  }
}

/** The process's one monitor, started by the first exposition that reports it. */
export const eventLoopDelay = new EventLoopDelay();
