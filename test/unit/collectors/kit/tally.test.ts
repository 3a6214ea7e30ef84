import { describe, expect, it } from 'vitest';
import { Tally } from '../../../../src/collectors/kit/tally.js';

const groups = (tally: Tally) => [...tally].map((group) => ({ labels: group.labels.join('/'), count: group.count, messages: group.sum('messages') }));

describe('Tally', () => {
  it('counts and sums per label set, records of a group coming together or not', () => {
    const tally = new Tally();
    const records: [string, string, number | null | undefined][] = [
      ['a', 'classic', 1],
      ['a', 'classic', 2],
      ['a', 'quorum', 4],
      ['b', 'classic', 8],
      ['a', 'classic', 16],
      ['b', 'classic', null],
      ['a', 'quorum', undefined],
    ];
    for (const [vhost, type, messages] of records) tally.add([vhost, type], { messages });
    expect(groups(tally)).toEqual([
      { labels: 'a/classic', count: 3, messages: 19 },
      { labels: 'a/quorum', count: 2, messages: 4 },
      { labels: 'b/classic', count: 2, messages: 8 },
    ]);
    // null is not a number: counted as skipped, not as 0.
    expect(tally.skipped).toBe(1);
  });

  it('keeps label sets apart that one join would run together', () => {
    const tally = new Tally();
    tally.add(['a', 'b'], { messages: 1 });
    tally.add(['a', 'b', 'c'], { messages: 2 });
    tally.add(['a', 'b'], { messages: 4 });
    expect(groups(tally)).toEqual([
      { labels: 'a/b', count: 2, messages: 5 },
      { labels: 'a/b/c', count: 1, messages: 2 },
    ]);
  });
});
