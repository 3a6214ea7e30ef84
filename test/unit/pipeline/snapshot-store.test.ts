import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import type { RenderedFamily } from '../../../src/exposition/text-format.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { newHttpCounters } from '../../../src/pipeline/own-series.js';
import type { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { SnapshotStore } from '../../../src/pipeline/snapshot-store.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import { samples } from '../../support/parse-exposition.js';

const M = defineMetrics('overview', {
  queues: { name: 'rabbitmq_test_queues', type: 'gauge', help: 'Queues.' },
  nodeMem: { name: 'rabbitmq_test_node_memory_bytes', type: 'gauge', labels: ['node'], help: 'Memory.' },
});

const T0 = Date.UTC(2024, 0, 1, 12, 0, 0);

function fams(queues: number): RenderedFamily[] {
  const sink = new SampleSink();
  sink.add(M.queues, [], queues);
  return sink.finish();
}

function nodeFams(bytes: number): RenderedFamily[] {
  const sink = new SampleSink();
  sink.add(M.nodeMem, ['rabbit@vm'], bytes);
  sink.add(M.nodeMem, ['rabbit2@vm'], bytes + 1);
  return sink.finish();
}

const noProcessMetrics = { families: async () => [] } as unknown as ProcessMetrics;

function setup() {
  const state = new TargetState('default', 'http://localhost:15672');
  state.register('overview', 1000, 3000, { decidesUp: true });
  state.register('nodes', 2000, 6000);
  const client = { requests: 7, bytesRead: 12_345 };
  const store = new SnapshotStore(state, client, newHttpCounters(), noProcessMetrics);
  return { state, client, store };
}

async function text(store: SnapshotStore): Promise<Map<string, number>> {
  return samples((await store.current()).body('text').toString('utf8'));
}

/** performance.now() at T0: ages are measured on the monotonic clock. */
let P0 = 0;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(T0);
  P0 = performance.now();
});

/** Time passes until `wallMs`, on both clocks. */
function passUntil(wallMs: number): void {
  vi.advanceTimersByTime(wallMs - Date.now());
}
afterEach(() => {
  vi.useRealTimers();
});

