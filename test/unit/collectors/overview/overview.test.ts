import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { overviewCollector } from '../../../../src/collectors/overview/collector.js';
import { readFixture } from '../../../support/fixtures.js';
import { samples, seriesNames, seriesOf } from '../../../support/parse-exposition.js';
import { fakeApi } from '../../../support/fake-broker-api.js';
import { brokerFrom, runCollector } from '../../../support/run-collector.js';

const SINGLE = 'rabbitmq-3.10.8';
const CLUSTER = 'rabbitmq-3.10.8-cluster';
const NO_STATS = 'rabbitmq-3.10.8-stats-disabled';

function routes(dir: string, file = 'overview.json') {
  return { '/api/overview': readFixture(dir, file) };
}

describe('overview collector on 3.10.8', () => {
  // Run on its own; on a target, the runner hands it the target's reading (test/unit/broker/broker-info-reader.test.ts).
  it('run on its own, asks for /api/overview once', async () => {
    const result = await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) });
    expect(result.requests).toEqual([{ path: '/api/overview', query: {}, optional: false }]);
    expect(result.skipped).toBe(0);
  });

  it('identity, versions and statistics mode', async () => {
    const { text } = await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) });
    const s = samples(text);
    expect(s.get('rabbitmq_identity_info{rabbitmq_cluster="rabbit@vm"}')).toBe(1);
    expect(
      s.get(
        'rabbitmq_build_info{rabbitmq_version="3.10.8",erlang_version="25.2.3",management_version="3.10.8",product_name="RabbitMQ",product_version="3.10.8"}',
      ),
    ).toBe(1);
    expect(s.get('rabbitmq_management_statistics_enabled')).toBe(1);
    expect(s.get('rabbitmq_management_stats_db_event_queue')).toBe(0);
  });

  it('object totals and queue totals', async () => {
    const s = samples((await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) })).text);
    expect(s.get('rabbitmq_queues')).toBe(10000);
    expect(s.get('rabbitmq_connections')).toBe(100);
    expect(s.get('rabbitmq_channels')).toBe(200);
    expect(s.get('rabbitmq_consumers')).toBe(100);
    expect(s.get('rabbitmq_exchanges')).toBe(577);
    expect(s.get('rabbitmq_messages')).toBe(194);
    expect(s.get('rabbitmq_messages_ready')).toBe(0);
    expect(s.get('rabbitmq_messages_unacked')).toBe(194);
    expect(s.get('rabbitmq_messages_change_per_second')).toBe(-33.6);
    expect(s.get('rabbitmq_messages_unacked_change_per_second')).toBe(-33.6);
    expect(s.get('rabbitmq_messages_ready_change_per_second')).toBe(0);
  });

  it('global message counters and their rates', async () => {
    const s = samples((await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) })).text);
    expect(s.get('rabbitmq_global_messages_received_total')).toBe(317500);
    expect(s.get('rabbitmq_global_messages_received_per_second')).toBe(5000);
    expect(s.get('rabbitmq_global_messages_acknowledged_total')).toBe(317500);
    expect(s.get('rabbitmq_global_messages_acknowledged_per_second')).toBe(5000);
    expect(s.get('rabbitmq_global_messages_delivered_total')).toBe(317500);
    expect(s.get('rabbitmq_global_messages_delivered_per_second')).toBe(4993);
    expect(s.get('rabbitmq_global_messages_delivered_consume_manual_ack_total')).toBe(317500);
    expect(s.get('rabbitmq_global_messages_delivered_consume_manual_ack_per_second')).toBe(4993);
    for (const zero of [
      'confirmed',
      'delivered_consume_auto_ack',
      'delivered_get_manual_ack',
      'delivered_get_auto_ack',
      'get_empty',
      'redelivered',
      'unroutable_returned',
      'unroutable_dropped',
      'read_from_disk',
      'written_to_disk',
    ]) {
      expect(s.get(`rabbitmq_global_messages_${zero}_total`), zero).toBe(0);
      expect(s.get(`rabbitmq_global_messages_${zero}_per_second`), zero).toBe(0);
    }
  });

  it('churn counters', async () => {
    const s = samples((await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) })).text);
    expect(s.get('rabbitmq_cluster_connections_opened_total')).toBe(100);
    expect(s.get('rabbitmq_cluster_channels_opened_total')).toBe(200);
    expect(s.get('rabbitmq_cluster_connections_closed_total')).toBe(0);
    expect(s.get('rabbitmq_cluster_channels_closed_total')).toBe(0);
    expect(s.get('rabbitmq_cluster_queues_declared_total')).toBe(0);
    expect(s.get('rabbitmq_cluster_queues_created_total')).toBe(0);
    expect(s.get('rabbitmq_cluster_queues_deleted_total')).toBe(0);
    expect(s.get('rabbitmq_cluster_connections_opened_per_second')).toBe(0);
  });

  it('one listener series per listener', async () => {
    const { text } = await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) });
    expect([...seriesOf(text, 'rabbitmq_listener_info')]).toEqual([
      ['rabbitmq_listener_info{node="rabbit@vm",protocol="amqp",ip_address="::",port="5672"}', 1],
      ['rabbitmq_listener_info{node="rabbit@vm",protocol="clustering",ip_address="::",port="25672"}', 1],
      ['rabbitmq_listener_info{node="rabbit@vm",protocol="http",ip_address="::",port="15672"}', 1],
      ['rabbitmq_listener_info{node="rabbit@vm",protocol="http/prometheus",ip_address="::",port="15692"}', 1],
    ]);
  });

  it('rates: false leaves every _per_second gauge out', async () => {
    const { text } = await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE), options: { rates: false } });
    expect([...seriesNames(text)].filter((n) => n.endsWith('_per_second'))).toEqual([]);
    expect(samples(text).get('rabbitmq_global_messages_received_total')).toBe(317500);
  });

  it('emits only families it declares, each once', async () => {
    const { familyNames } = await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) });
    const declared = new Set(overviewCollector.metrics.map((m) => m.name));
    for (const name of familyNames) expect(declared.has(name), name).toBe(true);
    expect(new Set(familyNames).size).toBe(familyNames.length);
    // With statistics on and rates on, 3.10.8 fills every declared family but the one only a simulator fills.
    declared.delete('rabbitmq_simulated_info');
    expect(new Set(familyNames)).toEqual(declared);
  });

  it('the cluster fixture: 8 listeners over two nodes, totals of both', async () => {
    const { text } = await runCollector(overviewCollector, { api: fakeApi(routes(CLUSTER)), broker: brokerFrom(CLUSTER) });
    const s = samples(text);
    expect(s.get('rabbitmq_queues')).toBe(10004);
    expect(s.get('rabbitmq_messages')).toBe(171);
    expect(s.get('rabbitmq_global_messages_received_total')).toBe(2667100);
    expect(seriesOf(text, 'rabbitmq_listener_info').size).toBe(8);
    expect(seriesOf(text, 'rabbitmq_listener_info', 'node="rabbit2@vm"').size).toBe(4);
  });
});

