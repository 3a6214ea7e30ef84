// The arithmetic of the queue signals on one queue's history (times in ms on the monotonic clock).
import { describe, expect, it } from 'vitest';
import { QueueHistory, type StatsReading } from '../../../../src/collectors/queues/signal-history.js';

const reading = (drained: number, acked: number, messages: number, unacked = 0, readyBytes?: number): StatsReading => ({ drained, acked, messages, unacked, readyBytes });

describe('estimated wait', () => {
  it('is ready ÷ the drain rate over the window; 0 when nothing is ready; +Inf when nothing drains; absent before two statistics polls', () => {
    const h = new QueueHistory(5);
    h.addStats(0, reading(100, 100, 50));
    expect(h.estimatedWait(50)).toBeUndefined();
    h.addStats(10_000, reading(200, 180, 50)); // 100 delivered, 80 acked in 10 s: drains 10/s
    expect(h.drainRate()).toBe(10);
    expect(h.estimatedWait(50)).toBe(5);
    expect(h.estimatedWait(0)).toBe(0);
    h.addStats(20_000, reading(200, 180, 50)); // window 0..20 s: still 100 in 20 s
    expect(h.estimatedWait(50)).toBe(10);
    const idle = new QueueHistory(2);
    idle.addStats(0, reading(7, 7, 3));
    idle.addStats(5_000, reading(7, 7, 3));
    expect(idle.estimatedWait(3)).toBe(Number.POSITIVE_INFINITY);
  });

  it('uses the acks when they run ahead of deliveries (the window spans only the last polls)', () => {
    const h = new QueueHistory(2);
    h.addStats(0, reading(0, 0, 10));
    h.addStats(1_000, reading(1, 1, 10));
    h.addStats(2_000, reading(1, 21, 10)); // window: the last two points, 20 acks in 1 s
    expect(h.drainRate()).toBe(20);
  });

  it('never spans a counter reset: a counter below its last value starts the history again', () => {
    const h = new QueueHistory(5);
    h.addStats(0, reading(1000, 1000, 5));
    h.addStats(10_000, reading(1100, 1100, 5));
    h.addStats(20_000, reading(3, 3, 5)); // queue deleted and declared again, or statistics reset
    expect(h.drainRate()).toBeUndefined();
    expect(h.estimatedWait(5)).toBeUndefined();
    h.addStats(30_000, reading(13, 13, 5));
    expect(h.drainRate()).toBe(1);
  });
});

describe('seconds without progress', () => {
  it('counts from the last poll where a counter moved while the queue held messages; 0 when it moves or empties', () => {
    const h = new QueueHistory(5);
    h.addStats(0, reading(10, 10, 4));
    expect(h.withoutProgress()).toBe(0);
    h.addStats(60_000, reading(10, 10, 4));
    expect(h.withoutProgress()).toBe(60);
    h.addStats(120_000, reading(10, 10, 4));
    expect(h.withoutProgress()).toBe(120);
    h.addStats(180_000, reading(11, 10, 4)); // one delivery: progress
    expect(h.withoutProgress()).toBe(0);
    h.addStats(240_000, reading(11, 10, 0)); // empty: no backlog, nothing to progress on
    expect(h.withoutProgress()).toBe(0);
  });

  it('is not carried across a reset', () => {
    const h = new QueueHistory(5);
    h.addStats(0, reading(10, 10, 4));
    h.addStats(60_000, reading(10, 10, 4));
    expect(h.withoutProgress()).toBe(60);
    h.addStats(120_000, reading(0, 0, 4));
    expect(h.withoutProgress()).toBe(0);
    h.addStats(180_000, reading(0, 0, 4));
    expect(h.withoutProgress()).toBe(60);
  });
});

describe('stuck consumers', () => {
  it('flags a queue after N statistics polls with unacked messages and the ack counter still', () => {
    const h = new QueueHistory(5);
    expect(h.stuck(2)).toBeUndefined();
    h.addStats(0, reading(5, 0, 5, 5));
    expect([h.stuck(2), h.unackedStalled()]).toEqual([false, 0]);
    h.addStats(30_000, reading(5, 0, 5, 5));
    expect([h.stuck(2), h.unackedStalled()]).toEqual([false, 30]);
    h.addStats(60_000, reading(5, 0, 5, 5));
    expect([h.stuck(2), h.unackedStalled()]).toEqual([true, 60]);
    h.addStats(90_000, reading(5, 1, 4, 4)); // one ack
    expect([h.stuck(2), h.unackedStalled()]).toEqual([false, 0]);
  });

  it('does not flag a queue whose consumers ack, nor one without unacked messages', () => {
    const h = new QueueHistory(5);
    for (let i = 0; i < 5; i++) h.addStats(i * 1000, reading(i * 10, i * 10, 3, 3));
    expect(h.stuck(2)).toBe(false);
    const empty = new QueueHistory(5);
    for (let i = 0; i < 5; i++) empty.addStats(i * 1000, reading(0, 0, 3, 0));
    expect(empty.stuck(2)).toBe(false);
  });
});

describe('time to full', () => {
  it('divides the room left by the growth over the window; 0 at the limit; +Inf when not growing; absent before two points', () => {
    const h = new QueueHistory(3);
    h.addCount(0, 100);
    expect(h.lengthTimeToFull(1000)).toBeUndefined();
    h.addCount(10_000, 200); // 10/s, 800 left
    expect(h.lengthTimeToFull(1000)).toBe(80);
    h.addCount(20_000, 200);
    expect(h.lengthTimeToFull(1000)).toBe(160); // window 0..20 s: 5/s
    h.addCount(30_000, 150);
    expect(h.lengthTimeToFull(1000)).toBe(Number.POSITIVE_INFINITY); // window 10..30 s: shrinking
    h.addCount(40_000, 1000);
    expect(h.lengthTimeToFull(1000)).toBe(0);
  });

  it('reads the bytes from the statistics polls only, at their times', () => {
    const h = new QueueHistory(5);
    h.addStats(0, reading(0, 0, 1, 0, 1000));
    h.addCount(5_000, 1);
    h.addStats(10_000, reading(0, 0, 1, 0, 3000));
    expect(h.bytesTimeToFull(5000)).toBe(10);
    h.forgetStats(); // statistics switched off
    expect(h.bytesTimeToFull(5000)).toBeUndefined();
  });
});
