// Issue 26, signal 7 (who connects): connections counted by the client properties they announce,
// against a real broker: clients with two different client properties, counted as the API lists them.
import * as amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { connectionsCollector } from '../../src/collectors/connections/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { describeWithBroker } from './support/with-broker.js';
import { managementApi } from './support/management-api.js';

type Rec = Record<string, unknown>;
const VHOST = 'signals-clients';
const BY_CLIENT = 'rabbitmq_connections_by_client';
const str = (v: unknown) => (typeof v === 'string' ? v : '');

describeWithBroker('signal 7: connections by client properties', (broker) => {
  const models: amqp.ChannelModel[] = [];
  let client: ManagementClient;
  const api = managementApi(broker);

  beforeAll(async () => {
    client = clientFor(broker);
    await api('PUT', `/api/vhosts/${VHOST}`, {});
    await api('PUT', `/api/permissions/${VHOST}/${broker.username}`, { configure: '.*', write: '.*', read: '.*' });
    const url = `amqp://${broker.username}:${broker.password}@${broker.host}:${broker.amqpPort}/${VHOST}`;
    // Two applications: two connections of "orders" 1.4.0, one of "billing" 0.9.2 on another platform.
    for (const properties of [
      { product: 'orders', version: '1.4.0', platform: 'test-platform-a' },
      { product: 'orders', version: '1.4.0', platform: 'test-platform-a' },
      { product: 'billing', version: '0.9.2', platform: 'test-platform-b' },
    ]) {
      models.push(await amqp.connect(url, { clientProperties: properties }));
    }
  }, 60_000);

  afterAll(async () => {
    for (const m of models) await m.close().catch(() => undefined);
    await api('DELETE', `/api/vhosts/${VHOST}`).catch(() => undefined);
    await client?.close();
  });

  it('counts the open connections per vhost, user, product, version and platform as /api/connections lists them', async () => {
    // The API's own list of the vhost's connections, grouped like the family.
    const expected = await eventually(async () => {
      const records = await api<Rec[]>('GET', `/api/vhosts/${VHOST}/connections`);
      return records.length === 3 && records.every((r) => r.client_properties) ? records : undefined;
    }, 30_000, 'the three connections listed with their client properties');
    const counts = new Map<string, number>();
    for (const r of expected) {
      const p = r.client_properties as Rec;
      const key = JSON.stringify([str(r.vhost), str(r.user), str(p.product), str(p.version), str(p.platform)]);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(2);

    const r = await runCollector(connectionsCollector, { api: client, options: { by_client: true, vhosts: [VHOST] } });
    const served = new Map(r.family(BY_CLIENT).map((s) => [JSON.stringify([s.labels.vhost, s.labels.user, s.labels.client_product, s.labels.client_version, s.labels.client_platform]), s.value]));
    expect(served).toEqual(counts);
    expect(served.get(JSON.stringify([VHOST, broker.username, 'orders', '1.4.0', 'test-platform-a']))).toBe(2);
    expect(served.get(JSON.stringify([VHOST, broker.username, 'billing', '0.9.2', 'test-platform-b']))).toBe(1);
  });

  it('with client_values_max 1 serves the commonest product and counts the other as "other"', async () => {
    const r = await runCollector(connectionsCollector, { api: client, options: { by_client: true, vhosts: [VHOST], client_values_max: 1 } });
    const samples = r.family(BY_CLIENT).map((s) => ({ ...s.labels, value: s.value }));
    expect(samples).toEqual(
      expect.arrayContaining([
        { vhost: VHOST, user: broker.username, client_product: 'orders', client_version: '1.4.0', client_platform: 'test-platform-a', value: 2 },
        { vhost: VHOST, user: broker.username, client_product: 'other', client_version: 'other', client_platform: 'other', value: 1 },
      ]),
    );
    expect(samples).toHaveLength(2);
  });
});
