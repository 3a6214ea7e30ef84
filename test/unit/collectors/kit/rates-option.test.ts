import { describe, expect, it } from 'vitest';
import { exchangesCollector } from '../../../../src/collectors/exchanges/collector.js';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { vhostsCollector } from '../../../../src/collectors/vhosts/collector.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';

/** The one `rates` option of the collectors that serve rate gauges per field: all, none, or a list. */
const COLLECTORS = [queuesCollector, exchangesCollector, vhostsCollector];

const stats = (published: string) => ({ message_stats: { [published]: 10, [`${published}_details`]: { rate: 2 }, confirm: 10, confirm_details: { rate: 3 } } });
const routes = {
  '/api/vhosts': [{ name: '/', ...stats('publish') }],
  '/api/exchanges': [{ name: 'x', vhost: '/', type: 'direct', durable: true, auto_delete: false, internal: false, ...stats('publish_in') }],
  '/api/bindings': [],
};

describe('collectors.<queues|exchanges|vhosts>.rates', () => {
  it('accepts true, false or a list of fields, and names what is wrong otherwise', () => {
    for (const c of COLLECTORS) {
      const schema = c.optionsSchema!;
      expect(schema.parse({ rates: true }).rates).toBe(true);
      expect(schema.parse({ rates: ['message_stats.publish'] }).rates).toEqual(['message_stats.publish']);
      expect(() => schema.parse({ rates: 'yes' })).toThrow();
    }
  });

  it('with a list, serves the rate gauges of the listed fields only and asks only for their _details', async () => {
    const vhosts = await runCollector(vhostsCollector, { api: fakeApi(routes), options: { rates: ['message_stats.publish'] } });
    expect(vhosts.samples.get('rabbitmq_vhost_messages_published_per_second{vhost="/"}')).toBe(2);
    expect(vhosts.samples.has('rabbitmq_vhost_messages_confirmed_per_second{vhost="/"}')).toBe(false);

    const api = fakeApi(routes);
    const exchanges = await runCollector(exchangesCollector, { api, options: { rates: ['message_stats.publish_in'] } });
    const published = [...exchanges.samples.keys()].filter((k) => k.includes('per_second'));
    expect(published).toEqual(['rabbitmq_exchange_messages_published_in_per_second{vhost="/",exchange="x"}']);
    const columns = api.calls.find((c) => c.path === '/api/exchanges')!.query.columns!.split(',');
    expect(columns.filter((c) => c.endsWith('_details'))).toEqual(['message_stats.publish_in_details']);
  });
});
