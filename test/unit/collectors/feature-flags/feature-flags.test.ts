import { describe, expect, it } from 'vitest';
import type { BrokerInfo } from '../../../../src/broker/broker-info.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { featureFlagsCollector } from '../../../../src/collectors/feature-flags/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

const F = 'rabbitmq-3.10.8';
const BROKER_4_1: BrokerInfo = { ...BROKER_3_10_8, managementVersion: '4.1.4', rabbitmqVersion: '4.1.4', productVersion: '4.1.4', variant: 'B' };

function failing(status: number, detail: string): FakeRoute {
  return () => {
    throw new ManagementError('http_status', 'path', `HTTP ${status} (${detail})`, status);
  };
}

describe('feature_flags collector', () => {
  it('serves 1 for each enabled flag of the recorded 3.10.8 answer and does not ask for deprecated features', async () => {
    const flags = loadFixture<{ name: string; state: string; stability: string }[]>(`${F}/feature-flags.json`);
    const api = fakeApi({ '/api/feature-flags': flags });
    const r = await runCollector(featureFlagsCollector, { api });
    expect([...r.samples]).toEqual([
      ['rabbitmq_feature_flag_enabled{name="classic_mirrored_queue_version",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="drop_unroutable_metric",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="empty_basic_get_metric",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="implicit_default_bindings",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="maintenance_mode_status",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="quorum_queue",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="stream_queue",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="user_limits",stability="stable"}', 1],
      ['rabbitmq_feature_flag_enabled{name="virtual_host_metadata",stability="stable"}', 1],
    ]);
    expect(flags).toHaveLength(9);
    expect(api.calls).toEqual([{ path: '/api/feature-flags', query: { columns: 'name,state,stability' }, optional: false }]);
  });

  it('serves 0 for disabled, state_changing and unavailable flags', async () => {
    const flags = [
      { name: 'a', state: 'enabled', stability: 'required' },
      { name: 'b', state: 'disabled', stability: 'experimental' },
      { name: 'c', state: 'state_changing', stability: 'stable' },
      { name: 'd', state: 'unavailable', stability: 'stable' },
    ];
    const r = await runCollector(featureFlagsCollector, { api: fakeApi({ '/api/feature-flags': flags }) });
    expect([...r.samples.values()]).toEqual([1, 0, 0, 0]);
    expect(r.value('rabbitmq_feature_flag_enabled', { name: 'b', stability: 'experimental' })).toBe(0);
  });

  it('serves the deprecated features in use on 3.13+ with their phase', async () => {
    const r = await runCollector(featureFlagsCollector, {
      broker: BROKER_4_1,
      api: fakeApi({
        '/api/feature-flags': [{ name: 'khepri_db', state: 'disabled', stability: 'stable' }],
        '/api/deprecated-features/used': [
          { name: 'transient_nonexcl_queues', deprecation_phase: 'permitted_by_default', desc: 'x', doc_url: '', provided_by: 'rabbit' },
          { name: 'management_metrics_collection', deprecation_phase: 'permitted_by_default', desc: 'y', doc_url: '', provided_by: 'rabbitmq_management_agent' },
        ],
      }),
    });
    expect([...r.samples]).toEqual([
      ['rabbitmq_feature_flag_enabled{name="khepri_db",stability="stable"}', 0],
      ['rabbitmq_deprecated_feature_in_use{name="transient_nonexcl_queues",phase="permitted_by_default"}', 1],
      ['rabbitmq_deprecated_feature_in_use{name="management_metrics_collection",phase="permitted_by_default"}', 1],
    ]);
  });

  it('has no deprecated features and no error where the path is absent (404, as the recorded 3.10.8 answer)', async () => {
    const r = await runCollector(featureFlagsCollector, {
      broker: BROKER_4_1,
      api: fakeApi({ '/api/feature-flags': loadFixture(`${F}/feature-flags.json`), '/api/deprecated-features/used': NOT_FOUND }),
    });
    expect(r.family('rabbitmq_deprecated_feature_in_use')).toEqual([]);
    expect(r.family('rabbitmq_feature_flag_enabled')).toHaveLength(9);
  });

  it('warns once and serves no flags when the user lacks the administrator tag (401 while /api/whoami answers), without failing', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/feature-flags': failing(401, 'not_authorised: Not administrator user'), '/api/whoami': { name: 'mon', tags: ['monitoring'] } });
    const r = await runCollector(featureFlagsCollector, { api, memory });
    expect(r.samples.size).toBe(0);
    expect(r.logs.filter((l) => l.level === 40).map((l) => l.cause)).toEqual(['GET path: HTTP 401 (not_authorised: Not administrator user)']);
    const again = await runCollector(featureFlagsCollector, { api, memory });
    expect(again.logs).toEqual([]);
    expect(api.calls.map((c) => c.path)).toEqual(['/api/feature-flags', '/api/whoami', '/api/feature-flags', '/api/whoami']);
  });

  it('fails while every request answers 401 (bad credentials), and serves the flags at the next poll after', async () => {
    const flags = loadFixture(`${F}/feature-flags.json`);
    const routes: Record<string, FakeRoute> = {
      '/api/feature-flags': failing(401, 'not_authorized: Login failed'),
      '/api/whoami': failing(401, 'not_authorized: Login failed'),
    };
    const api = fakeApi(routes);
    const memory = new Map<string, unknown>();
    await expect(runCollector(featureFlagsCollector, { api, memory })).rejects.toMatchObject({ status: 401 });
    routes['/api/feature-flags'] = flags;
    routes['/api/whoami'] = loadFixture(`${F}/whoami.json`);
    const next = await runCollector(featureFlagsCollector, { api, memory });
    expect(next.family('rabbitmq_feature_flag_enabled')).toHaveLength(9);
  });

  it('serves the flags at the first poll after the administrator tag is given back', async () => {
    const routes: Record<string, FakeRoute> = {
      '/api/feature-flags': failing(401, 'not_authorised: Not administrator user'),
      '/api/whoami': { name: 'mon', tags: ['monitoring'] },
    };
    const api = fakeApi(routes);
    const memory = new Map<string, unknown>();
    expect((await runCollector(featureFlagsCollector, { api, memory })).samples.size).toBe(0);
    routes['/api/feature-flags'] = loadFixture(`${F}/feature-flags.json`);
    const next = await runCollector(featureFlagsCollector, { api, memory });
    expect(next.family('rabbitmq_feature_flag_enabled')).toHaveLength(9);
    expect(next.logs.map((l) => [l.level, l.msg])).toEqual([[30, 'the path answers again']]);
  });

  it('keeps the flags when the deprecated features fail, and fails when both do', async () => {
    const flags = [{ name: 'a', state: 'enabled', stability: 'stable' }];
    const r = await runCollector(featureFlagsCollector, {
      broker: BROKER_4_1,
      api: fakeApi({ '/api/feature-flags': flags, '/api/deprecated-features/used': failing(500, 'boom') }),
    });
    expect(r.value('rabbitmq_feature_flag_enabled', { name: 'a', stability: 'stable' })).toBe(1);
    expect(r.logs.filter((l) => l.level === 40).map((l) => l.part)).toEqual(['deprecated-features']);
    await expect(
      runCollector(featureFlagsCollector, {
        broker: BROKER_4_1,
        api: fakeApi({ '/api/feature-flags': failing(500, 'boom'), '/api/deprecated-features/used': failing(500, 'boom') }),
      }),
    ).rejects.toMatchObject({ status: 500 });
  });
});
