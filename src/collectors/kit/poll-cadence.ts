/**
 * "Fetch every N polls, serve what was fetched in between, and say how old it is": the one
 * mechanism behind a collector's costly parts (held-part.ts: bindings, node memory breakdowns) and
 * the queue collector's statistics tier. Only successful polls count, so a failed poll neither
 * brings a fetch closer nor makes what is held look fresher.
 */
export class PollCadence {
  /** Successful polls since (and including) the one that fetched; undefined before the first fetch. */
  private polls: number | undefined;
  private fetchedAt = 0;

  /**
   * Whether this poll fetches: the first, then every `every` successful polls. `every` 0 never
   * fetches: `collectors.queues.stats_every: 0` serves counts only (the held parts' settings start at 1).
   */
  due(every: number): boolean {
    if (every === 0) return false;
    return this.polls === undefined || this.polls >= every;
  }

  /** Ends a successful poll, at `now` on the monotonic clock; `fetched`: whether it fetched. */
  commit(now: number, fetched: boolean): void {
    if (fetched) {
      this.fetchedAt = now;
      this.polls = 1;
    } else if (this.polls !== undefined) {
      this.polls++;
    }
  }

  /** Seconds since the fetch kept; undefined before any. */
  ageSeconds(now: number): number | undefined {
    return this.polls === undefined ? undefined : Math.max(0, now - this.fetchedAt) / 1000;
  }

  /** The part switched off: the next poll that is due fetches as the first did. */
  reset(): void {
    this.polls = undefined;
  }
}
