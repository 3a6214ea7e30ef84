import { describe, expect, it } from 'vitest';
import { brokerInfoFromOverview, parseVersion, variantOf } from '../../../src/broker/broker-info.js';
import { readFixture } from '../../support/fixtures.js';

const overview = (dir: string, file = 'overview.json') => readFixture<Record<string, unknown>>(dir, file);

describe('brokerInfoFromOverview', () => {
  it('3.10.8: variant A, statistics on', () => {
    expect(brokerInfoFromOverview(overview('rabbitmq-3.10.8'))).toEqual({
      managementVersion: '3.10.8',
      rabbitmqVersion: '3.10.8',
      productName: 'RabbitMQ',
      productVersion: '3.10.8',
      erlangVersion: '25.2.3',
      clusterName: 'rabbit@vm',
      node: 'rabbit@vm',
      variant: 'A',
      statisticsDisabled: false,
      objectTotals: { channels: 200, connections: 100, consumers: 100, exchanges: 577, queues: 10000 },
    });
  });

  it('object_totals: its numbers only; absent when the answer has none', () => {
    const with_ = (objectTotals: unknown) => brokerInfoFromOverview({ management_version: '4.0.5', object_totals: objectTotals }).objectTotals;
    expect(with_({ queues: 3, exchanges: 7, odd: 'x', negative: -1, nan: Number.NaN })).toEqual({ queues: 3, exchanges: 7 });
    for (const none of [undefined, null, [], 'many', {}, { queues: '3' }]) expect(with_(none), JSON.stringify(none)).toBeUndefined();
  });

  it('3.10.8 with management.disable_stats: statistics disabled', () => {
    const info = brokerInfoFromOverview(overview('rabbitmq-3.10.8-stats-disabled'));
    expect(info.statisticsDisabled).toBe(true);
    expect(info.variant).toBe('A');
  });

  it('the cluster fixtures', () => {
    expect(brokerInfoFromOverview(overview('rabbitmq-3.10.8-cluster')).statisticsDisabled).toBe(false);
    expect(brokerInfoFromOverview(overview('rabbitmq-3.10.8-cluster', 'overview-rabbit2-down.json')).clusterName).toBe('rabbit@vm');
    // The node that answered, for the kbudde profile's `self` label; '' when the answer lacks it.
    expect(brokerInfoFromOverview(overview('rabbitmq-4.3.x-cluster')).node).toMatch(/^rabbit1-.*@localhost$/);
    expect(brokerInfoFromOverview({ ...overview('rabbitmq-3.10.8'), node: undefined }).node).toBe('');
  });

  it.each([
    ['3.12.14', 'A'],
    ['3.13.0', 'B'],
    ['3.13.7', 'B'],
    ['4.0.5', 'B'],
    ['4.1.0-rc.1', 'B'],
    ['3.8.35', 'A'],
  ])('management_version %s → variant %s', (version, variant) => {
    const info = brokerInfoFromOverview({ ...overview('rabbitmq-3.10.8'), management_version: version, rabbitmq_version: version });
    expect(info.variant).toBe(variant);
    expect(info.managementVersion).toBe(version);
  });

  it('no disable_stats flag and no statistics blocks: statistics disabled', () => {
    expect(brokerInfoFromOverview({ management_version: '4.0.5', object_totals: { queues: 1 } }).statisticsDisabled).toBe(true);
    expect(brokerInfoFromOverview({ management_version: '4.0.5', queue_totals: { messages: 1 } }).statisticsDisabled).toBe(false);
    expect(brokerInfoFromOverview({ management_version: '4.0.5', disable_stats: false }).statisticsDisabled).toBe(false);
  });

  it('falls back to rabbitmq_version and defaults', () => {
    const info = brokerInfoFromOverview({ rabbitmq_version: '3.13.2' });
    expect(info).toMatchObject({ managementVersion: '3.13.2', rabbitmqVersion: '3.13.2', productName: 'RabbitMQ', productVersion: '3.13.2', erlangVersion: '', clusterName: '', variant: 'B' });
  });

  it('an answer without versions is not a management API', () => {
    expect(() => brokerInfoFromOverview({ cluster_name: 'x' })).toThrow('neither management_version nor rabbitmq_version');
    expect(() => brokerInfoFromOverview({ management_version: 3.1 })).toThrow('not a RabbitMQ management API');
  });

  it('parseVersion and variantOf', () => {
    expect(parseVersion('3.10.8')).toEqual([3, 10, 8]);
    expect(parseVersion('4.0')).toEqual([4, 0, 0]);
    expect(parseVersion('garbage')).toEqual([0, 0, 0]);
    expect(variantOf('3.13.0')).toBe('B');
    expect(variantOf('3.9.0')).toBe('A');
    expect(variantOf('10.0.0')).toBe('B');
  });
});
