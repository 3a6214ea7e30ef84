// The health_checks collector against the private RabbitMQ node (test/broker/support).
import { afterAll, afterEach, expect, it } from 'vitest';
import { healthChecksCollector } from '../../src/collectors/health-checks/collector.js';
import { clientFor, runCollector, type RunResult } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { atLeast } from '../harness/broker/versions.js';
import { describeWithBroker, type BrokerHandle } from './support/with-broker.js';
import { managementRequest } from './support/management-api.js';

/**
 * The parameterless checks a version has, in the collector's order: mirroring is gone in 4.0;
 * 4.1 added the metadata-store and elected-leader checks, 4.1.1 the connection-limit and
 * serving ones, 4.3 reached-target-cluster-size. The aliveness test is asked before 4.0 only
 * (a no-op from 4.0.6/4.1).
 */
function simpleChecksOf(version: string): string[] {
  return [
    'alarms',
    'local-alarms',
    'virtual-hosts',
    'node-is-quorum-critical',
    ...(atLeast(version, '4.0') ? [] : ['node-is-mirror-sync-critical']),
    ...(atLeast(version, '4.1') ? ['quorum-queues-without-elected-leaders/all-vhosts'] : []),
    ...(atLeast(version, '4.1.1') ? ['below-node-connection-limit', 'ready-to-serve-clients', 'is-in-service'] : []),
    ...(atLeast(version, '4.1') ? ['metadata-store/initialized'] : []),
    ...(atLeast(version, '4.3') ? ['reached-target-cluster-size'] : []),
  ];
}

const hasAliveness = (broker: BrokerHandle) => !atLeast(broker.version!, '4.0');

