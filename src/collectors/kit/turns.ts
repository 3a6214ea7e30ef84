/**
 * The longest a collector's loop over records runs between two turns of the event loop. Short:
 * on two cores the poll shares the machine with the scrapes it delays, and a scrape's 7 MB gzip
 * answer at 100,000 queues leaves in a few socket writes, one per turn (bench:scale at 100k queues,
 * 10 ms against 3 ms: /metrics p50 during polls 24.4 → 11.7 ms, longest event-loop delay 76.2 →
 * 48.3 ms, the same CPU per poll).
 */
export const TURN_MS = 3;

/**
 * Tens of thousands of records: a loop asks maybeYield() before each, and scrapes get in between,
 * so none waits for all of it. By time, not by count: on a loaded machine 1000 queues took 100 ms and more.
 */
export class Turns {
  private seen = 0;
  private since = performance.now();

  async maybeYield(): Promise<void> {
    if (++this.seen % 50 !== 0 || performance.now() - this.since <= TURN_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}