describe('SnapshotStore', () => {
  it('before any poll: only the exporter series, rabbitmq_up 0', async () => {
    const { store } = setup();
    const s = await text(store);
    expect(s.get('rabbitmq_up')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_enabled{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_enabled{collector="nodes"}')).toBe(1);
    expect(s.has('rabbitmq_exporter_collector_success{collector="overview"}')).toBe(false);
    expect(s.get('rabbitmq_exporter_management_requests_total')).toBe(7);
    expect(s.get('rabbitmq_exporter_management_response_bytes_total')).toBe(12_345);
    expect(s.has('rabbitmq_test_queues')).toBe(false);
  });

  it('serves a successful poll with its exporter series', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(10_000), 0.25, 3, T0);
    const s = await text(store);
    expect(s.get('rabbitmq_test_queues')).toBe(10_000);
    expect(s.get('rabbitmq_up')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_success{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_duration_seconds{collector="overview"}')).toBe(0.25);
    expect(s.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="overview"}')).toBe(T0 / 1000);
    expect(s.get('rabbitmq_exporter_collector_samples{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_skipped_values{collector="overview"}')).toBe(3);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="overview"}')).toBe(0);
  });

  it('a collector whose last success is older than max_age is withdrawn', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(1), 0.1, 0, T0);
    state.succeeded('nodes', nodeFams(500), 0.1, 0, T0);
    expect((await text(store)).get('rabbitmq_test_queues')).toBe(1);

    // Exactly max_age old: still served.
    passUntil(T0 + 3000);
    expect((await text(store)).get('rabbitmq_test_queues')).toBe(1);

    // One millisecond later: overview (max_age 3 s) withdrawn, nodes (6 s) still served.
    passUntil(T0 + 3001);
    const s = await text(store);
    expect(s.has('rabbitmq_test_queues')).toBe(false);
    expect(s.get('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(500);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_samples{collector="overview"}')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="nodes"}')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_samples{collector="nodes"}')).toBe(2);

    passUntil(T0 + 6001);
    const later = await text(store);
    expect(later.has('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(false);
    expect(later.get('rabbitmq_exporter_collector_data_withdrawn{collector="nodes"}')).toBe(1);
  });

  it('a failing poll keeps the previous families until max_age, with collector_success 0', async () => {
    const { state, store } = setup();
    state.succeeded('nodes', nodeFams(100), 0.1, 0, T0);
    passUntil(T0 + 2000);
    state.failed('nodes', 'GET /api/nodes: HTTP 500', 0.2, T0 + 2000);
    let s = await text(store);
    expect(s.get('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(100);
    expect(s.get('rabbitmq_exporter_collector_success{collector="nodes"}')).toBe(0);
    expect(s.get('rabbitmq_exporter_collector_duration_seconds{collector="nodes"}')).toBe(0.2);
    expect(s.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="nodes"}')).toBe(T0 / 1000);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="nodes"}')).toBe(0);

    passUntil(T0 + 6001);
    s = await text(store);
    expect(s.has('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(false);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="nodes"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_success{collector="nodes"}')).toBe(0);
  });

  it('a new success replaces the families whole', async () => {
    const { state, store } = setup();
    state.succeeded('nodes', nodeFams(100), 0.1, 0, T0);
    const sink = new SampleSink();
    sink.add(M.nodeMem, ['rabbit@vm'], 7);
    state.succeeded('nodes', sink.finish(), 0.1, 0, T0 + 1);
    const s = await text(store);
    expect(s.get('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(7);
    expect(s.has('rabbitmq_test_node_memory_bytes{node="rabbit2@vm"}')).toBe(false);
  });

  it('rabbitmq_up follows the overview collector only', async () => {
    const { state, store } = setup();
    state.succeeded('nodes', nodeFams(1), 0.1, 0, T0);
    expect((await text(store)).get('rabbitmq_up')).toBe(0);
    state.failed('overview', 'timeout', 1, T0);
    expect((await text(store)).get('rabbitmq_up')).toBe(0);
    state.succeeded('overview', fams(1), 0.1, 0, T0);
    expect((await text(store)).get('rabbitmq_up')).toBe(1);
    state.failed('nodes', 'HTTP 500', 0.1, T0);
    expect((await text(store)).get('rabbitmq_up')).toBe(1);
    state.failed('overview', 'HTTP 401', 0.1, T0);
    const s = await text(store);
    expect(s.get('rabbitmq_up')).toBe(0);
    // The overview's data stay (until max_age) even though up is 0.
    expect(s.get('rabbitmq_test_queues')).toBe(1);
  });

  it('current() reuses the exposition until the state changes or data expire', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(1), 0.1, 0, T0);
    const first = await store.current();
    expect(await store.current()).toBe(first);
    expect(first.validUntil).toBe(P0 + 3001);
    passUntil(T0 + 3000);
    expect(await store.current()).toBe(first);
    state.succeeded('nodes', nodeFams(1), 0.1, 0, T0 + 3000);
    const second = await store.current();
    expect(second).not.toBe(first);
    expect(second.validUntil).toBe(P0 + 3001);
    passUntil(T0 + 3001);
    const third = await store.current();
    expect(third).not.toBe(second);
    // Only nodes is fresh now: valid until its own expiry.
    expect(third.validUntil).toBe(P0 + 3000 + 6001);
    expect(third.builtAt).toBe(T0 + 3001);
  });

  it('concurrent rebuilds share one build', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(1), 0.1, 0, T0);
    const a = store.rebuild();
    const b = store.rebuild();
    expect(b).toBe(a);
    const built = await a;
    expect(await store.current()).toBe(built);
  });

  it('process metrics families are included', async () => {
    const processFamily: RenderedFamily = {
      header: { name: 'process_resident_memory_bytes', type: 'gauge', help: 'RSS.' },
      chunks: [Buffer.from('process_resident_memory_bytes 1234\n')],
      samples: 1,
    };
    const state = new TargetState('default', 'http://x');
    const store = new SnapshotStore(state, { requests: 0, bytesRead: 0 }, newHttpCounters(), { families: async () => [processFamily] } as unknown as ProcessMetrics);
    expect((await text(store)).get('process_resident_memory_bytes')).toBe(1234);
  });
});

