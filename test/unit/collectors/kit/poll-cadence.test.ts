// Issue 25 item 3: the one "every N polls" mechanism of held parts and the queue statistics tier.
import { describe, expect, it } from 'vitest';
import { PollCadence } from '../../../../src/collectors/kit/poll-cadence.js';

/** Which of `polls` successful polls fetch, with `every`. */
function fetchingPolls(every: number, polls: number): number[] {
  const cadence = new PollCadence();
  const fetching: number[] = [];
  for (let poll = 1; poll <= polls; poll++) {
    const due = cadence.due(every);
    if (due) fetching.push(poll);
    cadence.commit(poll * 1000, due);
  }
  return fetching;
}

describe('PollCadence', () => {
  it('fetches at the first poll, then every `every` successful polls', () => {
    expect(fetchingPolls(1, 4)).toEqual([1, 2, 3, 4]);
    expect(fetchingPolls(4, 9)).toEqual([1, 5, 9]);
  });

  it('every 0 never fetches (stats_every: 0 is counts only), so nothing has an age', () => {
    expect(fetchingPolls(0, 5)).toEqual([]);
    const cadence = new PollCadence();
    cadence.commit(1000, false);
    expect(cadence.ageSeconds(5000)).toBeUndefined();
  });

  it('a failed poll (no commit) brings no fetch closer; the age counts from the fetch on the clock given', () => {
    const cadence = new PollCadence();
    expect(cadence.due(2)).toBe(true);
    cadence.commit(10_000, true);
    expect(cadence.due(2)).toBe(false);
    // Two failed polls: nothing committed, still not due.
    expect(cadence.due(2)).toBe(false);
    cadence.commit(20_000, false);
    expect(cadence.due(2)).toBe(true);
    expect(cadence.ageSeconds(25_000)).toBe(15);
    // A clock read before the fetch (never on the monotonic clock, but cheap to guard) is age 0.
    expect(cadence.ageSeconds(5_000)).toBe(0);
  });

  it('reset: the next poll fetches as the first did, and nothing has an age until it does', () => {
    const cadence = new PollCadence();
    cadence.commit(1000, true);
    cadence.reset();
    expect(cadence.ageSeconds(2000)).toBeUndefined();
    expect(cadence.due(4)).toBe(true);
  });
});
