import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { fetchWholeOrPaged } from '../../../../src/collectors/kit/paging.js';
import { fakeApi } from '../../../support/fake-broker-api.js';

interface Item {
  name: string;
  n?: number;
}
const key = (i: Item) => i.name;
const items = (...names: string[]): Item[] => names.map((name) => ({ name }));

function pages(list: () => Item[]) {
  return (q: Record<string, string>) => {
    const all = list();
    const size = Number(q.page_size);
    const page = Number(q.page);
    const pageCount = Math.ceil(all.length / size);
    if (page > Math.max(1, pageCount)) throw new ManagementError('http_status', '/api/x', 'HTTP 400 (bad_request: page_out_of_range)', 400);
    return { items: all.slice((page - 1) * size, page * size), page, page_count: pageCount, page_size: size };
  };
}

describe('fetchWholeOrPaged', () => {
  it('page size 0: one request, the query passed as is, duplicates and non-objects dropped', async () => {
    const api = fakeApi({ '/api/x': [...items('a', 'b', 'a'), null, 7] });
    const got = await fetchWholeOrPaged<Item>(api, '/api/x', { columns: 'name' }, { pageSize: 0, key });
    expect(got).toEqual(items('a', 'b'));
    expect(api.calls).toEqual([{ path: '/api/x', query: { columns: 'name' }, optional: false }]);
  });

  it('page size 0 accepts a page object answer, rejects anything else', async () => {
    expect(await fetchWholeOrPaged<Item>(fakeApi({ '/api/x': { items: items('a') } }), '/api/x', {}, { pageSize: 0, key })).toEqual(items('a'));
    await expect(fetchWholeOrPaged<Item>(fakeApi({ '/api/x': { error: 'x' } }), '/api/x', {}, { pageSize: 0, key })).rejects.toThrow('/api/x did not answer a JSON list');
    await expect(fetchWholeOrPaged<Item>(fakeApi({ '/api/x': 'text' }), '/api/x', {}, { pageSize: 0, key })).rejects.toThrow('/api/x did not answer a JSON list');
  });

  it('walks page_count pages with page and page_size next to the query', async () => {
    const all = items('a', 'b', 'c', 'd', 'e');
    const api = fakeApi({ '/api/x': pages(() => all) });
    expect(await fetchWholeOrPaged<Item>(api, '/api/x', { columns: 'name' }, { pageSize: 2, key })).toEqual(all);
    expect(api.calls.map((c) => c.query)).toEqual([
      { columns: 'name', page: '1', page_size: '2' },
      { columns: 'name', page: '2', page_size: '2' },
      { columns: 'name', page: '3', page_size: '2' },
    ]);
  });

  it('an empty list (page_count 0) is one request', async () => {
    const api = fakeApi({ '/api/x': { items: [], page: 1, page_count: 0 } });
    expect(await fetchWholeOrPaged<Item>(api, '/api/x', {}, { pageSize: 100, key })).toEqual([]);
    expect(api.calls).toHaveLength(1);
  });

  it('an item that moved to the next page between requests is kept once (the first seen)', async () => {
    let list = [{ name: 'a', n: 1 }, { name: 'b', n: 1 }, { name: 'c', n: 1 }, { name: 'd', n: 1 }];
    const route = pages(() => list);
    const api = fakeApi({
      '/api/x': (q: Record<string, string>) => {
        const answer = route(q);
        if (q.page === '1') list = [{ name: '0', n: 2 }, ...list.map((i) => ({ ...i, n: 2 }))]; // a new item sorts first
        return answer;
      },
    });
    const got = await fetchWholeOrPaged<Item>(api, '/api/x', {}, { pageSize: 2, key });
    // page 1 of [a b c d]: a b; then 0 is created: page 2 of [0 a b c d] is b c, page 3 is d.
    // b is seen twice (kept once, as first seen); 0 is missed in this poll.
    expect(got.map((i) => i.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(api.calls).toHaveLength(3);
    expect(got.find((i) => i.name === 'b')?.n).toBe(1);
  });

  it('the list shrinking past the announced page count (HTTP 400) ends the walk', async () => {
    let list = items('a', 'b', 'c', 'd', 'e');
    const route = pages(() => list);
    const api = fakeApi({
      '/api/x': (q: Record<string, string>) => {
        const answer = route(q);
        list = list.slice(0, 2);
        return answer;
      },
    });
    expect((await fetchWholeOrPaged<Item>(api, '/api/x', {}, { pageSize: 2, key })).map((i) => i.name)).toEqual(['a', 'b']);
    expect(api.calls).toHaveLength(2);
  });

  it('HTTP 400 on the first page, and other errors, fail', async () => {
    const bad = fakeApi({ '/api/x': () => { throw new ManagementError('http_status', '/api/x', 'HTTP 400', 400); } });
    await expect(fetchWholeOrPaged<Item>(bad, '/api/x', {}, { pageSize: 2, key })).rejects.toBeInstanceOf(ManagementError);
    let n = 0;
    const later = fakeApi({
      '/api/x': (q: Record<string, string>) => {
        if (++n === 2) throw new ManagementError('http_status', '/api/x', 'HTTP 500', 500);
        return pages(() => items('a', 'b', 'c'))(q);
      },
    });
    await expect(fetchWholeOrPaged<Item>(later, '/api/x', {}, { pageSize: 2, key })).rejects.toThrow('HTTP 500');
  });

  it('a page without items fails with the path and page number', async () => {
    const api = fakeApi({ '/api/x': (q: Record<string, string>) => (q.page === '1' ? { items: items('a'), page_count: 2 } : { page: 2 }) });
    await expect(fetchWholeOrPaged<Item>(api, '/api/x', {}, { pageSize: 1, key })).rejects.toThrow('/api/x page 2 did not answer a page of items');
    // A path that ignores paging answers the plain list: that is the whole list.
    await expect(fetchWholeOrPaged<Item>(fakeApi({ '/api/x': items('a') }), '/api/x', {}, { pageSize: 1, key })).resolves.toEqual(items('a'));
  });
});
