import { describe, expect, it } from 'vitest';
import { queueChanger } from '../../../bench/scale/queue-changes.js';

const queues = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `q${i}`, messages: 1, messages_ready: 1, memory: 100, message_stats: { publish: 5 } }));
const changedSince = (before: unknown[], after: unknown[]) => after.filter((q, i) => JSON.stringify(q) !== JSON.stringify(before[i])).length;

describe('the scale benchmark changing a fraction of the simulated queues per poll', () => {
  it('changes exactly that fraction, and nothing at 0', () => {
    const list = queues(1000);
    const change = queueChanger(list);
    for (const [fraction, expected] of [[0, 0], [0.1, 100], [1, 1000]] as const) {
      const before = structuredClone(list);
      expect(change(fraction)).toBe(expected);
      expect(changedSince(before, list)).toBe(expected);
    }
  });

  it('moves on to other queues each time, so every queue changes in turn', () => {
    const list = queues(10);
    const change = queueChanger(list);
    change(0.5);
    change(0.5);
    expect(list.every((q) => q.messages === 2 && q.messages_ready === 2 && q.message_stats.publish === 6)).toBe(true);
  });
});