describe('message counters the broker has not reported yet', () => {
  const overviewWith = (messageStats: unknown) => {
    const overview = readFixture<Record<string, unknown>>(SINGLE, 'overview.json');
    if (messageStats === undefined) delete overview.message_stats;
    else overview.message_stats = messageStats;
    return overview;
  };
  const counters = (text: string) => [...samples(text)].filter(([series]) => series.startsWith('rabbitmq_global_messages_') && series.endsWith('_total'));

  // A fresh broker's overview lists a counter once it has moved; the plugin serves every one from 0.
  it.each([[undefined], [[]], [{ publish: 7, publish_details: { rate: 0.2 } }]])('with statistics on, message_stats %j: each unreported counter is 0, a reported one its value', async (messageStats) => {
    const { text, skipped } = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': overviewWith(messageStats) }), broker: brokerFrom(SINGLE) });
    const served = new Map(counters(text));
    expect([...served.keys()].sort()).toEqual(counters(((await runCollector(overviewCollector, { api: fakeApi(routes(SINGLE)), broker: brokerFrom(SINGLE) })).text)).map(([series]) => series).sort());
    expect(served.size).toBe(14);
    const reported = messageStats !== undefined && !Array.isArray(messageStats) ? 7 : 0;
    expect(served.get('rabbitmq_global_messages_received_total')).toBe(reported);
    expect(served.get('rabbitmq_global_messages_redelivered_total')).toBe(0);
    expect(served.get('rabbitmq_global_messages_delivered_get_manual_ack_total')).toBe(0);
    // A rate the broker did not report is not made up.
    expect(samples(text).has('rabbitmq_global_messages_redelivered_per_second')).toBe(false);
    expect(skipped).toBe(0);
  });

  it('message_stats that is not an object is a bad answer: its counters are left out, not 0', async () => {
    const { text } = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': overviewWith('unknown') }), broker: brokerFrom(SINGLE) });
    expect(counters(text)).toEqual([]);
  });
});

