// Issue 24, item 3: 10,000 targets were made in one synchronous block (the server answered nothing
// for half a minute) and all polled at once. They are now made in slices and their first polls are
// spread over the interval.
import { expect, it } from 'vitest';
import { runInSlices } from '../../src/config/run-in-slices.js';
import { firstPollOffsetMs } from '../../src/target-fleet.js';

it('spreads the first polls of a fleet evenly over the interval; one target starts at once', () => {
  expect(firstPollOffsetMs(0, 1, 15_000)).toBe(0);
  expect([0, 1, 2, 3].map((i) => firstPollOffsetMs(i, 4, 60_000))).toEqual([0, 15_000, 30_000, 45_000]);
  expect(firstPollOffsetMs(9_999, 10_000, 15_000)).toBe(14_998);
});

it('lets the event loop run between slices of long work, and runs a short one at once', async () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  let served = 0;
  const timer = setInterval(() => served++, 0);
  const steps = function* () {
    for (let i = 0; i < 20; i++) {
      busy(5);
      yield;
    }
    return 'done';
  };
  expect(await runInSlices(steps(), 20)).toBe('done');
  clearInterval(timer);
  // 100 ms of work in slices of 20 ms: the timer ran between them.
  expect(served).toBeGreaterThanOrEqual(3);

  let ran = false;
  const short = runInSlices(
    (function* () {
      ran = true;
      yield;
      return 1;
    })(),
  );
  expect(ran).toBe(true);
  expect(await short).toBe(1);
});
