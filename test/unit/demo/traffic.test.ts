import { describe, expect, it } from 'vitest';
import { applyTraffic, queueFigures, queueFlow } from '../../../demo/traffic.js';
import { simulatedData } from '../../support/management-simulator.js';

const QUEUES = 200;
/** Every 7 s over 20 minutes: longer than the slowest queue's wave (480 s). */
const TIMES = Array.from({ length: 172 }, (_, k) => k * 7 + 0.3 * (k % 3));

describe('the demo traffic', () => {
  it('never takes a queue counter back, and keeps what is queued equal to what was published and not delivered', () => {
    for (let i = 0; i < QUEUES; i++) {
      let previous = queueFigures(i, 0);
      for (const t of TIMES.slice(1)) {
        const now = queueFigures(i, t);
        expect(now.published).toBeGreaterThanOrEqual(previous.published);
        expect(now.delivered).toBeGreaterThanOrEqual(previous.delivered);
        expect(now.ready).toBeGreaterThanOrEqual(0);
        expect(Math.abs(now.published - now.delivered - now.ready)).toBeLessThanOrEqual(1);
        previous = now;
      }
    }
  });

  it('moves: busy queues publish, and their depth both rises and drains within a wave', () => {
    const busy = Array.from({ length: QUEUES }, (_, i) => i).filter((i) => queueFlow(i).publishPerSecond > 0);
    expect(busy.length).toBe(QUEUES * 0.8);
    for (const i of busy) {
      const depths = TIMES.map((t) => queueFigures(i, t).ready);
      const steps = depths.slice(1).map((d, k) => d - depths[k]!);
      expect(steps.some((s) => s > 0)).toBe(true);
      expect(steps.some((s) => s < 0)).toBe(true);
      // Rounded down as a whole: within one message of the rate times the time.
      const publishedInAMinute = queueFigures(i, 60).published - queueFigures(i, 0).published;
      expect(Math.abs(publishedInAMinute - 60 * queueFlow(i).publishPerSecond)).toBeLessThanOrEqual(1);
    }
  });

  it('writes the records: overview totals are the sums of the queues, counters grow between two moments', () => {
    const data = simulatedData({ queues: QUEUES, vhosts: 3, exchanges: 10, connections: 4 });
    applyTraffic(data, 100, 1_800_000_100);
    const sum = (field: string) => data.queues.reduce((n, q) => n + (q[field] as number), 0);
    const totals = data.overview.queue_totals as Record<string, number>;
    expect(totals.messages_ready).toBe(sum('messages_ready'));
    expect(totals.messages).toBe(sum('messages'));
    const publishedAt100 = (data.overview.message_stats as Record<string, number>).publish;
    const bytesAt100 = data.connections[0]!.recv_oct as number;
    const nodeIoAt100 = data.nodes[0]!.io_write_count as number;
    applyTraffic(data, 130, 1_800_000_130);
    expect((data.overview.message_stats as Record<string, number>).publish).toBeGreaterThan(publishedAt100 as number);
    expect(data.connections[0]!.recv_oct as number).toBeGreaterThan(bytesAt100);
    expect(data.nodes[0]!.io_write_count as number).toBeGreaterThan(nodeIoAt100);
    const stats = data.overview.message_stats as Record<string, number>;
    expect(stats.deliver_no_ack).toBeGreaterThan(0);
    expect(stats.deliver! + stats.deliver_no_ack!).toBe(stats.deliver_get);
    const exchangeIn = data.exchanges.reduce((n, x) => n + ((x.message_stats as Record<string, number>).publish_in ?? 0), 0);
    expect(exchangeIn).toBe((data.overview.message_stats as Record<string, number>).publish);
  });
});
