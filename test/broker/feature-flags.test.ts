// The feature_flags collector against the private RabbitMQ node (test/broker/support).
import { afterAll, expect, it } from 'vitest';
import { featureFlagsCollector } from '../../src/collectors/feature-flags/collector.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { describeWithBroker } from './support/with-broker.js';

describeWithBroker('feature_flags collector on a real broker', (broker) => {
  const client = clientFor(broker);
  afterAll(() => client.close());

  it('serves the state rabbitmqctl list_feature_flags reports for every flag', async () => {
    const listed = JSON.parse(await broker.ctl(['-q', 'list_feature_flags', 'name', 'state', '--formatter', 'json'])) as { name: string; state: string }[];
    expect(listed.length).toBeGreaterThan(0);
    const r = await runCollector(featureFlagsCollector, { api: client });
    const served = Object.fromEntries(r.family('rabbitmq_feature_flag_enabled').map((s) => [s.labels.name, s.value]));
    expect(served).toEqual(Object.fromEntries(listed.map((f) => [f.name, f.state === 'enabled' ? 1 : 0])));
    // 3.10 has no /api/deprecated-features: nothing asked, nothing served.
    expect(r.family('rabbitmq_deprecated_feature_in_use')).toEqual([]);
    expect(r.logs.filter((l) => l.level >= 40)).toEqual([]);
  });
});
