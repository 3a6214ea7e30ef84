import { describe, expect, it } from 'vitest';
import { Turns, YIELD_MS } from '../../../src/broker/turns.js';
import { busy, loopTurnProbe, loopTurnsDuring } from '../../support/loop-turns.js';

describe('Turns', () => {
  it('hands the event loop a turn once a loop has worked longer than YIELD_MS', async () => {
    const turns = new Turns();
    busy(YIELD_MS + 2);
    for (let i = 0; i < 49; i++) await turns.maybeYield();
    expect(await loopTurnsDuring(() => turns.maybeYield())).toBeGreaterThan(0);
  });

  it('looks at the clock only every 50 records', async () => {
    const turns = new Turns();
    busy(YIELD_MS + 2);
    expect(await loopTurnsDuring(() => turns.maybeYield())).toBe(0);
  });

  it('shares one budget per turn of the loop among loops running at once, and lets each go on in turn', async () => {
    // A probe counts the turns of the event loop; each loop notes the turn each of its records ran in.
    const probe = loopTurnProbe();
    const ranIn: Record<string, number[]> = { a: [], b: [], c: [] };
    const loop = async (name: string) => {
      const turns = new Turns(1);
      for (let i = 0; i < 60; i++) {
        await turns.maybeYield();
        busy(0.25);
        ranIn[name]!.push(probe.turn);
      }
    };
    await Promise.all(['a', 'b', 'c'].map(loop));
    probe.stop();
    const workedIn = (name: string) => new Set(ranIn[name]);
    // After the first turn (where each starts), no turn runs two loops' records.
    const first = Math.min(...Object.values(ranIn).map((turns) => turns[0]!));
    for (let t = first + 1; t <= probe.turn; t++) expect(['a', 'b', 'c'].filter((name) => workedIn(name).has(t)).length).toBeLessThanOrEqual(1);
    // In line, each gets its turns while the others run: none waits for another to finish.
    const lastOfAll = Math.min(...Object.values(ranIn).map((turns) => turns[turns.length - 1]!));
    const slices = ['a', 'b', 'c'].map((name) => [...workedIn(name)].filter((t) => t <= lastOfAll).length);
    expect(Math.max(...slices) - Math.min(...slices)).toBeLessThanOrEqual(1);
    expect(Math.min(...slices)).toBeGreaterThanOrEqual(3);
  });
});
