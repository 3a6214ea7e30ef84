import { describe, expect, it } from 'vitest';
import { YIELD_MS } from '../../../../src/broker/read-json.js';
import { Turns } from '../../../../src/collectors/kit/turns.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Whether an immediate queued before `step` ran before `step` resolved: the loop had a turn. */
async function loopTurnedDuring(step: () => Promise<void>): Promise<boolean> {
  let turned = false;
  setImmediate(() => {
    turned = true;
  });
  await step();
  return turned;
}

describe('Turns', () => {
  it('hands the event loop a turn once a loop has worked longer than YIELD_MS', async () => {
    const turns = new Turns();
    busy(YIELD_MS + 2);
    for (let i = 0; i < 49; i++) await turns.maybeYield();
    expect(await loopTurnedDuring(() => turns.maybeYield())).toBe(true);
  });

  it('looks at the clock only every 50 records', async () => {
    const turns = new Turns();
    busy(YIELD_MS + 2);
    expect(await loopTurnedDuring(() => turns.maybeYield())).toBe(false);
  });
});
