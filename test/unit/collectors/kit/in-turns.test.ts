import { expect, it } from 'vitest';
import { eachInTurns } from '../../../../src/collectors/kit/in-turns.js';

it('calls each item in order, awaiting an asynchronous one, and lets the event loop in during a long list', async () => {
  const seen: number[] = [];
  await eachInTurns([1, 2, 3], async (n) => {
    await new Promise((resolve) => setTimeout(resolve, 3 - n));
    seen.push(n);
  });
  expect(seen).toEqual([1, 2, 3]);

  // A list that takes far longer than a turn's budget: a callback queued before it runs meanwhile.
  let timerRanAt: number | undefined;
  let done = 0;
  setImmediate(() => {
    timerRanAt = done;
  });
  const until = performance.now() + 50;
  await eachInTurns(
    (function* () {
      while (performance.now() < until) yield 0;
    })(),
    () => {
      done++;
    },
  );
  expect(timerRanAt).toBeDefined();
  expect(timerRanAt!).toBeGreaterThan(0);
  expect(timerRanAt!).toBeLessThan(done);
});
