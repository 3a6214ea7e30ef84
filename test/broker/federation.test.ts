// The federation collector against the private RabbitMQ node (test/broker/support; federation plugins enabled).
import { afterAll, expect, it } from 'vitest';
import { federationCollector } from '../../src/collectors/federation/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { describeWithBroker } from './support/with-broker.js';
import { managementRequest } from './support/management-api.js';
import { kbuddeNames } from '../../src/profiles/kbudde/names.js';

describeWithBroker('federation collector on a real broker', (broker) => {
  const client = clientFor(broker);
  const request = managementRequest(broker);
  const put = (path: string, body: unknown) => request('PUT', path, body);
  const del = (path: string) => request('DELETE', path);

  afterAll(async () => {
    await broker.ctl(['clear_policy', 'hf-fed']).catch(() => undefined);
    for (const u of ['hf-up', 'hf-up-bad']) await broker.ctl(['clear_parameter', 'federation-upstream', u]).catch(() => undefined);
    // The links leave an upstream queue and exchange ("federation: hf-up.x -> ...") behind: remove them too.
    for (const kind of ['queues', 'exchanges']) {
      const names = (await client.getJson<{ name: string }[]>(`/api/${kind}/%2F`, { columns: 'name' })).map((o) => o.name);
      for (const name of names.filter((n) => /hf-up\.x|hf-fed\.x/.test(n))) {
        await del(`/api/${kind}/%2F/${encodeURIComponent(name)}`).catch(() => undefined);
      }
    }
    await client.close();
  });

  it('serves a running link to the broker itself as up, one to a closed port as error, with no URI anywhere', async () => {
    await broker.ctl(['set_parameter', 'federation-upstream', 'hf-up', JSON.stringify({ uri: `amqp://guest:guest@127.0.0.1:${broker.amqpPort}`, exchange: 'hf-up.x' })]);
    // Port 1: nothing listens; the password must never appear in what the exporter serves.
    await broker.ctl(['set_parameter', 'federation-upstream', 'hf-up-bad', JSON.stringify({ uri: 'amqp://nouser:hf-secret@127.0.0.1:1' })]);
    await broker.ctl(['set_policy', 'hf-fed', '^hf-fed\\.', '{"federation-upstream-set":"all"}', '--apply-to', 'exchanges']);
    for (const x of ['hf-up.x', 'hf-fed.x']) expect((await put(`/api/exchanges/%2F/${x}`, { type: 'fanout' })).status).toBeLessThan(300);
    const link = (upstream: string) => ({ vhost: '/', upstream, exchange: 'hf-fed.x', queue: '' });
    const r = await eventually(
      async () => {
        const run = await runCollector(federationCollector, { api: client });
        const good = run.value('rabbitmq_federation_link_up', link('hf-up'));
        const bad = run.value('rabbitmq_federation_link_state', { ...link('hf-up-bad'), state: 'error' });
        return good === 1 && bad === 1 ? run : undefined;
      },
      30_000,
      'hf-up running and hf-up-bad in error',
    );
    expect(r.value('rabbitmq_federation_link_up', link('hf-up-bad'))).toBe(0);
    expect(r.value('rabbitmq_federation_link_info', { ...link('hf-up'), type: 'exchange', upstream_exchange: 'hf-up.x', upstream_queue: '', node: broker.nodeName })).toBe(1);
    expect(r.value('rabbitmq_federation_links', { status: 'running' })).toBeGreaterThanOrEqual(1);
    expect(r.text).not.toContain('hf-secret');
    expect(r.text).not.toContain('amqp://');

    // kbudde's profile: rabbitmq_federation_state, value 1, the link's status as a label, no upstream.
    const profile = { names: kbuddeNames, clusterName: 'hf-cluster', node: broker.nodeName } as const;
    const state = { cluster: 'hf-cluster', vhost: '/', node: broker.nodeName, queue: '', exchange: 'hf-fed.x', self: '1' };
    const k = await eventually(
      async () => {
        const run = await runCollector(federationCollector, { api: client, profile });
        return run.value('rabbitmq_federation_state', { ...state, status: 'running' }) === 1 ? run : undefined;
      },
      30_000,
      'rabbitmq_federation_state of hf-up',
    );
    const series = k.family('rabbitmq_federation_state');
    // hf-up and hf-up-bad feed the same exchange: one series per status among them, as in kbudde.
    expect(new Set(series.map((s) => s.labels.status)).size).toBe(series.length);
    for (const s of series) expect(Object.keys(s.labels)).toEqual(['cluster', 'vhost', 'node', 'queue', 'exchange', 'self', 'status']);
    expect(k.text).not.toMatch(/upstream|rabbitmq_federation_link_/);
    expect(k.text).not.toContain('hf-secret');
  });
});
