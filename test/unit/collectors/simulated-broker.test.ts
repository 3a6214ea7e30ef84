// Collectors through the real ManagementClient against the simulated management API
// (test/support/management-simulator.ts): thousands of queues in every query mode, hostile values
// and faults. Expected values come from the simulator's generated records, not from the collector.
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/broker/errors.js';
import { ManagementClient } from '../../../src/broker/management-client.js';
import { exchangesCollector } from '../../../src/collectors/exchanges/collector.js';
import { queuesCollector } from '../../../src/collectors/queues/collector.js';
import { queueCounts, startSimulator, type Simulator, type SimulatorOptions } from '../../support/management-simulator.js';
import { runCollector } from '../../support/run-collector.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function simulator(options: SimulatorOptions): Promise<{ sim: Simulator; client: ManagementClient }> {
  const sim = await startSimulator(options);
  const client = new ManagementClient({
    url: sim.url,
    username: sim.username,
    password: sim.password,
    timeouts: { connectMs: 2000, headersMs: 10_000, bodyMs: 10_000, totalMs: 30_000 },
    maxResponseBytes: 64 << 20,
    maxConcurrentRequests: 2,
  });
  cleanups.push(() => sim.close(), () => client.close());
  return { sim, client };
}

const QUEUES = 2500;
const VHOSTS = 7;

function expectEveryQueue(r: Awaited<ReturnType<typeof runCollector>>, sim: Simulator): void {
  const messages = r.family('rabbitmq_queue_messages');
  expect(messages).toHaveLength(QUEUES);
  for (const q of sim.data.queues) {
    const i = Number((q.name as string).slice(1));
    const { ready, unacked } = queueCounts(i);
    expect(r.samples.get(`rabbitmq_queue_messages{vhost="${q.vhost as string}",queue="${q.name as string}"}`)).toBe(ready + unacked);
  }
}

