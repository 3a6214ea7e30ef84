import { YIELD_MS } from '../../broker/read-json.js';

/**
 * Tens of thousands of records: a loop asks maybeYield() before each, and scrapes get in between,
 * so none waits for all of it. By time (YIELD_MS, as the JSON reader), not by count: on a loaded
 * machine 1000 queues took 100 ms and more.
 */
export class Turns {
  private seen = 0;
  private since = performance.now();

  async maybeYield(): Promise<void> {
    if (++this.seen % 50 !== 0 || performance.now() - this.since <= YIELD_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
