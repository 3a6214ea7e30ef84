// Issue 32: the collectors that read a list of vhosts one request each (connections, channels,
// consumers) serve the vhosts that answered when one does not, hold the failed one's series from
// the last poll until max_age, and say which vhost failed and why (src/collectors/kit/vhost-lists.ts).
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { channelsCollector } from '../../../../src/collectors/channels/collector.js';
import type { AnyCollector } from '../../../../src/collectors/kit/collector.js';
import { connectionsCollector } from '../../../../src/collectors/connections/collector.js';
import { consumersCollector } from '../../../../src/collectors/consumers/collector.js';
import { PartCutOff, partFailureCause } from '../../../../src/collectors/kit/optional-part.js';
import { fakeApi, STALL, type FakeRoute } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { runCollector, type RunResult } from '../../../support/run-collector.js';

const VHOSTS = ['a', 'b', 'c'];

interface Case {
  collector: AnyCollector;
  path: (vhost: string) => string;
  /** `n` records of one vhost. */
  records: (vhost: string, n: number) => unknown[];
  /** The family counting them per vhost, and its other labels. */
  count: { family: string; labels: Record<string, string> };
}

const connection = (vhost: string, i: number) => ({ name: `${vhost}-c${i}`, vhost, user: 'u', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running', channels: 1, recv_oct: 10, send_oct: 20, recv_cnt: 1, send_cnt: 2, send_pend: 0 });
const channel = (vhost: string, i: number) => ({ name: `${vhost}-ch${i}`, vhost, state: 'running', messages_unacknowledged: 0, messages_unconfirmed: 0, messages_uncommitted: 0, acks_uncommitted: 0, prefetch_count: 10 });
const consumer = (vhost: string, i: number) => ({ queue: { name: `q${i}`, vhost }, ack_required: true, prefetch_count: 10, activity_status: 'up', consumer_tag: `t${i}`, channel_details: { name: `${vhost}-ch${i}` } });

const CASES: [string, Case][] = [
  ['connections', { collector: connectionsCollector, path: (v) => `/api/vhosts/${v}/connections`, records: (v, n) => Array.from({ length: n }, (_, i) => connection(v, i)), count: { family: 'rabbitmq_connections_by_state', labels: { user: 'u', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running' } } }],
  ['channels', { collector: channelsCollector, path: (v) => `/api/vhosts/${v}/channels`, records: (v, n) => Array.from({ length: n }, (_, i) => channel(v, i)), count: { family: 'rabbitmq_channels_by_state', labels: { state: 'running' } } }],
  ['consumers', { collector: consumersCollector, path: (v) => `/api/consumers/${v}`, records: (v, n) => Array.from({ length: n }, (_, i) => consumer(v, i)), count: { family: 'rabbitmq_consumers_by_ack_mode', labels: { ack_mode: 'manual' } } }],
];

const SIZES: Record<string, number> = { a: 1, b: 2, c: 3 };

describe.each(CASES)('%s of a list of vhosts: one failing vhost', (name, c) => {
  const routes = (overrides: Record<string, FakeRoute> = {}): Record<string, FakeRoute> => ({
    '/api/whoami': loadFixture('rabbitmq-3.10.8/whoami.json'),
    ...Object.fromEntries(VHOSTS.map((v) => [c.path(v), c.records(v, SIZES[v]!)])),
    ...overrides,
  });
  const countOf = (r: RunResult, vhost: string) => r.value(c.count.family, { vhost, ...c.count.labels });
  const limits = { timeoutMs: 30_000, maxAgeMs: 60_000 };
  const options = { vhosts: VHOSTS };

  it('the others are served, it is reported, its series are held from the last poll until max_age', async () => {
    const memory = new Map<string, unknown>();
    const good = await runCollector(c.collector, { api: fakeApi(routes()), options, memory, limits });
    for (const v of VHOSTS) expect(countOf(good, v), v).toBe(SIZES[v]);
    const failing = () => {
      throw new ManagementError('http_status', c.path('b'), 'HTTP 500', 500);
    };
    // a and c change; b fails.
    const changed = { [c.path('a')]: c.records('a', 4), [c.path('c')]: c.records('c', 5), [c.path('b')]: failing };
    const partial = await runCollector(c.collector, { api: fakeApi(routes(changed)), options, memory, limits, lastServed: good.families });
    expect(countOf(partial, 'a')).toBe(4);
    expect(countOf(partial, 'c')).toBe(5);
    expect(countOf(partial, 'b')).toBe(2);
    expect(partial.value('rabbitmq_exporter_collector_vhost_failed', { collector: name, vhost: 'b', reason: 'http_500' })).toBe(1);
    expect(partial.family('rabbitmq_exporter_collector_vhost_last_success_timestamp_seconds').map((s) => s.labels.vhost)).toEqual(['b']);
    // b is not asked at the next poll (backoff); past max_age its series go, it stays reported.
    const expired = await runCollector(c.collector, { api: fakeApi(routes(changed)), options, memory, limits: { ...limits, maxAgeMs: 0 }, lastServed: partial.families });
    expect(expired.requests.map((q) => q.path)).not.toContain(c.path('b'));
    expect(countOf(expired, 'b')).toBeUndefined();
    expect(countOf(expired, 'a')).toBe(4);
    expect(expired.value('rabbitmq_exporter_collector_vhost_failed', { collector: name, vhost: 'b', reason: 'http_500' })).toBe(1);
  });

  it('a vhost refused while /api/whoami answers is that vhost\'s permissions; refused with /api/whoami too, the credentials: the poll fails', async () => {
    const refused = () => {
      throw new ManagementError('http_status', c.path('b'), 'HTTP 401', 401);
    };
    const r = await runCollector(c.collector, { api: fakeApi(routes({ [c.path('b')]: refused })), options });
    expect(r.value('rabbitmq_exporter_collector_vhost_failed', { collector: name, vhost: 'b', reason: 'http_401' })).toBe(1);
    expect(countOf(r, 'a')).toBe(1);
    const warning = r.logs.find((l) => l.vhost === 'b');
    expect(warning?.msg).toContain('set_permissions -p "b" "guest"');
    await expect(runCollector(c.collector, { api: fakeApi(routes({ [c.path('b')]: refused, '/api/whoami': refused })), options })).rejects.toMatchObject({ status: 401 });
  });

  it('every vhost failing fails the poll', async () => {
    const failing = () => {
      throw new ManagementError('timeout', 'x', 'no complete answer within 10 ms');
    };
    const all = Object.fromEntries(VHOSTS.map((v) => [c.path(v), failing]));
    await expect(runCollector(c.collector, { api: fakeApi(routes(all)), options })).rejects.toMatchObject({ kind: 'timeout' });
  });

  it("every vhost cut off by the poll's end fails the poll on its deadline, whichever timer fired first; a vhost's own failure is named before the cut-off", async () => {
    // Each vhost's own deadline (10 s) is far past the poll's (300 ms): the cut-off ends them all.
    const slow = { ...options, vhost_timeout: '10s' };
    const stalled = Object.fromEntries(VHOSTS.map((v) => [c.path(v), STALL]));
    const cutOff = await runCollector(c.collector, { api: fakeApi(routes(stalled)), options: slow, limits: { timeoutMs: 300, maxAgeMs: 60_000 } }).catch((e: unknown) => e);
    expect(cutOff).toBeInstanceOf(PartCutOff);
    expect(partFailureCause(cutOff, false)).toEqual({ kind: 'poll_deadline' });
    const timedOut = () => {
      throw new ManagementError('timeout', c.path('a'), 'no complete answer within 10 ms');
    };
    const mixed = await runCollector(c.collector, { api: fakeApi(routes({ ...stalled, [c.path('a')]: timedOut })), options: slow, limits: { timeoutMs: 300, maxAgeMs: 60_000 } }).catch((e: unknown) => e);
    expect(partFailureCause(mixed, false)).toEqual({ kind: 'request_timeout' });
  });
});

describe('a collector that stops reading per vhost', () => {
  it('forgets the vhosts that failed: read as one list, nothing is reported or held of them', async () => {
    const memory = new Map<string, unknown>();
    const failing = () => {
      throw new ManagementError('http_status', '/api/vhosts/b/connections', 'HTTP 500', 500);
    };
    const routes = {
      '/api/vhosts/a/connections': [connection('a', 0)],
      '/api/vhosts/b/connections': failing,
      '/api/connections': [connection('a', 0), connection('b', 0)],
    };
    const partial = await runCollector(connectionsCollector, { api: fakeApi(routes), options: { vhosts: ['a', 'b'] }, memory });
    expect(partial.family('rabbitmq_exporter_collector_vhost_failed')).toHaveLength(1);
    const whole = await runCollector(connectionsCollector, { api: fakeApi(routes), options: { vhosts: { include: '^[ab]$' } }, memory, lastServed: partial.families });
    expect(whole.family('rabbitmq_exporter_collector_vhost_failed')).toEqual([]);
    expect(whole.family('rabbitmq_connections_by_state').map((s) => s.labels.vhost).sort()).toEqual(['a', 'b']);
  });
});
