import { expect, it } from 'vitest';
import { exchangesCollector } from '../../../../src/collectors/exchanges/collector.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { runCollector } from '../../../support/run-collector.js';

// An exchange that confirmed messages and had unroutable ones returned and dropped lists these
// counters with their rates; the recorded brokers' exchanges moved none of them.
it("serves an exchange's confirms and unroutable messages, returned and dropped, with their rates, as message_stats lists them", async () => {
  const counters = { confirm: 12, return_unroutable: 3, drop_unroutable: 5 };
  const message_stats = Object.fromEntries(Object.entries(counters).flatMap(([field, value]) => [[field, value], [`${field}_details`, { rate: value / 10 }]]));
  const api = fakeApi({
    '/api/exchanges': [{ name: 'x', vhost: '/', type: 'direct', durable: true, auto_delete: false, internal: false, message_stats }],
    '/api/bindings': [],
  });
  const run = await runCollector(exchangesCollector, { api, options: { rates: true } });
  const labels = { vhost: '/', exchange: 'x' };
  for (const [field, counter, rate] of [
    ['confirm', 'rabbitmq_exchange_messages_confirmed_total', 'rabbitmq_exchange_messages_confirmed_per_second'],
    ['return_unroutable', 'rabbitmq_exchange_messages_returned_unroutable_total', 'rabbitmq_exchange_messages_returned_unroutable_per_second'],
    ['drop_unroutable', 'rabbitmq_exchange_messages_dropped_unroutable_total', 'rabbitmq_exchange_messages_dropped_unroutable_per_second'],
  ] as const) {
    expect(run.value(counter, labels), counter).toBe(counters[field]);
    expect(run.value(rate, labels), rate).toBe(counters[field] / 10);
  }
});
