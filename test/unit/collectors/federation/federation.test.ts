import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { federationCollector } from '../../../../src/collectors/federation/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { runCollector } from '../../../support/run-collector.js';

// Recorded from a real 3.10.8 (with ?columns=): upstream up1 reaches the broker itself, upbad a closed port.
const LINKS = [
  { node: 'rabbit@vm', exchange: 'fed.x', upstream_exchange: 'fed.x', type: 'exchange', vhost: '/', upstream: 'upbad', status: 'error' },
  { node: 'rabbit@vm', exchange: 'fed.x', upstream_exchange: 'up.x', type: 'exchange', vhost: '/', upstream: 'up1', status: 'running' },
  { node: 'rabbit@vm', queue: 'fed.q', upstream_queue: 'fed.q', type: 'queue', vhost: '/', upstream: 'up1', status: 'running' },
  { node: 'rabbit@vm', queue: 'fed.q', upstream_queue: 'fed.q', type: 'queue', vhost: '/', upstream: 'upbad', status: 'error' },
];

describe('federation collector', () => {
  it('serves nothing when no link exists (recorded 3.10.8 answer), and asks only identity columns', async () => {
    const api = fakeApi({ '/api/federation-links': loadFixture('rabbitmq-3.10.8/federation-links.json') });
    const r = await runCollector(federationCollector, { api });
    expect(r.samples.size).toBe(0);
    expect(api.calls).toEqual([
      { path: '/api/federation-links', query: { columns: 'vhost,upstream,type,exchange,queue,upstream_exchange,upstream_queue,node,status' }, optional: false },
    ]);
  });

  it('serves up, the state set, info and counts by status for each link', async () => {
    const r = await runCollector(federationCollector, { api: fakeApi({ '/api/federation-links': LINKS }) });
    const x = { vhost: '/', exchange: 'fed.x', queue: '' };
    const q = { vhost: '/', exchange: '', queue: 'fed.q' };
    expect(r.family('rabbitmq_federation_link_up').map((s) => [s.labels, s.value])).toEqual([
      [{ ...x, upstream: 'upbad' }, 0],
      [{ ...x, upstream: 'up1' }, 1],
      [{ ...q, upstream: 'up1' }, 1],
      [{ ...q, upstream: 'upbad' }, 0],
    ]);
    const stateOf = (upstream: string, link: Record<string, string>) =>
      Object.fromEntries(
        r.family('rabbitmq_federation_link_state').filter((s) => s.labels.upstream === upstream && s.labels.queue === link.queue).map((s) => [s.labels.state, s.value]),
      );
    expect(stateOf('upbad', x)).toEqual({ starting: 0, running: 0, error: 1, shutdown: 0 });
    expect(stateOf('up1', q)).toEqual({ starting: 0, running: 1, error: 0, shutdown: 0 });
    expect(r.value('rabbitmq_federation_link_info', { ...x, upstream: 'up1', type: 'exchange', upstream_exchange: 'up.x', upstream_queue: '', node: 'rabbit@vm' })).toBe(1);
    expect(r.value('rabbitmq_federation_link_info', { ...q, upstream: 'upbad', type: 'queue', upstream_exchange: '', upstream_queue: 'fed.q', node: 'rabbit@vm' })).toBe(1);
    expect(r.family('rabbitmq_federation_links').map((s) => [s.labels.status, s.value])).toEqual([
      ['error', 2],
      ['running', 2],
    ]);
    expect(r.text).not.toContain('uri');
  });

  it('adds a state it does not know to the set, and keeps the running copy of a link two nodes report', async () => {
    const links = [
      { ...LINKS[1], node: 'rabbit2@vm', status: 'shutdown' },
      LINKS[1],
      { ...LINKS[2], status: 'stopping' },
    ];
    const r = await runCollector(federationCollector, { api: fakeApi({ '/api/federation-links': links }) });
    expect(r.family('rabbitmq_federation_link_up').map((s) => s.value)).toEqual([1, 0]);
    expect(r.family('rabbitmq_federation_link_info').map((s) => s.labels.node)).toEqual(['rabbit@vm', 'rabbit@vm']);
    expect(
      r.family('rabbitmq_federation_link_state').filter((s) => s.labels.queue === 'fed.q').map((s) => [s.labels.state, s.value]),
    ).toEqual([
      ['starting', 0],
      ['running', 0],
      ['error', 0],
      ['shutdown', 0],
      ['stopping', 1],
    ]);
  });

  it('has no series, no error and one info line per target when the plugin is absent (404)', async () => {
    const api = fakeApi({ '/api/federation-links': NOT_FOUND });
    const memory = new Map<string, unknown>();
    const first = await runCollector(federationCollector, { api, memory });
    expect(first.samples.size).toBe(0);
    expect(first.logs.map((l) => [l.level, l.msg])).toEqual([[30, 'the federation management plugin is not enabled: no series while the path is absent']]);
    for (let i = 0; i < 10; i++) {
      const r = await runCollector(federationCollector, { api, memory });
      expect(r.logs).toEqual([]);
    }
    // Asked at every poll: the plugin may be enabled at any time.
    expect(api.calls).toHaveLength(11);
  });

  it('fails the poll on any other error', async () => {
    const api = fakeApi({
      '/api/federation-links': () => {
        throw new ManagementError('timeout', '/api/federation-links', 'no complete answer within 1000 ms');
      },
    });
    await expect(runCollector(federationCollector, { api })).rejects.toMatchObject({ kind: 'timeout' });
  });
});
