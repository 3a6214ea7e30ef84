/**
 * Changes a set fraction of the simulated queues between two queue polls, so that an exporter
 * that re-renders only what changed is measured on changes, not on identical bytes: each changed
 * queue gets one more ready message (and its bytes), more memory and reductions, and one more of
 * every counter in its message_stats. Which queues change rotates, so every queue changes in turn.
 */
type Rec = Record<string, unknown>;

const BUMPS: readonly [field: string, by: number][] = [
  ['messages', 1],
  ['messages_ready', 1],
  ['message_bytes', 100],
  ['message_bytes_ready', 100],
  ['memory', 8],
  ['reductions', 1000],
];

function bump(record: Rec, field: string, by: number): void {
  if (typeof record[field] === 'number') record[field] = (record[field] as number) + by;
}

/** Changes `fraction` of `queues` (0 to 1), starting after the ones changed last time; returns how many changed. */
export function queueChanger(queues: Rec[]): (fraction: number) => number {
  let next = 0;
  return (fraction) => {
    const count = Math.round(queues.length * fraction);
    for (let k = 0; k < count; k++) {
      const q = queues[(next + k) % queues.length]!;
      for (const [field, by] of BUMPS) bump(q, field, by);
      const stats = q.message_stats as Rec | undefined;
      if (stats) for (const key of Object.keys(stats)) if (typeof stats[key] === 'number') stats[key] = (stats[key] as number) + 1;
    }
    next = (next + count) % Math.max(1, queues.length);
    return count;
  };
}
