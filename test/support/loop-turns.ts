/** Holds the thread for `ms` milliseconds, as a record or a write that costs that much would. */
export function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Counts the turns of the event loop (one immediate each) from now until stop(). */
export function loopTurnProbe(): { readonly turn: number; stop(): void } {
  let turn = 0;
  let probing = true;
  const tick = () => {
    if (!probing) return;
    turn++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turn() {
      return turn;
    },
    stop() {
      probing = false;
    },
  };
}

/** How many turns the event loop took while `step` ran: none when it never let go of the loop. */
export async function loopTurnsDuring(step: () => Promise<unknown>): Promise<number> {
  const probe = loopTurnProbe();
  await step();
  probe.stop();
  return probe.turn;
}