describeWithBroker('health_checks collector on a real broker', (broker) => {
  const client = clientFor(broker);
  const poll = (options: Record<string, unknown> = {}, memory = new Map<string, unknown>()) =>
    runCollector(healthChecksCollector, { api: client, options, memory });

  afterEach(async () => {
    // Leave the shared broker as we found it, whatever a test did.
    await broker.ctl(['set_vm_memory_high_watermark', '0.4']);
  });
  afterAll(async () => {
    await broker.ctl(['delete_user', 'hf-app']).catch(() => undefined);
    await broker.ctl(['delete_user', 'hf-mon']).catch(() => undefined);
    // The aliveness test declares this queue and leaves it.
    await broker.ctl(['delete_queue', 'aliveness-test']).catch(() => undefined);
    await client.close();
  });

  it('passes every check a healthy node of its version has, with the port of its own AMQP listener', async () => {
    // aliveness_vhosts is opt-in: this test asks for it, and so declares the aliveness-test queue (before 4.0).
    const r = await poll({ aliveness_vhosts: ['/'] });
    expect([...r.samples]).toEqual([
      ...simpleChecksOf(broker.version!).map((check) => [`rabbitmq_health_check_up{check="${check}"}`, 1]),
      ['rabbitmq_health_check_up{check="certificate-expiration"}', 1],
      [`rabbitmq_health_check_up{check="port-listener",port="${broker.amqpPort}"}`, 1],
      ['rabbitmq_health_check_up{check="protocol-listener",protocol="amqp"}', 1],
      ...(hasAliveness(broker) ? [['rabbitmq_health_check_up{check="aliveness-test",vhost="/"}', 1]] : []),
    ]);
    expect(r.logs.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('by default changes nothing on the broker: no aliveness test, so no aliveness-test queue', async () => {
    await broker.ctl(['delete_queue', 'aliveness-test']).catch(() => undefined);
    const r = await poll();
    expect(r.value('rabbitmq_health_check_up', { check: 'aliveness-test', vhost: '/' })).toBeUndefined();
    expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
    const queues = await broker.ctl(['list_queues', '-q', '--no-table-headers', 'name']);
    expect(queues.split('\n').map((l) => l.trim())).not.toContain('aliveness-test');
  });

  it('serves a check exactly when the broker has it: 200 is 1, a 404 path gives no series', async () => {
    const candidates = [
      'node-is-mirror-sync-critical',
      'quorum-queues-without-elected-leaders/all-vhosts/',
      'below-node-connection-limit',
      'ready-to-serve-clients',
      'is-in-service',
      'metadata-store/initialized',
      'reached-target-cluster-size',
    ];
    const r = await poll();
    const answered: Record<string, number> = {};
    for (const path of candidates) {
      answered[path.replace(/\/$/, '')] = (await managementRequest(broker)('GET', `/api/health/checks/${path}`)).status;
    }
    const served = Object.fromEntries(candidates.map((c) => c.replace(/\/$/, '')).map((c) => [c, r.value('rabbitmq_health_check_up', { check: c })]));
    const expected = Object.fromEntries(Object.entries(answered).map(([c, status]) => [c, status === 404 ? undefined : status === 200 ? 1 : 0]));
    expect(served, JSON.stringify(answered)).toEqual(expected);
    // What each version has, as the release notes say.
    expect(Object.keys(answered).filter((c) => answered[c] === 200)).toEqual(candidates.map((c) => c.replace(/\/$/, '')).filter((c) => simpleChecksOf(broker.version!).includes(c)));
  });

  it('sees a real memory alarm: alarms and local-alarms go to 0 and back to 1', async () => {
    const memory = new Map<string, unknown>();
    const logs: RunResult['logs'] = [];
    const alarmValues = (r: RunResult) => [r.value('rabbitmq_health_check_up', { check: 'alarms' }), r.value('rabbitmq_health_check_up', { check: 'local-alarms' })];
    try {
      await broker.ctl(['set_vm_memory_high_watermark', '0.0001']);
      const raised = await eventually(
        async () => {
          const r = await poll({}, memory);
          logs.push(...r.logs);
          return alarmValues(r).join() === '0,0' ? r : undefined;
        },
        30_000,
        'alarms and local-alarms at 0',
      );
      expect(raised.value('rabbitmq_health_check_up', { check: 'virtual-hosts' })).toBe(1);
      // The reason is logged, never a label.
      expect(raised.text).not.toMatch(/alarms in effect|memory/);
      // One line per check that starts failing; which check a poll sees failing first varies.
      expect(logs.filter((l) => l.level === 40).map((l) => [l.check, l.cause]).sort()).toEqual([
        ['alarms', 'GET /api/health/checks/alarms: HTTP 503 (There are alarms in effect in the cluster)'],
        ['local-alarms', 'GET /api/health/checks/local-alarms: HTTP 503 (There are alarms in effect on the node)'],
      ]);
    } finally {
      await broker.ctl(['set_vm_memory_high_watermark', '0.4']);
    }
    const cleared = await eventually(
      async () => {
        const r = await poll({}, memory);
        logs.push(...r.logs);
        return alarmValues(r).join() === '1,1' ? r : undefined;
      },
      30_000,
      'alarms and local-alarms back at 1',
    );
    expect(cleared.family('rabbitmq_health_check_up').every((s) => s.value === 1)).toBe(true);
    expect(logs.filter((l) => l.msg === 'health check passes again').map((l) => l.check).sort()).toEqual(['alarms', 'local-alarms']);
  });

  it('serves 0 for a port and a protocol without a listener, and nothing for an aliveness test of a missing vhost', async () => {
    const r = await poll({
      ports: [broker.amqpPort, broker.epmdPort],
      protocols: ['amqp091', 'mqtt', 'amqps'],
      aliveness_vhosts: ['/', 'hf-no-such-vhost'],
    });
    expect(r.family('rabbitmq_health_check_up').filter((s) => s.labels.check !== undefined && (s.labels.port || s.labels.protocol || s.labels.vhost)).map((s) => [s.labels, s.value])).toEqual([
      [{ check: 'port-listener', port: String(broker.amqpPort) }, 1],
      [{ check: 'port-listener', port: String(broker.epmdPort) }, 0],
      [{ check: 'protocol-listener', protocol: 'amqp091' }, 1],
      [{ check: 'protocol-listener', protocol: 'mqtt' }, 0],
      [{ check: 'protocol-listener', protocol: 'amqps' }, 0],
      ...(hasAliveness(broker) ? [[{ check: 'aliveness-test', vhost: '/' }, 1]] : []),
    ]);
    expect(r.logs.filter((l) => l.path === '/api/aliveness-test/hf-no-such-vhost').map((l) => l.level)).toEqual(hasAliveness(broker) ? [30] : []);
    expect(r.logs.find((l) => l.port === String(broker.epmdPort))?.cause).toMatch(/HTTP 503 \(No active listener\)/);
  });

  it('with a monitoring user without vhost permissions: no whoami warning, the aliveness test left out once', async () => {
    await broker.ctl(['add_user', 'hf-mon', 'hf-mon-pw']);
    await broker.ctl(['set_user_tags', 'hf-mon', 'monitoring']);
    const monClient = clientFor({ managementUrl: broker.managementUrl, username: 'hf-mon', password: 'hf-mon-pw' });
    try {
      const memory = new Map<string, unknown>();
      const r = await runCollector(healthChecksCollector, { api: monClient, memory, options: { aliveness_vhosts: ['/'] } });
      expect(r.value('rabbitmq_health_check_up', { check: 'aliveness-test', vhost: '/' })).toBeUndefined();
      // Every check but the aliveness test (which needs vhost permissions; asked before 4.0 only).
      expect(r.family('rabbitmq_health_check_up').map((s) => s.value)).toEqual(Array(simpleChecksOf(broker.version!).length + 3).fill(1));
      expect(r.logs.filter((l) => l.level === 40).map((l) => [l.path, l.status])).toEqual(hasAliveness(broker) ? [['/api/aliveness-test/%2F', 401]] : []);
      const again = await runCollector(healthChecksCollector, { api: monClient, memory, options: { aliveness_vhosts: ['/'] } });
      expect(again.logs.filter((l) => l.level === 40)).toEqual([]);
    } finally {
      await monClient.close();
      await broker.ctl(['delete_user', 'hf-mon']);
    }
  });

  it('warns once when its user has neither the monitoring nor the administrator tag', async () => {
    await broker.ctl(['add_user', 'hf-app', 'hf-app-pw']);
    await broker.ctl(['set_user_tags', 'hf-app', 'management']);
    await broker.ctl(['set_permissions', '-p', '/', 'hf-app', '.*', '.*', '.*']);
    const appClient = clientFor({ managementUrl: broker.managementUrl, username: 'hf-app', password: 'hf-app-pw' });
    try {
      const memory = new Map<string, unknown>();
      const r = await runCollector(healthChecksCollector, { api: appClient, memory });
      expect(r.logs.filter((l) => /neither the monitoring nor the administrator tag/.test(l.msg)).map((l) => [l.user, l.tags])).toEqual([['hf-app', ['management']]]);
      // Health checks need only the management tag.
      expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
      const again = await runCollector(healthChecksCollector, { api: appClient, memory });
      expect(again.logs.filter((l) => /neither the monitoring/.test(l.msg))).toEqual([]);
    } finally {
      await appClient.close();
      await broker.ctl(['delete_user', 'hf-app']);
    }
  });
});