describe('overview collector with statistics disabled', () => {
  it('object totals that are present, no message counters, no zeros for absent fields', async () => {
    const broker = brokerFrom(NO_STATS);
    expect(broker.statisticsDisabled).toBe(true);
    const { text, skipped } = await runCollector(overviewCollector, { api: fakeApi(routes(NO_STATS)), broker });
    const s = samples(text);
    expect(s.get('rabbitmq_management_statistics_enabled')).toBe(0);
    expect(s.get('rabbitmq_connections')).toBe(0);
    expect(s.get('rabbitmq_exchanges')).toBe(577);
    expect(s.get('rabbitmq_queues')).toBe(10001);
    expect(s.get('rabbitmq_identity_info{rabbitmq_cluster="rabbit@vm"}')).toBe(1);
    // Absent in this answer: channels, consumers, queue_totals, message_stats, churn_rates,
    // statistics_db_event_queue, listeners.
    expect([...seriesNames(text)].sort()).toEqual(
      [
        'rabbitmq_build_info',
        'rabbitmq_connections',
        'rabbitmq_exchanges',
        'rabbitmq_identity_info',
        'rabbitmq_management_statistics_enabled',
        'rabbitmq_queues',
      ].sort(),
    );
    expect(skipped).toBe(0);
  });
});

describe('bad answers', () => {
  it.each([[[]], [null], ['text'], [42]])('%j instead of an object fails the poll', async (answer) => {
    await expect(runCollector(overviewCollector, { api: fakeApi({ '/api/overview': answer }), broker: brokerFrom(SINGLE) })).rejects.toThrow(
      '/api/overview did not answer a JSON object',
    );
  });

  it('a 401 fails the poll with the ManagementError', async () => {
    const unauthorized = () => {
      throw new ManagementError('http_status', '/api/overview', 'HTTP 401 (not_authorized: Login failed)', 401);
    };
    await expect(runCollector(overviewCollector, { api: fakeApi({ '/api/overview': unauthorized }), broker: brokerFrom(SINGLE) })).rejects.toMatchObject({
      name: 'ManagementError',
      kind: 'http_status',
      status: 401,
    });
  });

  it('null or non-numeric fields are skipped and counted, never 0', async () => {
    const overview = readFixture<Record<string, Record<string, unknown>>>(SINGLE, 'overview.json');
    overview.object_totals!.queues = null;
    overview.object_totals!.channels = 'unknown';
    const { text, skipped } = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': overview }), broker: brokerFrom(SINGLE) });
    const s = samples(text);
    expect(s.has('rabbitmq_queues')).toBe(false);
    expect(s.has('rabbitmq_channels')).toBe(false);
    expect(s.get('rabbitmq_connections')).toBe(100);
    expect(skipped).toBe(2);
  });

  // Was a bug: the labels of rabbitmq_build_info (and rabbitmq_identity_info,
  // rabbitmq_management_statistics_enabled) came from the BrokerInfo of the *previous* overview,
  // not from the one this poll read. After an upgrade (3.12 → 3.13) or when statistics are switched
  // off, the first poll served the old versions / old statistics mode next to the new totals.
  it('build_info describes the overview it was read from, not the previous one', async () => {
    const upgraded = { ...readFixture<Record<string, unknown>>(SINGLE, 'overview.json'), management_version: '3.13.7', rabbitmq_version: '3.13.7', product_version: '3.13.7' };
    const { text } = await runCollector(overviewCollector, { api: fakeApi({ '/api/overview': upgraded }), broker: brokerFrom(SINGLE) });
    expect([...seriesOf(text, 'rabbitmq_build_info').keys()][0]).toContain('rabbitmq_version="3.13.7"');
  });
});

describe.each(['rabbitmq-4.0.x-cluster', 'rabbitmq-4.3.x-cluster'])('overview collector on the two-node cluster of %s', (dir) => {
  it('both running: 4 listeners on each node, totals of both; rabbit2 stopped: its listeners and its queue gone from the totals', async () => {
    const [rabbit1, rabbit2] = readFixture<{ name: string }[]>(dir, 'nodes.json').map((n) => n.name) as [string, string];
    const both = await runCollector(overviewCollector, { api: fakeApi(routes(dir)), broker: brokerFrom(dir) });
    const s = samples(both.text);
    expect(s.get('rabbitmq_queues')).toBe(2);
    expect(s.get('rabbitmq_messages')).toBe(7); // fx.quorum2 4 + fx.on-rabbit2 3
    expect(seriesOf(both.text, 'rabbitmq_listener_info').size).toBe(8);
    expect(seriesOf(both.text, 'rabbitmq_listener_info', `node="${rabbit2}"`).size).toBe(4);

    const down = await runCollector(overviewCollector, { api: fakeApi(routes(dir, 'overview-rabbit2-down.json')), broker: brokerFrom(dir) });
    const d = samples(down.text);
    // The classic queue of the stopped node is no longer counted, nor its 3 messages.
    expect(d.get('rabbitmq_queues')).toBe(1);
    expect(d.get('rabbitmq_messages')).toBe(4);
    expect(seriesOf(down.text, 'rabbitmq_listener_info', `node="${rabbit2}"`).size).toBe(0);
    expect(seriesOf(down.text, 'rabbitmq_listener_info', `node="${rabbit1}"`).size).toBe(4);
  });
});
