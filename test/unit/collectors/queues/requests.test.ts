// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { describe, expect, it } from 'vitest';
import { type FakeRoute, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { type Q, FULL, VH1, BACKLOG, listRoute, run, series } from './queue-fixtures.js';

// ---------------------------------------------------------------------------------------------

describe('queues: one request per vhost', () => {
  const ODD = { ...FULL[1]!, name: 'odd-vhost-queue', vhost: 'a b%' };
  const routes = (): Record<string, FakeRoute> => ({
    '/api/vhosts': [{ name: '/' }, { name: 'vh1' }, { name: 'a b%' }, { name: 'gone' }],
    '/api/queues/%2F': listRoute([BACKLOG]),
    '/api/queues/vh1': listRoute(VH1),
    '/api/queues/a%20b%25': listRoute([ODD]),
    '/api/queues/gone': NOT_FOUND, // deleted between the listing and the request
  });

  it('auto with several vhosts asks each (URL-encoded); a listed vhost that 404s has no series and is reported', async () => {
    const { api, result } = run(routes());
    const r = await result;
    // /api/whoami: the user's name for the log line (a 404 may be a vhost the user may not read, on 4.3).
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/%2F', '/api/queues/vh1', '/api/queues/a%20b%25', '/api/queues/gone', '/api/whoami']);
    expect(r.family('rabbitmq_exporter_collector_vhost_failed').map((s) => s.labels)).toEqual([{ collector: 'queues', vhost: 'gone', reason: 'http_404' }]);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'fx.backlog' })).toBe(20);
    expect(r.value('rabbitmq_queue_messages', { vhost: 'a b%', queue: 'odd-vhost-queue' })).toBe(0);
    expect(r.value('rabbitmq_queue_messages', { vhost: 'vh1', queue: 'q11' })).toBe(4);
    expect(r.value('rabbitmq_queue_messages_published_total', { vhost: 'vh1', queue: 'q111' })).toBe(3175);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh1', type: 'classic' })).toBe(100);
    expect(r.value('rabbitmq_vhost_queue_consumers', { vhost: 'vh1', type: 'classic' })).toBe(2);
    expect(r.value('rabbitmq_vhost_queue_process_memory_bytes', { vhost: 'vh1', type: 'classic' })).toBe(1691424);
    expect(r.family('rabbitmq_vhost_queues').map((s) => s.labels.vhost).sort()).toEqual(['/', 'a b%', 'vh1']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'true', paged: 'false' })).toBe(1);
  });

  it('vhost include/exclude filters skip the requests', async () => {
    const excl = run(routes(), { vhosts: { exclude: '^(vh1|gone)$' } });
    const r = await excl.result;
    expect(excl.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/%2F', '/api/queues/a%20b%25']);
    expect(series(r, 'rabbitmq_vhost_queues')).toBe(2);

    const incl = run(routes(), { vhosts: { include: '^a ' } });
    await incl.result;
    expect(incl.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/a%20b%25']);
  });

  // Issue 17: with 20,000 vhosts the collector sent 20,000 requests, froze the event loop about
  // 66 s per poll and never succeeded. Above per_vhost_max it asks for the whole list once.
  it.each([20_000, 100_000])('with %d vhosts makes one request for all queues and filters them itself', async (count) => {
    const vhosts = Array.from({ length: count }, (_, i) => ({ name: `vh${i}` }));
    const queues = [{ ...BACKLOG, vhost: 'vh7' }, { ...BACKLOG, vhost: 'other' }];
    const { api, result } = run({ '/api/vhosts': vhosts, '/api/queues': listRoute(queues) }, { vhosts: { include: '^vh' } });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
    expect(r.family('rabbitmq_queue_messages').map((s) => s.labels.vhost)).toEqual(['vh7']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
  });

  it('asks each vhost once however often the list names it, up to per_vhost_max', async () => {
    const vhosts = [{ name: 'vh1' }, { name: '/' }, { name: 'vh1' }, { name: '/' }];
    const { api, result } = run({ '/api/vhosts': vhosts, '/api/queues/%2F': listRoute([BACKLOG]), '/api/queues/vh1': listRoute(VH1) });
    await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues/vh1', '/api/queues/%2F']);
    const capped = run({ '/api/vhosts': vhosts, '/api/queues': listRoute([BACKLOG, ...VH1]) }, { per_vhost_max: 1 });
    await capped.result;
    expect(capped.api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
  });

  it('auto with a single vhost makes one request for all queues', async () => {
    const { api, result } = run({ '/api/vhosts': [{ name: '/' }], '/api/queues': listRoute([BACKLOG]) });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/vhosts', '/api/queues']);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'false' })).toBe(1);
  });

  it('per_vhost false filters vhosts after one request', async () => {
    const { api, result } = run({ '/api/queues': listRoute([...FULL, ...VH1]) }, { per_vhost: false, vhosts: { include: '^vh1$' } });
    const r = await result;
    expect(api.calls.map((c) => c.path)).toEqual(['/api/queues']);
    expect(series(r, 'rabbitmq_queue_messages')).toBe(100);
    expect(r.family('rabbitmq_vhost_queues').map((s) => s.labels.vhost)).toEqual(['vh1']);
  });
});

describe('queues: paging', () => {
  it('page_size 100 walks page_count pages and keeps a queue that moved onto the next page once', async () => {
    const all = [...FULL, ...VH1]; // 200 queues: 2 pages of 100
    const whole = listRoute(all);
    const route = (query: Record<string, string>) => {
      const answer = whole(query) as { items: Q[] };
      // Between the two requests a queue sorted before page 2 went away and came back: the last
      // queue of page 1 is also the first of page 2.
      if (query.page === '2') answer.items = [all[99]!, ...answer.items];
      return answer;
    };
    const { api, result } = run({ '/api/queues': route }, { per_vhost: false, page_size: 100 });
    const r = await result;
    expect(api.calls.map((c) => [c.query.page, c.query.page_size])).toEqual([['1', '100'], ['2', '100']]);
    expect(series(r, 'rabbitmq_queue_messages')).toBe(200); // a duplicate would have thrown in the parser
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh0', type: 'classic' })).toBe(79);
    expect(r.value('rabbitmq_vhost_queues', { vhost: 'vh1', type: 'classic' })).toBe(100);
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'true' })).toBe(1);
  });

  it('the list shrinking between pages (HTTP 400 past the end) keeps what was fetched', async () => {
    let served = [...FULL, ...VH1];
    const route = (query: Record<string, string>) => {
      const answer = listRoute(served)(query);
      served = served.slice(0, 100); // after page 1 half of the queues are deleted
      return answer;
    };
    const r = await run({ '/api/queues': route }, { per_vhost: false, page_size: 100 }).result;
    expect(series(r, 'rabbitmq_queue_messages')).toBe(100);
  });

  it('filter_on_broker sends name and use_regex, with paging', async () => {
    const { api, result } = run({ '/api/queues': listRoute(FULL) }, { per_vhost: false, filter_on_broker: true, queues: { include: '^q1\\d$' } });
    const r = await result;
    expect(api.calls).toHaveLength(1);
    expect(api.calls[0]!.query).toMatchObject({ name: '^q1\\d$', use_regex: 'true', page: '1', page_size: '500' });
    expect(r.family('rabbitmq_queue_messages').map((s) => s.labels.queue).sort()).toEqual(['q10', 'q11', 'q12', 'q13', 'q14', 'q15', 'q16', 'q17', 'q18', 'q19'].filter((n) => FULL.some((q) => q.name === n)));
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'false', paged: 'true' })).toBe(1);
  });
});
