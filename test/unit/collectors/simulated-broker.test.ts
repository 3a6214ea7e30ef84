// Collectors through the real ManagementClient against the simulated management API
// (test/support/management-simulator.ts): thousands of queues in every query mode, hostile values
// and faults. Expected values come from the simulator's generated records, not from the collector.
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/client/errors.js';
import { ManagementClient } from '../../../src/client/management-client.js';
import { exchangesCollector } from '../../../src/collectors/exchanges.js';
import { queuesCollector } from '../../../src/collectors/queues.js';
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
    // Label values over 256 bytes are cut, with a hash of the whole (src/render/sample-sink.ts).
    expect(r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'q0')?.labels.policy).toMatch(/^p{243}~[0-9a-f]{12}$/);
  });

  it.each([
    ['HTTP 503', { kind: 'status', status: 503 }, 'http_status'],
    ['a reset', { kind: 'reset', afterBytes: 500 }, 'network'],
    ['a truncated body', { kind: 'truncated' }, 'network'],
    ['a malformed body', { kind: 'malformed' }, 'malformed_json'],
  ] as const)('%s on one vhost fails the poll, naming the path', async (_name, fault, kind) => {
    const { sim, client } = await simulator({ queues: QUEUES, vhosts: VHOSTS });
    sim.fault('/api/queues/vh3', fault);
    const error = await runCollector(queuesCollector, { api: client }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ManagementError);
    expect((error as ManagementError).kind).toBe(kind);
    expect((error as ManagementError).pathname).toBe('/api/queues/vh3');
  });
});

describe('exchanges against the simulated API', () => {
  it('every exchange of every vhost', async () => {
    const { sim, client } = await simulator({ queues: 10, vhosts: 4, exchanges: 900 });
    const r = await runCollector(exchangesCollector, { api: client });
    const names = new Set(r.parsed.filter((s) => s.labels.exchange !== undefined).map((s) => `${s.labels.vhost}/${s.labels.exchange}`));
    for (const x of sim.data.exchanges) expect(names.has(`${x.vhost as string}/${x.name as string}`), x.name as string).toBe(true);
  });
});
