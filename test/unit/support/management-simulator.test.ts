// The simulated management API itself: answers shaped like the recorded ones, and each fault.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../support/fixtures.js';
import { queueCounts, startSimulator, type Simulator } from '../../support/management-simulator.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ queues: 1234, vhosts: 5, exchanges: 30, bindings: 40, connections: 3, consumers: 7 });
});
afterAll(() => sim.close());

async function get(path: string, auth = true): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const headers = auth ? { authorization: `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}` } : {};
  const res = await request(`${sim.url}${path}`, { headers });
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers };
}

async function json<T = unknown>(path: string): Promise<T> {
  const res = await get(path);
  expect(res.status, `${path}: ${res.text.slice(0, 200)}`).toBe(200);
  return JSON.parse(res.text) as T;
}

type Rec = Record<string, unknown>;

describe('answers', () => {
  it('lists every queue with the recorded fields and the generated counts', async () => {
    const queues = await json<Rec[]>('/api/queues');
    expect(queues).toHaveLength(1234);
    const recorded = (loadFixture<{ items: Rec[] }>('rabbitmq-3.10.8/queues-page1.json').items.find((q) => q.type === 'classic'))!;
    const q7 = queues.find((q) => q.name === 'q7')!;
    expect(Object.keys(q7).sort()).toEqual(Object.keys(recorded).sort());
    expect(q7.vhost).toBe('vh2');
    expect(q7.messages_ready).toBe(queueCounts(7).ready);
    expect(q7.messages).toBe(queueCounts(7).ready + queueCounts(7).unacked);
    expect(queues.filter((q) => q.type === 'quorum')).toHaveLength(Math.ceil(1234 / 50));
  });

  it('per vhost lists partition the whole list; an unknown vhost is 404', async () => {
    let total = 0;
    for (const vhost of await json<Rec[]>('/api/vhosts')) {
      const list = await json<Rec[]>(`/api/queues/${encodeURIComponent(vhost.name as string)}`);
      expect(list.every((q) => q.vhost === vhost.name)).toBe(true);
      total += list.length;
    }
    expect(total).toBe(1234);
    expect((await get('/api/queues/nope')).status).toBe(404);
  });

  it('columns= keeps only the asked fields, nested ones with their nesting', async () => {
    const queues = await json<Rec[]>('/api/queues?columns=name,vhost,messages,message_stats.publish');
    expect(Object.keys(queues[0]!).sort()).toEqual(['message_stats', 'messages', 'name', 'vhost']);
    expect(Object.keys(queues[0]!.message_stats as Rec)).toEqual(['publish']);
  });

  it('disable_stats&enable_queue_totals answers the recorded field set', async () => {
    const queues = await json<Rec[]>('/api/queues?disable_stats=true&enable_queue_totals=true');
    const recorded = loadFixture<{ items: Rec[] }>('rabbitmq-3.10.8/queues-disable-stats-page1.json').items;
    const allowed = new Set(recorded.flatMap((q) => Object.keys(q)));
    for (const q of queues) for (const key of Object.keys(q)) expect(allowed.has(key), key).toBe(true);
    expect(queues[5]!.messages).toBe(queueCounts(5).ready + queueCounts(5).unacked);
    expect(queues[5]!.message_stats).toBeUndefined();
  });

  it('pages carry the envelope; past the end and over 500 are HTTP 400', async () => {
    const page = await json<Rec>('/api/queues?page=3&page_size=500');
    expect(page).toMatchObject({ page: 3, page_count: 3, page_size: 500, total_count: 1234, filtered_count: 1234, item_count: 234 });
    expect(((page.items as Rec[])[0]!).name).toBe('q1000');
    expect((await get('/api/queues?page=4&page_size=500')).status).toBe(400);
    expect((await get('/api/queues?page=1&page_size=501')).status).toBe(400);
    const filtered = await json<Rec>('/api/queues?page=1&page_size=100&name=%5Eq12%24&use_regex=true');
    expect(filtered).toMatchObject({ filtered_count: 1, total_count: 1234 });
  });

  it('/api/queues/detailed is absent on 3.10 and answers from 3.13 on', async () => {
    expect((await get('/api/queues/detailed')).status).toBe(404);
    const newer = await startSimulator({ queues: 3, managementVersion: '3.13.7' });
    try {
      const res = await request(`${newer.url}/api/queues/detailed`, { headers: { authorization: `Basic ${Buffer.from(`${newer.username}:${newer.password}`).toString('base64')}` } });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toHaveLength(3);
    } finally {
      await newer.close();
    }
  });

  it('the other paths answer from the recordings, sized as asked', async () => {
    expect((await json<Rec>('/api/overview')).object_totals).toMatchObject({ queues: 1234, exchanges: 30, connections: 3 });
    expect(await json<Rec[]>('/api/nodes')).toHaveLength(1);
    expect(await json<Rec>('/api/nodes/rabbit@vm?memory=true')).toHaveProperty('memory');
    expect(await json<Rec[]>('/api/exchanges')).toHaveLength(30);
    expect(await json<Rec[]>('/api/bindings')).toHaveLength(40);
    expect(await json<Rec[]>('/api/connections')).toHaveLength(3);
    expect(await json<Rec[]>('/api/channels')).toHaveLength(6);
    expect(await json<Rec[]>('/api/consumers')).toHaveLength(7);
    expect(await json<Rec>('/api/health/checks/alarms')).toEqual({ status: 'ok' });
    expect((await get('/api/health/checks/port-listener/9999')).status).toBe(503);
    expect((await get('/api/definitions')).status).toBe(404);
  });

  it('a wrong password is the recorded 401', async () => {
    const res = await get('/api/overview', false);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual(loadFixture('rabbitmq-3.10.8/unauthorized.json'));
  });

  it('the statistics-disabled variant withholds counts unless enable_queue_totals', async () => {
    const off = await startSimulator({ queues: 10, variant: 'stats-disabled' });
    try {
      const auth = { authorization: `Basic ${Buffer.from(`${off.username}:${off.password}`).toString('base64')}` };
      const plain = (await (await request(`${off.url}/api/queues`, { headers: auth })).body.json()) as Rec[];
      expect(plain[1]!.messages).toBeUndefined();
      const totals = (await (await request(`${off.url}/api/queues?disable_stats=true&enable_queue_totals=true`, { headers: auth })).body.json()) as Rec[];
      expect(totals[1]!.messages).toBe(queueCounts(1).ready + queueCounts(1).unacked);
      const overview = (await (await request(`${off.url}/api/overview`, { headers: auth })).body.json()) as Rec;
      expect(overview.message_stats).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});

describe('faults', () => {
  it('5xx and 401 on one path only', async () => {
    sim.fault('/api/exchanges', { kind: 'status', status: 503 });
    sim.fault(/^\/api\/bindings/, { kind: 'unauthorized' });
    try {
      expect((await get('/api/exchanges')).status).toBe(503);
      expect((await get('/api/bindings/vh1')).status).toBe(401);
      expect((await get('/api/queues/vh1')).status).toBe(200);
    } finally {
      sim.fault('/api/exchanges', undefined);
      sim.fault(/^\/api\/bindings/, undefined);
    }
    expect((await get('/api/exchanges')).status).toBe(200);
  });

  it('delay answers normally, later', async () => {
    sim.fault('/api/overview', { kind: 'delay', ms: 30 });
    try {
      expect((await json<Rec>('/api/overview')).management_version).toBe('3.10.8');
    } finally {
      sim.fault('/api/overview', undefined);
    }
  });

  it('reset before the answer, and after part of the body', async () => {
    sim.fault('/api/queues', { kind: 'reset' });
    await expect(get('/api/queues')).rejects.toThrow();
    sim.fault('/api/queues', { kind: 'reset', afterBytes: 1000 });
    await expect(get('/api/queues')).rejects.toThrow();
    sim.fault('/api/queues', undefined);
  });

  it('malformed is a 200 that is not JSON; truncated closes short of its content-length', async () => {
    sim.fault('/api/queues', { kind: 'malformed' });
    const malformed = await get('/api/queues');
    expect(malformed.status).toBe(200);
    expect(() => JSON.parse(malformed.text)).toThrow(SyntaxError);
    sim.fault('/api/queues', { kind: 'truncated' });
    await expect(get('/api/queues')).rejects.toThrow();
    sim.fault('/api/queues', undefined);
  });

  it('huge is valid JSON of exactly the asked size, with or without content-length', async () => {
    for (const contentLength of [true, false]) {
      sim.fault('/api/queues', { kind: 'huge', bytes: 3_000_001, contentLength });
      const res = await get('/api/queues');
      expect(Buffer.byteLength(res.text)).toBe(3_000_001);
      expect(res.headers['content-length']).toBe(contentLength ? '3000001' : undefined);
      expect(Array.isArray(JSON.parse(res.text))).toBe(true);
    }
    sim.fault('/api/queues', undefined);
  });

  it('drip sends the normal answer in pieces', async () => {
    const normal = (await get('/api/vhosts')).text;
    sim.fault('/api/vhosts', { kind: 'drip', chunkBytes: 100, everyMs: 1 });
    try {
      expect((await get('/api/vhosts')).text).toBe(normal);
    } finally {
      sim.fault('/api/vhosts', undefined);
    }
  });

  it('wrong types: numbers as strings, nulls, nested garbage, names with newlines, 1 MB strings', async () => {
    const path = '/api/queues/vh1';
    sim.fault(path, { kind: 'wrong_types', what: ['numbers_as_strings', 'newline_names', 'megabyte_strings'] });
    const strings = await json<Rec[]>(path);
    expect(strings[1]!.messages).toBe(String(queueCounts(6).ready + queueCounts(6).unacked));
    expect(strings[1]!.name).toBe('q6\nrabbitmq_injected 1\n');
    expect((strings[0]!.policy as string).length).toBe(1 << 20);
    expect((strings[0]!.arguments as Record<string, string>)['x-simulated']).toHaveLength(1 << 20);
    sim.fault(path, { kind: 'wrong_types', what: ['nulls'] });
    expect((await json<Rec[]>(path))[1]!.messages).toBeNull();
    sim.fault(path, { kind: 'wrong_types', what: ['nested_garbage'] });
    expect((await json<Rec[]>(path))[1]!.messages).toMatchObject({ garbage: [1, { deeper: 'x' }] });
    sim.fault(path, undefined);
  });
});
