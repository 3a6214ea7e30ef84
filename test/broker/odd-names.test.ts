// Names a real broker accepts that the exporter must bound or tell apart. Measured on 3.10.8:
// the HTTP API creates vhosts with names of any length (a queue name over 255 bytes is refused
// with 400), and vhosts whose names are not valid UTF-8 (the bytes ED A0 80 of a lone surrogate,
// or FF), which /api/vhosts then lists as "vh\uFFFD" both: two vhosts, one name.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ManagementClient } from '../../src/client/management-client.js';
import { queuesCollector } from '../../src/collectors/queues.js';
import { vhostsCollector } from '../../src/collectors/vhosts.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { checkMetricsWithPromtool } from './support/broker.js';
import { describeWithBroker } from './support/with-broker.js';

const enc = encodeURIComponent;

describeWithBroker('odd names on a real broker', (broker) => {
  let client: ManagementClient;
  const auth = `Basic ${Buffer.from(`${broker.username}:${broker.password}`).toString('base64')}`;
  /** `path` is sent as given: already percent-encoded. */
  const http = async (method: string, path: string, body?: unknown): Promise<number> => {
    const res = await fetch(`${broker.managementUrl}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const ok = async (method: string, path: string, body?: unknown) => {
    const status = await http(method, path, body);
    if (status >= 300) throw new Error(`${method} ${path}: HTTP ${status}`);
  };
  const longA = `${'v'.repeat(300)}-a`;
  const longB = `${'v'.repeat(300)}-b`;
  const created: string[] = [];
  const createVhost = async (encoded: string) => {
    await ok('PUT', `/api/vhosts/${encoded}`, {});
    created.push(encoded);
    await ok('PUT', `/api/permissions/${encoded}/${enc(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
  };

  beforeAll(async () => {
    client = clientFor(broker);
    for (const [name, queue] of [[longA, 'qa'], [longB, 'qb']] as const) {
      await createVhost(enc(name));
      await ok('PUT', `/api/queues/${enc(name)}/${queue}`, { durable: false });
    }
    await createVhost('vh%ED%A0%80');
    await createVhost('vh%FF');
  });

  afterAll(async () => {
    for (const encoded of created) await http('DELETE', `/api/vhosts/${encoded}`);
    await client?.close();
  });

  it('a queue name over 255 bytes is refused by the broker: long names come from vhosts (and clients)', async () => {
    expect(await http('PUT', `/api/queues/%2F/${'q'.repeat(300)}`, { durable: false })).toBe(400);
  });

  it('300-byte vhost names are served bounded to 256 bytes, still two vhosts, and promtool accepts the exposition', async () => {
    const r = await runCollector(queuesCollector, { api: client, options: { per_vhost: true } });
    const long = r.family('rabbitmq_queue_info').filter((s) => s.labels.vhost!.startsWith('vvv'));
    expect(long.map((s) => s.labels.queue).sort()).toEqual(['qa', 'qb']);
    const vhosts = long.map((s) => s.labels.vhost!);
    expect(new Set(vhosts).size).toBe(2);
    for (const vhost of vhosts) {
      expect(Buffer.byteLength(vhost)).toBe(256);
      expect(vhost).toMatch(/^v{243}~[0-9a-f]{12}$/);
    }
    // The per-vhost requests used the full names: each queue is found in its vhost.
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'true', paged: 'false' })).toBe(1);
    expect(r.dropped).toEqual({ no_name: 0, duplicate: 0 });
    const check = await checkMetricsWithPromtool(r.text);
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });

  it('two vhosts the API lists under one name are one series and one counted duplicate, not a failed poll', async () => {
    const r = await runCollector(vhostsCollector, { api: client });
    const replaced = r.family('rabbitmq_vhost_info').filter((s) => s.labels.vhost === 'vh\uFFFD');
    expect(replaced).toHaveLength(1);
    expect(r.dropped).toEqual({ no_name: 0, duplicate: 1 });
    for (const s of r.family('rabbitmq_vhost_info')) expect(Buffer.byteLength(s.labels.vhost!)).toBeLessThanOrEqual(256);
    const check = await checkMetricsWithPromtool(r.text);
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });
});
