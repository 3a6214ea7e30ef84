// Where poll_thread: auto runs a queue collector's first poll: its estimate of the series, from the
// broker's queue count, against what a poll of the recorded 3.10.8 answers really serves.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { queueOptionsSchema, queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';
import { BROKER_STATS_OFF, FULL, listRoute } from './queue-fixtures.js';

const log = pino({ enabled: false });
const estimate = (options: Record<string, unknown>, queues: number | undefined, broker = BROKER_3_10_8) =>
  queuesCollector.expectedSeries!({
    broker: { ...broker, ...(queues === undefined ? {} : { objectTotals: { queues } }) },
    options: queueOptionsSchema.parse(options),
    log,
    carryOver: new Map(),
  });

/** Series a poll of the recorded 100 queues serves that are a queue's own (labels vhost and queue). */
async function perQueueServed(options: Record<string, unknown>, broker = BROKER_3_10_8): Promise<number> {
  const api = fakeApi({ '/api/queues': listRoute(FULL) });
  const r = await runCollector(queuesCollector, { api, options: { per_vhost: false, stats_every: 1, ...options }, broker });
  return r.parsed.filter((s) => s.labels.queue !== undefined).length;
}

describe('queues: the series expected before the first poll', () => {
  it.each([
    ['the defaults', {}],
    ['with details, rates and limits', { details: true, rates: true, limits: true }],
    ['without info', { info: false }],
  ])('%s: at least the series a poll serves, and under 3 times as many', async (_, options) => {
    const served = await perQueueServed(options);
    const expected = estimate({ per_vhost: false, stats_every: 1, ...options }, FULL.length)!;
    expect(served).toBeGreaterThan(FULL.length * 3);
    expect(expected).toBeGreaterThanOrEqual(served);
    // Every family a queue may have is counted: a rate for every counter, where idle queues have few.
    expect(expected).toBeLessThan(served * 3);
  });

  it('statistics off on the broker: counts only, and the estimate follows', async () => {
    const served = await perQueueServed({}, BROKER_STATS_OFF);
    const expected = estimate({}, FULL.length, BROKER_STATS_OFF)!;
    expect(expected).toBeGreaterThanOrEqual(served);
    expect(expected).toBeLessThan(estimate({}, FULL.length)! / 2);
  });

  it('scales with the queue count, capped by max_queues; none per queue when families roll every queue up', () => {
    const one = estimate({}, 1)!;
    expect(estimate({}, 100_000)).toBe(100_000 * one);
    expect(estimate({ max_queues: 500 }, 100_000)).toBe(500 * one);
    expect(estimate({ families: { strip_suffixes: true, per_queue: false, unmatched: 'other' } }, 100_000)).toBe(0);
  });

  it('no object_totals on the broker: no estimate', () => {
    expect(estimate({}, undefined)).toBeUndefined();
  });
});
