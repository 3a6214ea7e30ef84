import { describe, expect, it } from 'vitest';
import { applyTraffic, queueFigures, queueFlow } from '../../../demo/traffic.js';
import { simulatedData } from '../../support/management-simulator.js';

const QUEUES = 200;
/** Every 7 s over 20 minutes: longer than the slowest queue's wave (480 s). */
const TIMES = Array.from({ length: 172 }, (_, k) => k * 7 + 0.3 * (k % 3));

describe('the demo traffic', () => {
  it('never takes a queue counter back, and keeps what is queued equal to what was published and not delivered', () => {
    // Collected, then asserted once: 34,000 checks.
    const wrong: string[] = [];
    for (let i = 0; i < QUEUES; i++) {
      let previous = queueFigures(i, 0);
      for (const t of TIMES.slice(1)) {
        const now = queueFigures(i, t);
        if (now.published < previous.published || now.delivered < previous.delivered) wrong.push(`q${i} at ${t} s: a counter went back`);
        if (now.ready < 0 || Math.abs(now.published - now.delivered - now.ready) > 1) wrong.push(`q${i} at ${t} s: ${JSON.stringify(now)}`);
        previous = now;
      }
    }
    expect(wrong).toEqual([]);
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

  it('never takes a counter of any record back', () => {
    // Few queues and moments: every record is walked whole at each.
    const data = simulatedData({ queues: 40, vhosts: 3, exchanges: 10, connections: 4, channels: 8 });
    data.nodes[0]!.cluster_links = [{ name: 'rabbit@peer' }];
    const COUNTERS = /^(publish|publish_in|publish_out|confirm|deliver|deliver_get|deliver_no_ack|ack|redeliver|disk_reads|disk_writes|recv_oct|send_oct|recv_cnt|send_cnt|send_bytes|recv_bytes|io_\w+_(count|bytes)|gc_num|gc_bytes_reclaimed|context_switches|\w+_(created|closed)|msg_store_\w+_count|queue_index_\w+_count)$/;
    /** Every counter field of the records, by where it is: `connections.2.recv_oct`. */
    const counters = (value: unknown, path: string, out: Map<string, number>) => {
      if (value === null || typeof value !== 'object') return out;
      for (const [key, v] of Object.entries(value)) {
        if (typeof v === 'number' && COUNTERS.test(key)) out.set(`${path}.${key}`, v);
        else counters(v, `${path}.${key}`, out);
      }
      return out;
    };
    let previous = new Map<string, number>();
    const backwards: string[] = [];
    for (const t of TIMES.filter((_, k) => k % 3 === 0)) {
      applyTraffic(data, t, 1_800_000_000 + t);
      const now = counters(data, '', new Map());
      for (const key of ['.queues.0.message_stats.publish', '.overview.message_stats.deliver_no_ack', '.channels.0.message_stats.ack', '.vhosts.1.recv_oct', '.nodes.0.cluster_links.0.send_bytes']) {
        if (!now.has(key)) backwards.push(`${key} missing`);
      }
      backwards.push(...[...previous].filter(([key, value]) => (now.get(key) ?? -1) < value).map(([key]) => `${key} went back at ${t} s`));
      previous = now;
    }
    expect(backwards).toEqual([]);
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
