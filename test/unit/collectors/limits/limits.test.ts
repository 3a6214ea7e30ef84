import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { limitsCollector } from '../../../../src/collectors/limits/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { runCollector } from '../../../support/run-collector.js';

const F = 'rabbitmq-3.10.8';

function failing(status: number): FakeRoute {
  return () => {
    throw new ManagementError('http_status', 'path', `HTTP ${status}`, status);
  };
}

// Shapes as a real 3.10.8 answered after `set_vhost_limits -p / '{"max-connections": 100, "max-queues": 50}'`
// and `set_user_limits guest '{"max-connections": 10, "max-channels": 20}'`.
const VHOST_LIMITS = [
  { vhost: '/', value: { 'max-connections': 100, 'max-queues': 50 } },
  { vhost: 'vh1', value: { 'max-connections': -1, 'max-queues': 0 } },
  { vhost: 'vh2', value: { 'max-queues': -5 } },
];
const USER_LIMITS = [
  { user: 'guest', value: { 'max-channels': 20, 'max-connections': 10 } },
  { user: 'app', value: { 'max-channels': -1, 'max-frobs': 3 } },
];

describe('limits collector', () => {
  it('serves nothing when no limit is set (recorded 3.10.8 answers)', async () => {
    const r = await runCollector(limitsCollector, {
      api: fakeApi({ '/api/vhost-limits': loadFixture(`${F}/vhost-limits.json`), '/api/user-limits': loadFixture(`${F}/user-limits.json`) }),
    });
    expect(r.samples.size).toBe(0);
    expect(r.logs.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('serves each limit as given, 0 included, and leaves out negative values (no limit)', async () => {
    const r = await runCollector(limitsCollector, { api: fakeApi({ '/api/vhost-limits': VHOST_LIMITS, '/api/user-limits': USER_LIMITS }) });
    expect([...r.samples]).toEqual([
      ['rabbitmq_vhost_limit{vhost="/",limit="max-connections"}', 100],
      ['rabbitmq_vhost_limit{vhost="/",limit="max-queues"}', 50],
      ['rabbitmq_vhost_limit{vhost="vh1",limit="max-queues"}', 0],
      ['rabbitmq_user_limit{user="guest",limit="max-channels"}', 20],
      ['rabbitmq_user_limit{user="guest",limit="max-connections"}', 10],
      ['rabbitmq_user_limit{user="app",limit="max-frobs"}', 3],
    ]);
  });

  it('has no user limits and no error where /api/user-limits is absent (404)', async () => {
    const r = await runCollector(limitsCollector, { api: fakeApi({ '/api/vhost-limits': VHOST_LIMITS, '/api/user-limits': NOT_FOUND }) });
    expect(r.family('rabbitmq_user_limit')).toEqual([]);
    expect(r.value('rabbitmq_vhost_limit', { vhost: '/', limit: 'max-queues' })).toBe(50);
  });

  it('keeps one list when the other request fails, and fails only when both do', async () => {
    const r = await runCollector(limitsCollector, { api: fakeApi({ '/api/vhost-limits': failing(500), '/api/user-limits': USER_LIMITS }) });
    expect(r.family('rabbitmq_user_limit')).toHaveLength(3);
    expect(r.logs.filter((l) => l.level === 40).map((l) => l.part)).toEqual(['vhost-limits']);
    await expect(
      runCollector(limitsCollector, { api: fakeApi({ '/api/vhost-limits': failing(500), '/api/user-limits': failing(503) }) }),
    ).rejects.toMatchObject({ status: 500 });
    await expect(runCollector(limitsCollector, { api: fakeApi({ '/api/vhost-limits': { not: 'a list' }, '/api/user-limits': failing(500) }) })).rejects.toThrow(
      '/api/vhost-limits did not answer a JSON list',
    );
  });
});
