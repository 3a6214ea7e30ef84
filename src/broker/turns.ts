/**
 * How long any of a poll's work holds the event loop (the JSON reader, the collectors' record
 * loops). Short: on two cores the poll shares the machine with the scrapes it delays, and a
 * scrape's 7 MB gzip answer at 100,000 queues leaves in a few socket writes, one per turn
 * (bench:scale at 100k queues, 10 ms against 3 ms: /metrics p50 during polls 24.4 → 11.7 ms,
 * longest event-loop delay 76.2 → 48.3 ms, the same CPU per poll).
 */
export const YIELD_MS = 3;

/**
 * One budget of YIELD_MS per turn of the event loop for all the work that asks for turns, not one
 * each: collectors poll at once, and when each took its own 3 ms before the loop could serve
 * anything, six of them held it for 18 ms and more. Work over budget waits in line, and each turn
 * of the loop lets the first in line go on with a fresh budget, so every loop gets its share.
 */
const waiting: (() => void)[] = [];
let budgetFrom = performance.now();
let turnAsked = false;

function askTurn(): void {
  if (turnAsked) return;
  turnAsked = true;
  setImmediate(() => {
    turnAsked = false;
    budgetFrom = performance.now();
    waiting.shift()?.();
    if (waiting.length > 0) askTurn();
  });
}

/** Waits in line for a turn of the event loop with a fresh budget. */
function waitInLine(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    askTurn();
  });
}

/**
 * A loop over tens of thousands of records asks maybeYield() before each, so scrapes get in
 * between and none waits for all of it. By time, not by count: on a loaded machine 1000 queues
 * took 100 ms and more.
 */
export class Turns {
  private seen = 0;

  /** `clockEvery`: how many calls between looks at the clock (records are small; an answer's chunks are not). */
  constructor(private readonly clockEvery = 50) {}

  async maybeYield(): Promise<void> {
    if (this.due()) await waitInLine();
  }

  /**
   * Whether the budget is spent, for loops over every record of a poll: `if (turns.due()) await
   * turns.wait()` awaits only then, where `await maybeYield()` costs a promise and a microtask per
   * record (at 100,000 queues, ~15 ms a loop; ~100 ms through an async generator).
   */
  due(): boolean {
    return ++this.seen % this.clockEvery === 0 && performance.now() - budgetFrom > YIELD_MS;
  }

  /** Waits in line for a turn with a fresh budget (after due() said so). */
  wait(): Promise<void> {
    return waitInLine();
  }
}
