import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { connectionMetrics } from '../../../../src/collectors/connections/metrics.js';
import { connectionsCollector } from '../../../../src/collectors/connections/collector.js';
import { fakeApi, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

type Rec = Record<string, unknown>;
interface PageAnswer {
  items: Rec[];
  page_count: number;
  [key: string]: unknown;
}

/** GET /api/connections?page=1&page_size=20 of the recorded 3.10.8 broker: 20 of its 100 connections. */
const page1 = loadFixture<PageAnswer>('rabbitmq-3.10.8/connections-page1.json');
/** The same 20 connections as if they were the whole list (one page). */
const whole = { ...page1, page_count: 1, total_count: 20, filtered_count: 20 };
const STATS_OFF = { ...BROKER_3_10_8, statisticsDisabled: true };

const vh0 = { vhost: 'vh0', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm' };
const vh1 = { ...vh0, vhost: 'vh1' };

function conn(fields: Rec): Rec {
  return { vhost: '/', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running', ...fields };
}

describe('connections collector, aggregated (default)', () => {
  it('counts and sums the recorded connections by vhost, user, protocol, node (and state)', async () => {
    const api = fakeApi({ '/api/connections': whole });
    const r = await runCollector(connectionsCollector, { api });

    // Values checked by hand on the fixture with python3 (20 connections, 10 per vhost, all running).
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
    expect(r.value('rabbitmq_connections_by_state', { ...vh1, state: 'running' })).toBe(10);
    expect(r.family('rabbitmq_connections_by_state')).toHaveLength(2);
    expect(r.value('rabbitmq_connections_channels', { ...vh0, state: 'running' })).toBe(20);
    expect(r.value('rabbitmq_connections_channels', { ...vh1, state: 'running' })).toBe(20);
    expect(r.value('rabbitmq_connections_incoming_bytes', vh0)).toBe(2729568);
    expect(r.value('rabbitmq_connections_incoming_bytes', vh1)).toBe(2735247);
    expect(r.value('rabbitmq_connections_outgoing_bytes', vh0)).toBe(3290250);
    expect(r.value('rabbitmq_connections_outgoing_bytes', vh1)).toBe(3296980);
    expect(r.value('rabbitmq_connections_incoming_packets', vh0)).toBe(28009);
    expect(r.value('rabbitmq_connections_incoming_packets', vh1)).toBe(27591);
    expect(r.value('rabbitmq_connections_outgoing_packets', vh0)).toBe(8982);
    expect(r.value('rabbitmq_connections_outgoing_packets', vh1)).toBe(9778);
    expect(r.value('rabbitmq_connections_send_pending_bytes', vh0)).toBe(0);
    expect(r.value('rabbitmq_connections_incoming_bytes_per_second', vh0)).toBeCloseTo(41279.2, 6);
    expect(r.value('rabbitmq_connections_incoming_bytes_per_second', vh1)).toBe(41450);
    expect(r.value('rabbitmq_connections_outgoing_bytes_per_second', vh0)).toBe(49700);
    expect(r.value('rabbitmq_connections_outgoing_bytes_per_second', vh1)).toBe(49851);
    expect(r.skipped).toBe(0);

    // No per-connection series unless asked for.
    expect(r.text).not.toMatch(/^rabbitmq_connection_/m);
    // The aggregates are gauges: their sums drop when a connection closes.
    expect(r.text).toContain('# TYPE rabbitmq_connections_incoming_bytes gauge\n');
    expect(r.text).not.toMatch(/rabbitmq_connections_\w+_total/);
  });

  it('asks for the needed columns only, and page 1 of up to 500 on the first poll', async () => {
    const api = fakeApi({ '/api/connections': whole });
    await runCollector(connectionsCollector, { api });
    expect(api.calls).toHaveLength(1);
    const { path, query } = api.calls[0]!;
    expect(path).toBe('/api/connections');
    expect(query.page).toBe('1');
    expect(query.page_size).toBe('500');
    const columns = query.columns!.split(',');
    expect(columns).toEqual(expect.arrayContaining(['name', 'vhost', 'user', 'protocol', 'node', 'state', 'channels', 'recv_oct', 'send_oct', 'recv_cnt', 'send_cnt', 'send_pend', 'recv_oct_details', 'send_oct_details']));
    expect(columns).not.toContain('client_properties');
  });

  it('leaves out rate columns and gauges with rates: false', async () => {
    const api = fakeApi({ '/api/connections': whole });
    const r = await runCollector(connectionsCollector, { api, options: { rates: false } });
    expect(api.calls[0]!.query.columns).not.toContain('_details');
    expect(r.parsed.filter((x) => x.name.endsWith('_per_second'))).toEqual([]);
    expect(r.value('rabbitmq_connections_incoming_bytes', vh0)).toBe(2729568);
  });

  it('escapes odd vhost and user names in labels', async () => {
    const odd = 'we"ird\\vh\nx';
    const api = fakeApi({ '/api/connections': [conn({ name: 'c1', vhost: odd, user: 'ü ser', channels: 3 })] });
    const r = await runCollector(connectionsCollector, { api });
    expect(r.text).toContain(
      'rabbitmq_connections_by_state{vhost="we\\"ird\\\\vh\\nx",user="ü ser",protocol="AMQP 0-9-1",node="rabbit@vm",state="running"} 1\n',
    );
    expect(r.value('rabbitmq_connections_channels', { vhost: odd, user: 'ü ser', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running' })).toBe(3);
  });

  it('leaves out null, absent and non-numeric values instead of serving 0; numeric strings count', async () => {
    const api = fakeApi({
      '/api/connections': [
        conn({ name: 'a', vhost: 'v1', recv_oct: 100, send_oct: null, channels: 1 }),
        conn({ name: 'b', vhost: 'v1', recv_oct: '23', channels: 'n/a' }),
        conn({ name: 'c', vhost: 'v2', recv_oct: null, send_oct: 'lots' }),
      ],
    });
    const r = await runCollector(connectionsCollector, { api });
    const v1 = { vhost: 'v1', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm' };
    const v2 = { ...v1, vhost: 'v2' };
    expect(r.value('rabbitmq_connections_by_state', { ...v1, state: 'running' })).toBe(2);
    expect(r.value('rabbitmq_connections_by_state', { ...v2, state: 'running' })).toBe(1);
    expect(r.value('rabbitmq_connections_incoming_bytes', v1)).toBe(123);
    // Nobody in v2 had a number: no sample at all, not 0.
    expect(r.value('rabbitmq_connections_incoming_bytes', v2)).toBeUndefined();
    expect(r.value('rabbitmq_connections_outgoing_bytes', v1)).toBeUndefined();
    expect(r.value('rabbitmq_connections_outgoing_bytes', v2)).toBeUndefined();
    expect(r.value('rabbitmq_connections_channels', { ...v1, state: 'running' })).toBe(1);
    expect(r.value('rabbitmq_connections_channels', { ...v2, state: 'running' })).toBeUndefined();
    expect(r.family('rabbitmq_connections_send_pending_bytes')).toHaveLength(0);
    // Two nulls, 'n/a' and 'lots' are counted as skipped values; absent fields are not.
    expect(r.skipped).toBe(4);
  });

  it('counts a connection listed twice (it moved between pages) once', async () => {
    const api = fakeApi({ '/api/connections': [conn({ name: 'a', channels: 1 }), conn({ name: 'a', channels: 1 }), conn({ name: 'b', channels: 2 })] });
    const r = await runCollector(connectionsCollector, { api });
    const labels = { vhost: '/', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running' };
    expect(r.value('rabbitmq_connections_by_state', labels)).toBe(2);
    expect(r.value('rabbitmq_connections_channels', labels)).toBe(3);
  });

  it('serves nothing for the empty list of a broker with statistics disabled (recorded)', async () => {
    const api = fakeApi({ '/api/connections': loadFixture('rabbitmq-3.10.8-stats-disabled/connections.json') });
    const r = await runCollector(connectionsCollector, { api, broker: STATS_OFF });
    expect(r.text).toBe('');
    expect(r.skipped).toBe(0);
  });

  it('counts the tracked connections a broker with statistics disabled lists (name, vhost, user, node only)', async () => {
    // Measured on 3.10.8 with management.disable_stats: records carry only these four fields.
    const tracked = ['1', '2', '3'].map((n) => ({ name: `127.0.0.1:5230${n} -> 127.0.0.1:5672`, vhost: '/', user: 'guest', node: 'rabbit@vm' }));
    const api = fakeApi({ '/api/connections': tracked });
    const r = await runCollector(connectionsCollector, { api, broker: STATS_OFF, options: { per_connection: true } });
    expect(r.value('rabbitmq_connections_by_state', { vhost: '/', user: 'guest', protocol: '', node: 'rabbit@vm', state: '' })).toBe(3);
    expect(r.family('rabbitmq_connections_channels')).toHaveLength(0);
    expect(r.family('rabbitmq_connections_incoming_bytes')).toHaveLength(0);
    expect(r.family('rabbitmq_connection_info')).toHaveLength(3);
    expect(r.family('rabbitmq_connection_state')).toHaveLength(0);
    expect(r.family('rabbitmq_connection_incoming_bytes_total')).toHaveLength(0);
    expect(r.skipped).toBe(0);
  });
});

describe('connections collector, columns', () => {
  const columnsAsked = async (options: Record<string, unknown>) => {
    const api = fakeApi({ '/api/connections': whole });
    await runCollector(connectionsCollector, { api, options });
    return new Set(api.calls[0]!.query.columns!.split(','));
  };

  it('asks for the label fields and the fields of the rows it serves: every source field of the catalogue per connection, no more', async () => {
    const labels = ['name', 'vhost', 'user', 'protocol', 'node', 'state'];
    const sources = Object.values(connectionMetrics).flatMap((def) => (def.source ? [def.source.field] : []));
    const info = ['type', 'peer_host', 'auth_mechanism', 'ssl', 'user_provided_name', 'client_properties'];
    const rates = ['recv_oct_details', 'send_oct_details'];
    expect(await columnsAsked({ per_connection: true })).toEqual(new Set([...labels, ...sources, ...rates, ...info]));
    expect(await columnsAsked({ per_connection: true, rates: false })).toEqual(new Set([...labels, ...sources, ...info]));
    const aggregated = sources.filter((field) => field !== 'connected_at');
    expect(await columnsAsked({})).toEqual(new Set([...labels, ...aggregated, ...rates]));
  });
});

describe('connections collector, per connection', () => {
  it('serves counters, state and info per connection', async () => {
    const api = fakeApi({ '/api/connections': whole });
    const r = await runCollector(connectionsCollector, { api, options: { per_connection: true } });
    expect(api.calls[0]!.query.columns).toContain('client_properties');

    const c0 = { connection: '127.0.0.1:60010 -> 127.0.0.1:5672', vhost: 'vh0', user: 'guest' };
    expect(r.value('rabbitmq_connection_info', {
      ...c0, node: 'rabbit@vm', protocol: 'AMQP 0-9-1', type: 'network', peer_host: '127.0.0.1', client_name: 'load-0',
      client_product: 'amqplib', client_version: '0.10.9', auth_mechanism: 'PLAIN', ssl: 'false',
    })).toBe(1);
    expect(r.value('rabbitmq_connection_state', { ...c0, state: 'running' })).toBe(1);
    expect(r.value('rabbitmq_connection_channels', c0)).toBe(2);
    expect(r.value('rabbitmq_connection_incoming_bytes_total', c0)).toBe(261992);
    expect(r.value('rabbitmq_connection_outgoing_bytes_total', c0)).toBe(317161);
    expect(r.value('rabbitmq_connection_incoming_packets_total', c0)).toBe(2845);
    expect(r.value('rabbitmq_connection_outgoing_packets_total', c0)).toBe(928);
    expect(r.value('rabbitmq_connection_send_pending_bytes', c0)).toBe(0);
    expect(r.value('rabbitmq_connection_incoming_bytes_per_second', c0)).toBe(4050);
    expect(r.value('rabbitmq_connection_outgoing_bytes_per_second', c0)).toBe(4900);
    expect(r.value('rabbitmq_connection_connected_at_timestamp_seconds', c0)).toBe(1795315130.056);
    expect(r.family('rabbitmq_connection_info')).toHaveLength(20);
    expect(r.family('rabbitmq_connection_incoming_bytes_total')).toHaveLength(20);
    expect(r.text).toContain('# TYPE rabbitmq_connection_incoming_bytes_total counter\n');
    // The aggregates are still there.
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
  });

  it('converts connected_at from milliseconds without float noise', async () => {
    // 1795318444613 × 0.001 would render as 1795318444.6130002 (seen on a real broker).
    const api = fakeApi({ '/api/connections': [conn({ name: 'a', connected_at: 1795318444613 }), conn({ name: 'b', connected_at: 'soon' })] });
    const r = await runCollector(connectionsCollector, { api, options: { per_connection: true } });
    expect(r.text).toContain('rabbitmq_connection_connected_at_timestamp_seconds{connection="a",vhost="/",user="guest"} 1795318444.613\n');
    expect(r.value('rabbitmq_connection_connected_at_timestamp_seconds', { connection: 'b', vhost: '/', user: 'guest' })).toBeUndefined();
    expect(r.skipped).toBe(1);
  });

  it('skips records without a name and tolerates missing client_properties', async () => {
    const api = fakeApi({ '/api/connections': [conn({ channels: 1 }), conn({ name: 'x', client_properties: null, recv_oct: null })] });
    const r = await runCollector(connectionsCollector, { api, options: { per_connection: true } });
    expect(r.family('rabbitmq_connection_info')).toEqual([
      {
        name: 'rabbitmq_connection_info',
        labels: { connection: 'x', vhost: '/', user: 'guest', node: 'rabbit@vm', protocol: 'AMQP 0-9-1', type: '', peer_host: '', client_name: '', client_product: '', client_version: '', auth_mechanism: '', ssl: '' },
        value: 1,
      },
    ]);
    expect(r.family('rabbitmq_connection_incoming_bytes_total')).toHaveLength(0);
    expect(r.value('rabbitmq_connections_by_state', { vhost: '/', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running' })).toBe(2);
  });
});

describe('connections collector, paging', () => {
  /**
   * The 20 recorded connections served in pages, like the API does. Between page 1 and page 2
   * the list may change: 'shrink' (the first connection closes, every later one moves one place
   * forward) or 'grow' (a new connection appears first, every other one moves one place back).
   */
  function pagedRoute(change: 'none' | 'shrink' | 'grow' = 'none') {
    return (query: Record<string, string>) => {
      const size = Number(query.page_size);
      const page = Number(query.page);
      let items = page1.items;
      if (page > 1 && change === 'shrink') items = items.slice(1);
      if (page > 1 && change === 'grow') items = [conn({ name: 'new', vhost: 'vh9' }), ...items];
      const pageCount = Math.ceil(items.length / size);
      if (page > pageCount) throw new ManagementError('http_status', '/api/connections', 'HTTP 400 (page_out_of_range)', 400);
      return { items: items.slice((page - 1) * size, page * size), page, page_count: pageCount, page_size: size, total_count: items.length };
    };
  }

  function total(r: { family(name: string): { value: number }[] }): number {
    return r.family('rabbitmq_connections_by_state').reduce((n, s) => n + s.value, 0);
  }

  it('fetches every page up to page_count', async () => {
    const api = fakeApi({ '/api/connections': pagedRoute() });
    const r = await runCollector(connectionsCollector, { api, options: { page_size: 8 } });
    expect(api.calls.map((c) => c.query.page)).toEqual(['1', '2', '3']);
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
    expect(r.value('rabbitmq_connections_by_state', { ...vh1, state: 'running' })).toBe(10);
    expect(r.value('rabbitmq_connections_incoming_bytes', vh1)).toBe(2735247);
  });

  it('counts an item that moved back onto the next page once', async () => {
    // Page 1: items 0..7. The list grows by one at the front: page 2 holds items 7..14 (7 again),
    // page 3 items 15..19. The new connection lands in page 1's range after it was read: missed.
    const api = fakeApi({ '/api/connections': pagedRoute('grow') });
    const r = await runCollector(connectionsCollector, { api, options: { page_size: 8 } });
    expect(api.calls.map((c) => c.query.page)).toEqual(['1', '2', '3']);
    expect(total(r)).toBe(20);
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
  });

  it('misses an item that moved forward onto a page already read, without failing', async () => {
    // Page 1: items 0..7. The first connection closes: page 2 holds items 9..16, page 3 items
    // 17..19. Item 8 moved into page 1's range after it was read: the next poll sees it.
    const api = fakeApi({ '/api/connections': pagedRoute('shrink') });
    const r = await runCollector(connectionsCollector, { api, options: { page_size: 8 } });
    expect(api.calls.map((c) => c.query.page)).toEqual(['1', '2', '3']);
    expect(total(r)).toBe(19);
  });

  it('tolerates a page past the end (HTTP 400) when the list shrank by more than a page', async () => {
    let calls = 0;
    const api = fakeApi({
      '/api/connections': (query: Record<string, string>) => {
        calls++;
        if (query.page === '1') return { items: [conn({ name: 'a' })], page: 1, page_count: 2, page_size: 1, total_count: 2 };
        throw new ManagementError('http_status', '/api/connections', 'HTTP 400 (page_out_of_range)', 400);
      },
    });
    const r = await runCollector(connectionsCollector, { api, options: { page_size: 1 } });
    expect(calls).toBe(2);
    expect(r.family('rabbitmq_connections_by_state')).toHaveLength(1);
  });

  it('fails the poll when page 1 fails', async () => {
    const api = fakeApi({
      '/api/connections': () => {
        throw new ManagementError('http_status', '/api/connections', 'HTTP 500', 500);
      },
    });
    await expect(runCollector(connectionsCollector, { api })).rejects.toThrow(/HTTP 500/);
  });

  it('reads a short list in one unpaged request once a poll has seen its length', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/connections': (q: Record<string, string>) => (q.page ? whole : whole.items) });
    await runCollector(connectionsCollector, { api, memory });
    const r = await runCollector(connectionsCollector, { api, memory });
    expect(api.calls.map((c) => c.query.page)).toEqual(['1', undefined]);
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
    // Above the threshold it pages again.
    await runCollector(connectionsCollector, { api, memory, options: { paging_threshold: 10 } });
    expect(api.calls[2]!.query.page).toBe('1');
  });
});

describe('connections collector, per vhost', () => {
  it('reads each configured vhost from /api/vhosts/{vhost}/connections, URL-encoded', async () => {
    const api = fakeApi({
      '/api/vhosts/vh0/connections': page1.items.filter((c) => c.vhost === 'vh0'),
      '/api/vhosts/%2F/connections': [conn({ name: 'root-1' })],
    });
    const r = await runCollector(connectionsCollector, { api, options: { vhosts: ['vh0', '/'] } });
    expect(api.calls.map((c) => c.path).sort()).toEqual(['/api/vhosts/%2F/connections', '/api/vhosts/vh0/connections']);
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, state: 'running' })).toBe(10);
    expect(r.value('rabbitmq_connections_by_state', { ...vh0, vhost: '/', state: 'running' })).toBe(1);
    expect(r.family('rabbitmq_connections_by_state')).toHaveLength(2);
  });

  it('skips a configured vhost that does not exist, warning once', async () => {
    const api = fakeApi({ '/api/vhosts/gone/connections': NOT_FOUND, '/api/vhosts/vh1/connections': [conn({ name: 'a', vhost: 'vh1' })] });
    const memory = new Map<string, unknown>();
    const first = await runCollector(connectionsCollector, { api, memory, options: { vhosts: ['gone', 'vh1'] } });
    const second = await runCollector(connectionsCollector, { api, memory, options: { vhosts: ['gone', 'vh1'] } });
    expect(first.value('rabbitmq_connections_by_state', { ...vh1, state: 'running' })).toBe(1);
    expect(first.logs.filter((l) => l.level === 40 && l.vhost === 'gone')).toHaveLength(1);
    expect(second.logs).toHaveLength(0);
  });

  it('with include/exclude patterns reads /api/connections once and keeps the matching vhosts', async () => {
    const api = fakeApi({ '/api/connections': [conn({ name: 'a', vhost: 'vh0' }), conn({ name: 'b', vhost: 'vh1' }), conn({ name: 'c', vhost: 'other' })] });
    const r = await runCollector(connectionsCollector, { api, options: { vhosts: { include: '^vh', exclude: '0$' } } });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/connections']);
    expect(r.family('rabbitmq_connections_by_state').map((s) => s.labels.vhost)).toEqual(['vh1']);
  });

  it('with statistics disabled reads /api/connections and keeps the configured vhosts', async () => {
    const tracked = [
      { name: 'a', vhost: 'vh0', user: 'guest', node: 'rabbit@vm' },
      { name: 'b', vhost: 'vh1', user: 'guest', node: 'rabbit@vm' },
    ];
    const api = fakeApi({ '/api/connections': tracked });
    const r = await runCollector(connectionsCollector, { api, broker: STATS_OFF, options: { vhosts: ['vh1'] } });
    expect(api.calls.map((c) => c.path)).toEqual(['/api/connections']);
    expect(r.parsed).toEqual([
      { name: 'rabbitmq_connections_by_state', labels: { vhost: 'vh1', user: 'guest', protocol: '', node: 'rabbit@vm', state: '' }, value: 1 },
    ]);
  });
});
