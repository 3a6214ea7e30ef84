import { describe, expect, it } from 'vitest';
import { connectionsCollector } from '../../../../src/collectors/connections/collector.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { runCollector } from '../../../support/run-collector.js';

type Rec = Record<string, unknown>;
const BY_CLIENT = 'rabbitmq_connections_by_client';

function conn(name: string, client: Rec | undefined, fields: Rec = {}): Rec {
  return { name, vhost: '/', user: 'guest', protocol: 'AMQP 0-9-1', node: 'rabbit@vm', state: 'running', ...(client ? { client_properties: client } : {}), ...fields };
}
const amqplib = (version: string) => ({ product: 'amqplib', version, platform: 'Node.JS v20.20.2', capabilities: { publisher_confirms: true } });
/** The list as the broker answers it: one page when asked page by page, else the bare list. */
const whole = (items: Rec[]) => (query: Record<string, string>) =>
  query.page ? { items, page: 1, page_count: 1, page_size: 500, item_count: items.length, total_count: items.length, filtered_count: items.length } : items;
const labels = (product: string, version: string, platform: string, vhost = '/', user = 'guest') => ({ vhost, user, client_product: product, client_version: version, client_platform: platform });

describe('connections by client (by_client)', () => {
  it('counts the recorded 4.3 connection by its client properties and asks for client_properties', async () => {
    const api = fakeApi({ '/api/connections': loadFixture('rabbitmq-4.3.x/connections-page1.json') });
    const r = await runCollector(connectionsCollector, { api, options: { by_client: true } });
    // The fixture's one connection: amqplib 2.3.1 on Node.JS v20.20.2 (read with python3).
    expect(r.family(BY_CLIENT)).toHaveLength(1);
    expect(r.value(BY_CLIENT, labels('amqplib', '2.3.1', 'Node.JS v20.20.2'))).toBe(1);
    expect(String(api.calls[0]?.query?.columns).split(',')).toContain('client_properties');
  });

  it('is off by default and then does not ask for client_properties', async () => {
    const api = fakeApi({ '/api/connections': whole([conn('a', amqplib('0.10.4'))]) });
    const r = await runCollector(connectionsCollector, { api });
    expect(r.family(BY_CLIENT)).toHaveLength(0);
    expect(String(api.calls[0]?.query?.columns).split(',')).not.toContain('client_properties');
  });

  it('groups per vhost and user, "" for a property not sent, and leaves out records without client properties (statistics disabled)', async () => {
    const api = fakeApi({
      '/api/connections': whole([
        conn('a', amqplib('0.10.4')),
        conn('b', amqplib('0.10.4')),
        conn('c', amqplib('0.10.4'), { vhost: 'v2', user: 'app' }),
        conn('d', { product: 'RabbitMQ' }),
        conn('e', undefined),
      ]),
    });
    const r = await runCollector(connectionsCollector, { api, options: { by_client: true } });
    expect(r.value(BY_CLIENT, labels('amqplib', '0.10.4', 'Node.JS v20.20.2'))).toBe(2);
    expect(r.value(BY_CLIENT, labels('amqplib', '0.10.4', 'Node.JS v20.20.2', 'v2', 'app'))).toBe(1);
    expect(r.value(BY_CLIENT, labels('RabbitMQ', '', ''))).toBe(1);
    expect(r.family(BY_CLIENT).reduce((sum, s) => sum + s.value, 0)).toBe(4);
  });

  it('caps the distinct values of each property: the commonest first, the rest "other"; served values keep their place', async () => {
    const memory = new Map<string, unknown>();
    const poll = (items: Rec[]) => runCollector(connectionsCollector, { api: fakeApi({ '/api/connections': whole(items) }), options: { by_client: true, client_values_max: 2 }, memory });
    const first = await poll([
      conn('a', amqplib('1')),
      conn('b', amqplib('1')),
      conn('c', amqplib('2')),
      conn('d', amqplib('2')),
      conn('e', amqplib('3')),
    ]);
    // Versions 1 and 2 have two connections each, 3 one: it is the one over the cap.
    expect(first.value(BY_CLIENT, labels('amqplib', '1', 'Node.JS v20.20.2'))).toBe(2);
    expect(first.value(BY_CLIENT, labels('amqplib', '2', 'Node.JS v20.20.2'))).toBe(2);
    expect(first.value(BY_CLIENT, labels('amqplib', 'other', 'Node.JS v20.20.2'))).toBe(1);
    expect(first.family(BY_CLIENT)).toHaveLength(3);

    // Version 3 now outnumbers 2, but 2 was served and still has a connection: it keeps its place.
    const second = await poll([conn('c', amqplib('2')), conn('e', amqplib('3')), conn('f', amqplib('3')), conn('g', amqplib('1'))]);
    expect(second.value(BY_CLIENT, labels('amqplib', '2', 'Node.JS v20.20.2'))).toBe(1);
    expect(second.value(BY_CLIENT, labels('amqplib', '1', 'Node.JS v20.20.2'))).toBe(1);
    expect(second.value(BY_CLIENT, labels('amqplib', 'other', 'Node.JS v20.20.2'))).toBe(2);

    // Version 1's connections are gone: its place goes to 3.
    const third = await poll([conn('c', amqplib('2')), conn('e', amqplib('3'))]);
    expect(third.value(BY_CLIENT, labels('amqplib', '3', 'Node.JS v20.20.2'))).toBe(1);
    expect(third.value(BY_CLIENT, labels('amqplib', '2', 'Node.JS v20.20.2'))).toBe(1);
    expect(third.value(BY_CLIENT, labels('amqplib', 'other', 'Node.JS v20.20.2'))).toBeUndefined();
  });

  it('client_values_max 0 counts every connection as "other"', async () => {
    const api = fakeApi({ '/api/connections': whole([conn('a', amqplib('1')), conn('b', { product: 'x', version: 'y', platform: 'z' })]) });
    const r = await runCollector(connectionsCollector, { api, options: { by_client: true, client_values_max: 0 } });
    expect(r.family(BY_CLIENT)).toHaveLength(1);
    expect(r.value(BY_CLIENT, labels('other', 'other', 'other'))).toBe(2);
  });
});