describe('queues against the simulated API', () => {
  it.each([
    ['auto (columns, per vhost)', {}],
    ['columns, one list', { mode: 'columns', per_vhost: false }],
    ['totals', { mode: 'totals' }],
    ['full', { mode: 'full' }],
    ['paged by 500', { page_size: 500 }],
  ])('%s: a series for every queue, with its own counts', async (_name, options) => {
    const { sim, client } = await simulator({ queues: QUEUES, vhosts: VHOSTS });
    const r = await runCollector(queuesCollector, { api: client, options });
    expectEveryQueue(r, sim);
    const total = sim.data.queues.reduce((n, q) => n + (q.messages as number), 0);
    const sum = r.family('rabbitmq_vhost_queue_messages').reduce((n, s) => n + s.value, 0);
    expect(sum).toBe(total);
  });

  it('statistics disabled: counts from queue totals, and the poll says it is degraded', async () => {
    const { sim, client } = await simulator({ queues: QUEUES, vhosts: VHOSTS, variant: 'stats-disabled' });
    const r = await runCollector(queuesCollector, { api: client });
    expectEveryQueue(r, sim);
    expect(r.value('rabbitmq_queue_statistics_degraded')).toBe(1);
  });

  it('numbers as strings are read as numbers; names with newlines stay inside their label', async () => {
    const { sim, client } = await simulator({ queues: 50, vhosts: 1 });
    sim.fault('/api/queues', { kind: 'wrong_types', what: ['numbers_as_strings', 'newline_names'] });
    const r = await runCollector(queuesCollector, { api: client });
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'q7\nrabbitmq_injected 1\n' })).toBe(queueCounts(7).ready + queueCounts(7).unacked);
    expect(r.family('rabbitmq_injected')).toEqual([]);
  });

  it('nulls and nested garbage are skipped, never served as 0', async () => {
    for (const what of ['nulls', 'nested_garbage'] as const) {
      const { sim, client } = await simulator({ queues: 50, vhosts: 1 });
      sim.fault('/api/queues', { kind: 'wrong_types', what: [what] });
      const r = await runCollector(queuesCollector, { api: client });
      expect(r.family('rabbitmq_queue_messages'), what).toEqual([]);
      expect(r.skipped, what).toBeGreaterThan(0);
      expect(r.family('rabbitmq_queue_info'), what).toHaveLength(50);
    }
  });

  it('1 MB strings in a record do not stop the others', async () => {
    const { sim, client } = await simulator({ queues: 50, vhosts: 1 });
    sim.fault('/api/queues', { kind: 'wrong_types', what: ['megabyte_strings'] });
    const r = await runCollector(queuesCollector, { api: client });
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'q9' })).toBe(queueCounts(9).ready + queueCounts(9).unacked);
    // Label values over 256 bytes are cut, with a hash of the whole (src/exposition/sample-sink.ts).
    expect(r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'q0')?.labels.policy).toMatch(/^p{243}~[0-9a-f]{12}$/);
  });

  it.each([
    ['HTTP 503', { kind: 'status', status: 503 }, 'http_503'],
    // A vhost /api/vhosts just listed: deleted since, or (RabbitMQ 4.3) one the user may not read.
    ['HTTP 404', { kind: 'status', status: 404 }, 'http_404'],
    ['a reset', { kind: 'reset', afterBytes: 500 }, 'network'],
    ['a truncated body', { kind: 'truncated' }, 'network'],
    ['a malformed body', { kind: 'malformed' }, 'malformed_json'],
  ] as const)('%s on one vhost: the others are served, that vhost is reported with why, and logged naming the path', async (_name, fault, reason) => {
    const { sim, client } = await simulator({ queues: QUEUES, vhosts: VHOSTS });
    sim.fault('/api/queues/vh3', fault);
    const r = await runCollector(queuesCollector, { api: client });
    expectQueuesOf(r, sim, (vhost) => vhost !== 'vh3');
    expect(r.family('rabbitmq_exporter_collector_vhost_failed').map((s) => s.labels)).toEqual([{ collector: 'queues', vhost: 'vh3', reason }]);
    const warning = r.logs.find((l) => l.vhost === 'vh3' && l.level === 40);
    expect(warning?.cause).toContain('/api/queues/vh3');
  });

  // Several polls of a simulated broker over HTTP: 1.2 s on a quiet machine, 5.2 s in a fresh-clone run on Node 26 (vitest's default is 5 s).
  it('a failed vhost keeps the series of its last good answer, marked with when that was, until max_age; then they are withdrawn', async () => {
    const { sim, client } = await simulator({ queues: QUEUES, vhosts: VHOSTS });
    const memory = new Map<string, unknown>();
    const limits = { timeoutMs: 10_000, maxAgeMs: 60_000 };
    const good = await runCollector(queuesCollector, { api: client, memory, limits });
    expectEveryQueue(good, sim);
    sim.fault('/api/queues/vh3', { kind: 'status', status: 500 });
    const partial = await runCollector(queuesCollector, { api: client, memory, limits, lastServed: good.families });
    // Every queue, vh3's from the first poll (the simulator's counts do not change between polls).
    expectEveryQueue(partial, sim);
    expect(partial.value('rabbitmq_vhost_queues', { vhost: 'vh3', type: 'classic' })).toBe(good.value('rabbitmq_vhost_queues', { vhost: 'vh3', type: 'classic' }));
    expect(partial.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'vh3', reason: 'http_500' })).toBe(1);
    const lastGood = partial.value('rabbitmq_exporter_collector_vhost_last_success_timestamp_seconds', { collector: 'queues', vhost: 'vh3' });
    expect(lastGood).toBeGreaterThan(Date.now() / 1000 - 60);
    // Past max_age the held series go; the vhost stays reported.
    const expired = await runCollector(queuesCollector, { api: client, memory, limits: { ...limits, maxAgeMs: 0 }, lastServed: partial.families });
    expectQueuesOf(expired, sim, (vhost) => vhost !== 'vh3');
    expect(expired.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'vh3', reason: 'http_500' })).toBe(1);
  }, 30_000);

  it('a vhost that fails is asked again after 1, 2, 4, then every 8 polls, and is read again once it answers', async () => {
    const { sim, client } = await simulator({ queues: 70, vhosts: VHOSTS });
    sim.fault('/api/queues/vh3', { kind: 'status', status: 500 });
    const memory = new Map<string, unknown>();
    const askedVh3: boolean[] = [];
    for (let poll = 0; poll < 20; poll++) {
      const r = await runCollector(queuesCollector, { api: client, memory });
      askedVh3.push(r.requests.some((q) => q.path === '/api/queues/vh3'));
      expect(r.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'vh3', reason: 'http_500' })).toBe(1);
    }
    // Asked at polls 0, 2, 5, 10, 19 (skipping 1, 2, 4, 8 after the 1st to 4th failure).
    expect(askedVh3.flatMap((asked, poll) => (asked ? [poll] : []))).toEqual([0, 2, 5, 10, 19]);
    sim.fault('/api/queues/vh3', undefined);
    for (let poll = 20; poll < 28; poll++) await runCollector(queuesCollector, { api: client, memory });
    const back = await runCollector(queuesCollector, { api: client, memory });
    expect(back.family('rabbitmq_exporter_collector_vhost_failed')).toEqual([]);
    expectQueuesOf(back, sim, () => true);
  });

  it('a vhost that stalls ends at vhost_timeout (reason timeout) and the others are served', async () => {
    const { sim, client } = await simulator({ queues: 700, vhosts: VHOSTS });
    sim.fault('/api/queues/vh2', { kind: 'stall' });
    const started = performance.now();
    const r = await runCollector(queuesCollector, { api: client, options: { vhost_timeout: '300ms' }, limits: { timeoutMs: 20_000, maxAgeMs: 60_000 } });
    expect(performance.now() - started).toBeLessThan(10_000);
    expectQueuesOf(r, sim, (vhost) => vhost !== 'vh2');
    expect(r.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'vh2', reason: 'timeout' })).toBe(1);
    expect(r.logs.find((l) => l.vhost === 'vh2')?.msg).toContain('collectors.queues.vhost_timeout');
  });

  it('a vhost still unanswered near the poll\'s deadline ends then (reason poll_deadline), and is asked first at the next poll', async () => {
    const { sim, client } = await simulator({ queues: 700, vhosts: VHOSTS });
    sim.fault('/api/queues/vh5', { kind: 'stall' });
    const memory = new Map<string, unknown>();
    const limits = { timeoutMs: 3000, maxAgeMs: 60_000 };
    const started = performance.now();
    const r = await runCollector(queuesCollector, { api: client, memory, options: { vhost_timeout: '1m' }, limits });
    // Cut by the poll's deadline (its last tenth is kept for writing), not by vhost_timeout's minute: the
    // reason below says which. The wall time is bounded far from either edge, since on a loaded machine
    // timers fire late and a bound at the deadline itself measured the machine, not the collector.
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(2700);
    expect(took).toBeLessThan(10_000);
    expectQueuesOf(r, sim, (vhost) => vhost !== 'vh5');
    expect(r.value('rabbitmq_exporter_collector_vhost_failed', { collector: 'queues', vhost: 'vh5', reason: 'poll_deadline' })).toBe(1);
    sim.fault('/api/queues/vh5', undefined);
    const next = await runCollector(queuesCollector, { api: client, memory, limits });
    expect(next.requests.filter((q) => q.path.startsWith('/api/queues/'))[0]?.path).toBe('/api/queues/vh5');
    expectQueuesOf(next, sim, () => true);
  });

  it('every vhost failing fails the poll', async () => {
    const { sim, client } = await simulator({ queues: 70, vhosts: 3 });
    sim.fault(/^\/api\/queues\//, { kind: 'status', status: 500 });
    await expect(runCollector(queuesCollector, { api: client })).rejects.toBeInstanceOf(ManagementError);
  });
});

/** The series of exactly the queues of the vhosts `served` keeps, with the simulator's counts. */
function expectQueuesOf(r: Awaited<ReturnType<typeof runCollector>>, sim: Simulator, served: (vhost: string) => boolean): void {
  const expected = sim.data.queues.filter((q) => served(q.vhost as string));
  expect(r.family('rabbitmq_queue_messages')).toHaveLength(expected.length);
  for (const q of expected) {
    const { ready, unacked } = queueCounts(Number((q.name as string).slice(1)));
    expect(r.samples.get(`rabbitmq_queue_messages{vhost="${q.vhost as string}",queue="${q.name as string}"}`)).toBe(ready + unacked);
  }
}

describe('exchanges against the simulated API', () => {
  it('every exchange of every vhost', async () => {
    const { sim, client } = await simulator({ queues: 10, vhosts: 4, exchanges: 900 });
    const r = await runCollector(exchangesCollector, { api: client });
    const names = new Set(r.parsed.filter((s) => s.labels.exchange !== undefined).map((s) => `${s.labels.vhost}/${s.labels.exchange}`));
    for (const x of sim.data.exchanges) expect(names.has(`${x.vhost as string}/${x.name as string}`), x.name as string).toBe(true);
  });
});
