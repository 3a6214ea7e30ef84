// Issue 17: a 12 s 401 blip hid the feature-flag and user series for 10 polls while the collectors
// reported success. On the private node: a user whose tag is taken away and given back, and whose
// password changes under the exporter (every request 401) and changes back.
// /api/users needs the administrator tag on every version; /api/feature-flags only before 3.13
// (rabbit_mgmt_wm_feature_flags.erl: is_authorized_admin until 3.12, is_authorized from 3.13.0,
// for the UI's feature-flag banner): 3.10.8 answers a monitoring user 401, 4.0.5 and 4.3.6 200.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brokerInfoFromOverview, type BrokerInfo } from '../../src/broker/broker-info.js';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { featureFlagsCollector } from '../../src/collectors/feature-flags/collector.js';
import { inventoryCollector } from '../../src/collectors/inventory/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { atLeast } from '../harness/broker/versions.js';
import { describeWithBroker } from './support/with-broker.js';

const USER = 'hf-refusals';
const PASSWORD = 'hf-refusals-pw';

describeWithBroker('refused and failed answers on a real broker', (broker) => {
  let client: ManagementClient;
  // Read once: runCollector would otherwise ask /api/overview first, which fails with the password.
  let info: BrokerInfo;
  const flagMemory = new Map<string, unknown>();
  const inventoryMemory = new Map<string, unknown>();
  const poll = async () => ({
    flags: await runCollector(featureFlagsCollector, { api: client, broker: info, memory: flagMemory }),
    inventory: await runCollector(inventoryCollector, { api: client, broker: info, memory: inventoryMemory }),
  });
  const listed = async () => {
    const flags = JSON.parse(await broker.ctl(['-q', 'list_feature_flags', 'name', '--formatter', 'json'])) as unknown[];
    const users = JSON.parse(await broker.ctl(['-q', 'list_users', '--formatter', 'json'])) as unknown[];
    return { flags: flags.length, users: users.length };
  };

  beforeAll(async () => {
    await broker.ctl(['add_user', USER, PASSWORD]);
    await broker.ctl(['set_user_tags', USER, 'administrator']);
    client = clientFor({ managementUrl: broker.managementUrl, username: USER, password: PASSWORD });
    info = brokerInfoFromOverview(await client.getJson<Record<string, unknown>>('/api/overview'));
  });
  afterAll(async () => {
    await client?.close();
    await broker.ctl(['delete_user', USER]).catch(() => undefined);
  });

  it('serves the series again at the first poll after the administrator tag is given back', async () => {
    const expected = await listed();
    const before = await poll();
    expect(before.flags.family('rabbitmq_feature_flag_enabled')).toHaveLength(expected.flags);
    expect(before.inventory.value('rabbitmq_users')).toBe(expected.users);

    await broker.ctl(['set_user_tags', USER, 'monitoring']);
    try {
      // A real refusal (the credentials work): no series, no failure, one warning per path.
      const refused = await poll();
      const warned = (r: typeof refused.flags) => r.logs.filter((l) => l.level === 40).map((l) => [l.path, l.status]);
      expect(refused.inventory.family('rabbitmq_users')).toEqual([]);
      expect(refused.inventory.family('rabbitmq_users_without_permissions')).toEqual([]);
      // The parts of one poll run side by side: their warnings come in any order.
      expect(warned(refused.inventory).sort()).toEqual([
        ['/api/global-parameters', 401],
        ['/api/parameters', 401],
        ['/api/users', 401],
        ['/api/users/without-permissions', 401],
      ]);
      if (atLeast(info.managementVersion, '3.13')) {
        // Open to a monitoring user: served in full, no warning.
        expect(refused.flags.family('rabbitmq_feature_flag_enabled')).toHaveLength(expected.flags);
        expect(warned(refused.flags)).toEqual([]);
      } else {
        expect(refused.flags.family('rabbitmq_feature_flag_enabled')).toEqual([]);
        expect(warned(refused.flags)).toEqual([['/api/feature-flags', 401]]);
      }
    } finally {
      await broker.ctl(['set_user_tags', USER, 'administrator']);
    }
    const back = await poll();
    expect(back.flags.family('rabbitmq_feature_flag_enabled')).toHaveLength(expected.flags);
    expect(back.inventory.value('rabbitmq_users')).toBe(expected.users);
  });

  it('fails, not "absent", while the credentials are refused, and serves the series at the first poll after', async () => {
    const expected = await listed();
    await broker.ctl(['change_password', USER, 'hf-refusals-other']);
    try {
      await expect(runCollector(featureFlagsCollector, { api: client, broker: info, memory: flagMemory })).rejects.toMatchObject({ status: 401 });
      await expect(runCollector(inventoryCollector, { api: client, broker: info, memory: inventoryMemory })).rejects.toMatchObject({ status: 401 });
    } finally {
      await broker.ctl(['change_password', USER, PASSWORD]);
    }
    const back = await poll();
    expect(back.flags.family('rabbitmq_feature_flag_enabled')).toHaveLength(expected.flags);
    expect(back.inventory.value('rabbitmq_users')).toBe(expected.users);
  });
});