describe('TargetState', () => {
  it('inherit: a replacement takes each collector\'s data and verdict until its own first poll; without families when names or shard changed', () => {
    const previous = setup().state;
    previous.succeeded('overview', fams(5), 0.1, 0, T0);
    previous.failed('nodes', 'HTTP 500', 0.2, T0);
    previous.answerRefused('nodes', '/api/nodes');
    const withFamilies = setup().state;
    withFamilies.succeeded('nodes', nodeFams(1), 0.1, 0, T0 + 5);
    withFamilies.inherit(previous, true);
    expect(withFamilies.up).toBe(true);
    expect(withFamilies.firstPollAttempted).toBe(true);
    expect(withFamilies.collectors.get('overview')).toMatchObject({ samples: 1, lastSuccessAt: T0, attempts: 1 });
    // A collector that already polled here keeps its own.
    expect(withFamilies.collectors.get('nodes')).toMatchObject({ lastSuccess: true, samples: 2 });
    expect([...withFamilies.refusedAnswers]).toEqual([['nodes\u0000/api/nodes', 1]]);
    const statusOnly = setup().state;
    statusOnly.inherit(previous, false);
    expect(statusOnly.up).toBe(true);
    expect(statusOnly.collectors.get('overview')).toMatchObject({ samples: 0, families: [], lastSuccessAt: undefined, attempts: 1 });
  });

  it('tracks attempts, successes and errors', () => {
    const state = new TargetState('default', 'http://x');
    state.register('overview', 1000, 3000, { decidesUp: true });
    expect(state.firstPollAttempted).toBe(false);
    expect(state.up).toBe(false);
    const v0 = state.version;
    state.failed('overview', 'boom', 0.5, T0);
    expect(state.version).toBe(v0 + 1);
    expect(state.firstPollAttempted).toBe(true);
    const c = state.collectors.get('overview')!;
    expect(c).toMatchObject({ attempts: 1, lastSuccess: false, lastError: 'boom', lastAttemptAt: T0, lastSuccessAt: undefined, lastDurationSeconds: 0.5 });
    state.succeeded('overview', fams(3), 0.1, 2, T0 + 10);
    expect(c).toMatchObject({ attempts: 2, lastSuccess: true, lastError: undefined, lastAttemptAt: T0 + 10, lastSuccessAt: T0 + 10, samples: 1, skipped: 2 });
    expect(state.up).toBe(true);
    expect(state.isFresh(c, P0 + 3000)).toBe(true);
    expect(state.isFresh(c, P0 + 3001)).toBe(false);
  });

  it('an unregistered collector is an error', () => {
    const state = new TargetState('t1', 'http://x');
    expect(() => state.succeeded('nodes', [], 0, 0)).toThrow('collector nodes is not registered on target t1');
  });
});

describe('SnapshotStore.forScrape', () => {
  it('serves the published exposition at once while a newer one is being prepared, then the newer one', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(5), 0.01, 0, T0);
    const first = await store.forScrape('openmetrics');
    state.succeeded('overview', fams(6), 0.01, 0, T0 + 10);
    // The state changed: the scrape is not held up, it gets the last complete exposition.
    const during = await store.forScrape('openmetrics');
    expect(during).toBe(first);
    expect(samples(during.body('text').toString('utf8')).get('rabbitmq_test_queues')).toBe(5);
    // The coalesced rebuild publishes the new one, already compressed.
    await vi.advanceTimersByTimeAsync(200);
    await vi.waitFor(async () => {
      const next = await store.forScrape('openmetrics');
      expect(samples(next.body('text').toString('utf8')).get('rabbitmq_test_queues')).toBe(6);
    });
  });

  // Issue 32: a forward step of the wall clock (NTP, +1 h) withdrew every series for a poll or two while rabbitmq_up stayed 1.
  it('a step of the wall clock withdraws nothing, and keeps nothing past its maximum age', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(5), 0.01, 0, T0);
    state.succeeded('nodes', nodeFams(1), 0.01, 0, T0);
    const scrape = async () => samples((await store.forScrape('openmetrics')).body('text').toString('utf8'));
    await scrape();
    vi.setSystemTime(T0 + 3_600_000);
    let s = await scrape();
    expect(s.get('rabbitmq_test_queues')).toBe(5);
    expect(s.get('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(1);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="overview"}')).toBe(0);
    // The timestamp served is the wall clock's, as it was at the poll.
    expect(s.get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="overview"}')).toBe(T0 / 1000);
    expect((await store.current()).sampleCount).toBe((await store.forScrape()).sampleCount);
    // Stepped back two hours, then 3001 ms pass: the overview's data (max age 3 s) are withdrawn, the nodes' (6 s) are not.
    vi.setSystemTime(T0 - 3_600_000);
    vi.advanceTimersByTime(3001);
    s = await scrape();
    expect(s.has('rabbitmq_test_queues')).toBe(false);
    expect(s.get('rabbitmq_exporter_collector_data_withdrawn{collector="overview"}')).toBe(1);
    expect(s.get('rabbitmq_test_node_memory_bytes{node="rabbit@vm"}')).toBe(1);
  });

  it('never serves data past their maximum age, even while a rebuild is pending', async () => {
    const { state, store } = setup();
    state.succeeded('overview', fams(5), 0.01, 0, T0);
    await store.forScrape('openmetrics');
    // overview's max age is 3 s: at T0 + 3.5 s the published exposition holds expired data.
    passUntil(T0 + 3500);
    const later = await store.forScrape('openmetrics');
    expect(samples(later.body('text').toString('utf8')).has('rabbitmq_test_queues')).toBe(false);
  });
});


