import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { inventoryCollector } from '../../../../src/collectors/inventory/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';

function failing(status: number, detail: string): FakeRoute {
  return () => {
    throw new ManagementError('http_status', 'path', `HTTP ${status} (${detail})`, status);
  };
}

// Shapes of a real 3.10.8 with columns= (the broker then leaves out `value`, which may hold passwords).
function routes(): Record<string, FakeRoute> {
  return {
    '/api/users': [{ name: 'guest' }, { name: 'mon' }, { name: 'app' }],
    '/api/users/without-permissions': [{ name: 'mon' }],
    '/api/policies': [
      { vhost: '/', name: 'fed' },
      { vhost: '/', name: 'ha' },
      { vhost: 'vh1', name: 'ttl' },
    ],
    '/api/operator-policies': [],
    '/api/parameters': [
      { vhost: '/', component: 'shovel', name: 'sh1' },
      { vhost: '/', component: 'shovel', name: 'sh-bad' },
      { vhost: '/', component: 'federation-upstream', name: 'up1' },
      { vhost: 'vh1', component: 'shovel', name: 'sh1' },
    ],
    '/api/global-parameters': [{ name: 'internal_cluster_id' }, { name: 'cluster_name' }],
  };
}

describe('inventory collector', () => {
  it('counts users, policies and parameters, per vhost (and component) where they belong to one', async () => {
    const api = fakeApi(routes());
    const r = await runCollector(inventoryCollector, { api });
    expect([...r.samples]).toEqual([
      ['rabbitmq_users', 3],
      ['rabbitmq_users_without_permissions', 1],
      ['rabbitmq_policies{vhost="/"}', 2],
      ['rabbitmq_policies{vhost="vh1"}', 1],
      ['rabbitmq_runtime_parameters{vhost="/",component="shovel"}', 2],
      ['rabbitmq_runtime_parameters{vhost="/",component="federation-upstream"}', 1],
      ['rabbitmq_runtime_parameters{vhost="vh1",component="shovel"}', 1],
      ['rabbitmq_global_runtime_parameters', 2],
    ]);
    // Only names are asked for: parameter values (URIs with passwords) never leave the broker.
    expect(Object.fromEntries(api.calls.map((c) => [c.path, c.query.columns]))).toEqual({
      '/api/users': 'name',
      '/api/users/without-permissions': 'name',
      '/api/policies': 'vhost,name',
      '/api/operator-policies': 'vhost,name',
      '/api/parameters': 'vhost,component,name',
      '/api/global-parameters': 'name',
    });
  });

  it('never puts a parameter value into the output, even when a broker ignores columns=', async () => {
    const all = routes();
    all['/api/parameters'] = [
      { vhost: '/', component: 'shovel', name: 'sh-bad', value: { 'src-uri': 'amqp://nouser:secret@127.0.0.1:1' } },
    ];
    const r = await runCollector(inventoryCollector, { api: fakeApi(all) });
    expect(r.text).not.toContain('secret');
    expect(r.text).not.toContain('sh-bad');
    expect(r.value('rabbitmq_runtime_parameters', { vhost: '/', component: 'shovel' })).toBe(1);
  });

  it('serves totals of 0, and no per-vhost series, for empty lists; drops duplicates', async () => {
    const all = routes();
    all['/api/users/without-permissions'] = [];
    all['/api/global-parameters'] = [];
    all['/api/policies'] = [];
    all['/api/users'] = [{ name: 'guest' }, { name: 'guest' }];
    const r = await runCollector(inventoryCollector, { api: fakeApi(all) });
    expect(r.value('rabbitmq_users')).toBe(1);
    expect(r.value('rabbitmq_users_without_permissions')).toBe(0);
    expect(r.value('rabbitmq_global_runtime_parameters')).toBe(0);
    expect(r.family('rabbitmq_policies')).toEqual([]);
  });

  it('leaves out what a user without the administrator tag may not read (401), warning once per path', async () => {
    const all = routes();
    for (const p of ['/api/users', '/api/users/without-permissions']) all[p] = failing(401, 'not_authorised: Not administrator user');
    for (const p of ['/api/parameters', '/api/global-parameters']) all[p] = failing(401, 'not_authorised: User not authorised to access object');
    all['/api/whoami'] = { name: 'mon', tags: ['monitoring'] };
    const memory = new Map<string, unknown>();
    const api = fakeApi(all);
    const r = await runCollector(inventoryCollector, { api, memory });
    // One credentials check for the four refusals.
    expect(api.calls.filter((c) => c.path === '/api/whoami')).toHaveLength(1);
    expect([...r.samples]).toEqual([
      ['rabbitmq_policies{vhost="/"}', 2],
      ['rabbitmq_policies{vhost="vh1"}', 1],
    ]);
    expect(r.logs.filter((l) => l.level === 40).map((l) => l.path)).toEqual([
      '/api/users',
      '/api/users/without-permissions',
      '/api/parameters',
      '/api/global-parameters',
    ]);
    const again = await runCollector(inventoryCollector, { api: fakeApi(all), memory });
    expect(again.logs).toEqual([]);
  });

  it('fails while every request answers 401 (bad credentials), and counts the users at the next poll after', async () => {
    const all = routes();
    const blip: Record<string, FakeRoute> = { '/api/whoami': failing(401, 'not_authorized: Login failed') };
    for (const p of Object.keys(all)) blip[p] = failing(401, 'not_authorized: Login failed');
    const memory = new Map<string, unknown>();
    await expect(runCollector(inventoryCollector, { api: fakeApi(blip), memory })).rejects.toMatchObject({ status: 401 });
    const next = await runCollector(inventoryCollector, { api: fakeApi(all), memory });
    expect(next.value('rabbitmq_users')).toBe(3);
    expect(next.value('rabbitmq_users_without_permissions')).toBe(1);
    expect(next.value('rabbitmq_global_runtime_parameters')).toBe(2);
  });

  it('treats a 401 of the policies (readable by every management user) as a failure of that request', async () => {
    const all = routes();
    all['/api/policies'] = failing(401, 'not_authorized: Login failed');
    all['/api/users/without-permissions'] = NOT_FOUND;
    const r = await runCollector(inventoryCollector, { api: fakeApi(all) });
    expect(r.family('rabbitmq_policies')).toEqual([]);
    expect(r.family('rabbitmq_users_without_permissions')).toEqual([]);
    expect(r.value('rabbitmq_users')).toBe(3);
    expect(r.logs.filter((l) => l.level === 40).map((l) => [l.part, l.reason])).toEqual([['/api/policies', 'http_401']]);
  });

  it('fails the poll when every request fails', async () => {
    const all: Record<string, FakeRoute> = {};
    for (const p of Object.keys(routes())) all[p] = failing(500, 'boom');
    await expect(runCollector(inventoryCollector, { api: fakeApi(all) })).rejects.toMatchObject({ status: 500 });
  });
});
