// Issue 24: at 10,000 targets a long garbage collection held the loop for a second; every poll
// that came due meanwhile then started in the one turn of the loop that followed (about a
// thousand), which held the loop again for half a second: /-/healthy waited through both.
import { afterEach, expect, it } from 'vitest';
import type { CollectorRunner } from '../../../../src/pipeline/collector-runner.js';
import { eventually } from '../../../harness/eventually.js';
import { harness } from './fake-collector.js';

let runners: CollectorRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.map((r) => r.stop()));
  runners = [];
});

function holdLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

it('spreads starts that came due while the loop was held over as long as it was held, not one turn of the loop', async () => {
  const starts: number[] = [];
  for (let i = 0; i < 200; i++) {
    const { runner } = harness(
      async () => {
        starts.push(performance.now());
      },
      { intervalMs: 60_000 },
      { random: Math.random },
    );
    runners.push(runner);
    runner.start(10);
  }
  const heldAt = performance.now();
  holdLoop(400);
  // Every start is due and late by about 390 ms (more on a loaded machine).
  await eventually(async () => (starts.length === 200 ? true : undefined), 10_000, 'every poll to start');
  const first = Math.min(...starts);
  const spread = Math.max(...starts) - first;
  // In one turn of the loop they would be a millisecond or two apart; spread, they come over
  // up to the ~390 ms they were late, and at most a small share in any one 20 ms.
  expect(spread).toBeGreaterThan(200);
  const busiest = Math.max(...starts.map((t) => starts.filter((u) => u >= t && u < t + 20).length));
  expect(busiest).toBeLessThan(60);
  expect(first - heldAt).toBeGreaterThanOrEqual(400);
}, 30_000);