// Issue 24: 10,000 idle targets each rebuilt and compressed a snapshot after every failed poll, though nobody scraped them.
describe('SnapshotStore before its first scrape', () => {
  function counted() {
    const state = new TargetState('default', 'http://localhost:15672');
    state.register('overview', 1000, 3000, { decidesUp: true });
    const builds = vi.fn(async () => []);
    const store = new SnapshotStore(state, { requests: 0, bytesRead: 0 }, newHttpCounters(), { families: builds });
    return { state, store, builds };
  }

  it('builds nothing after polls until a scrape asks; that scrape gets the current state', async () => {
    const { state, store, builds } = counted();
    state.failed('overview', 'connection refused', 0.01, T0);
    store.schedule();
    state.failed('overview', 'connection refused', 0.01, T0 + 10);
    store.schedule();
    await vi.advanceTimersByTimeAsync(1000);
    expect(builds).not.toHaveBeenCalled();
    state.succeeded('overview', fams(7), 0.01, 0, T0 + 20);
    const first = await store.forScrape();
    expect(samples(first.body('text').toString('utf8')).get('rabbitmq_test_queues')).toBe(7);
    expect(builds).toHaveBeenCalledTimes(1);
    // Scraped once: from now on a poll is followed by a build in the background.
    state.succeeded('overview', fams(8), 0.01, 0, T0 + 30);
    store.schedule();
    await vi.advanceTimersByTimeAsync(200);
    expect(builds).toHaveBeenCalledTimes(2);
  });

  it('a first scrape never gets an exposition older than the state, even one published by a refresh', async () => {
    const { state, store } = counted();
    state.succeeded('overview', fams(1), 0.01, 0, T0);
    await store.refresh();
    state.succeeded('overview', fams(2), 0.01, 0, T0 + 10);
    const first = await store.forScrape();
    expect(samples(first.body('text').toString('utf8')).get('rabbitmq_test_queues')).toBe(2);
  });

  it('compresses in the background only once a scraper asked for gzip', async () => {
    const { state, store } = counted();
    const gzip = vi.spyOn(Exposition.prototype, 'gzip');
    state.succeeded('overview', fams(1), 0.01, 0, T0);
    await store.forScrape();
    state.succeeded('overview', fams(2), 0.01, 0, T0 + 10);
    store.schedule();
    await vi.advanceTimersByTimeAsync(200);
    expect(gzip).not.toHaveBeenCalled();
    // Asked for gzip once: the following builds are compressed in that format before they are published.
    await store.forScrape('openmetrics');
    state.succeeded('overview', fams(3), 0.01, 0, T0 + 20);
    gzip.mockClear();
    store.schedule();
    await vi.advanceTimersByTimeAsync(200);
    expect(gzip).toHaveBeenCalledWith('openmetrics');
    gzip.mockRestore();
  });
});
