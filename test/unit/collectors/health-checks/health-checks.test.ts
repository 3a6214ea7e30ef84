import { describe, expect, it } from 'vitest';
import type { BrokerInfo } from '../../../../src/broker/broker-info.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { healthChecksCollector, userTags } from '../../../../src/collectors/health-checks/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND, STALL } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

const F = 'rabbitmq-3.10.8';
const C = 'rabbitmq-3.10.8-cluster';

/**
 * A non-2xx answer as ManagementClient.getJson produces it: kind http_status, the status, and
 * the body's error/reason (or its first 200 characters when it is not JSON) in the message.
 */
function answer(status: number, body: unknown): FakeRoute {
  return () => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    let detail = text;
    try {
      const parsed = JSON.parse(text) as { error?: unknown; reason?: unknown };
      detail = [parsed.error, parsed.reason].filter((x) => typeof x === 'string').join(': ') || text;
    } catch {
      /* not JSON */
    }
    throw new ManagementError('http_status', 'path', `HTTP ${status} (${detail.replace(/\s+/g, ' ').trim().slice(0, 200)})`, status);
  };
}

/** What the client makes of a 503 whose body is over its 4096-byte excerpt: truncated, not JSON. */
function bigAnswer(status: number, fixture: string): FakeRoute {
  return answer(status, JSON.stringify(loadFixture(fixture)).slice(0, 4096));
}

const timeout: FakeRoute = () => {
  throw new ManagementError('timeout', '/api/health/checks/virtual-hosts', 'no complete answer within 60000 ms');
};

/** The recorded 3.10.8 answers of every check the collector asks by default. */
function healthy310(): Record<string, FakeRoute> {
  return {
    '/api/whoami': loadFixture(`${F}/whoami.json`),
    '/api/overview': loadFixture(`${F}/overview.json`),
    '/api/health/checks/alarms': loadFixture(`${F}/health-alarms.json`),
    '/api/health/checks/local-alarms': loadFixture(`${F}/health-local-alarms.json`),
    '/api/health/checks/virtual-hosts': loadFixture(`${F}/health-vhosts.json`),
    '/api/health/checks/node-is-quorum-critical': loadFixture(`${F}/health-quorum-critical.json`),
    '/api/health/checks/node-is-mirror-sync-critical': loadFixture(`${F}/health-mirror-sync-critical.json`),
    '/api/health/checks/certificate-expiration/30/days': loadFixture(`${F}/health-cert.json`),
    '/api/health/checks/port-listener/5672': loadFixture(`${F}/health-port-5672.json`),
    '/api/health/checks/protocol-listener/amqp': loadFixture(`${F}/health-proto-amqp091.json`),
    '/api/aliveness-test/%2F': loadFixture(`${F}/aliveness-root.json`),
  };
}

const BROKER_4_2: BrokerInfo = {
  ...BROKER_3_10_8,
  managementVersion: '4.2.4',
  rabbitmqVersion: '4.2.4',
  productVersion: '4.2.4',
  variant: 'B',
};

/** The aliveness test changes the broker (declares a queue), so it is asked only when configured. */
const WITH_ALIVENESS = { aliveness_vhosts: ['/'] };

describe('health_checks collector', () => {
  it('does not ask the aliveness test unless aliveness_vhosts lists vhosts (it declares a queue on the broker)', async () => {
    const api = fakeApi(healthy310());
    const r = await runCollector(healthChecksCollector, { api });
    expect(r.family('rabbitmq_health_check_up')).toHaveLength(8);
    expect(api.calls.some((c) => c.path.startsWith('/api/aliveness-test'))).toBe(false);
  });

  it('asks every 3.10 check and serves 1 for each 200, with a label only for the parameter a check takes', async () => {
    const api = fakeApi(healthy310());
    const r = await runCollector(healthChecksCollector, { api, options: WITH_ALIVENESS });
    expect([...r.samples]).toEqual([
      ['rabbitmq_health_check_up{check="alarms"}', 1],
      ['rabbitmq_health_check_up{check="local-alarms"}', 1],
      ['rabbitmq_health_check_up{check="virtual-hosts"}', 1],
      ['rabbitmq_health_check_up{check="node-is-quorum-critical"}', 1],
      ['rabbitmq_health_check_up{check="node-is-mirror-sync-critical"}', 1],
      ['rabbitmq_health_check_up{check="certificate-expiration"}', 1],
      ['rabbitmq_health_check_up{check="port-listener",port="5672"}', 1],
      ['rabbitmq_health_check_up{check="protocol-listener",protocol="amqp"}', 1],
      ['rabbitmq_health_check_up{check="aliveness-test",vhost="/"}', 1],
    ]);
    expect(r.text).toContain('# TYPE rabbitmq_health_check_up gauge\n');
    // Nothing of variant B is asked of a 3.10 broker; the listeners are read from the answering node.
    expect(api.calls.map((c) => c.path)).not.toContain('/api/health/checks/is-in-service');
    expect(api.calls.find((c) => c.path === '/api/overview')?.query).toEqual({ columns: 'node,listeners' });
    expect(r.logs.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('serves 0 for a 503 (memory alarm) and logs the reason at warn level, never in a label', async () => {
    const routes = healthy310();
    routes['/api/health/checks/alarms'] = answer(503, loadFixture(`${F}/health-alarms-memory-alarm.json`));
    routes['/api/health/checks/local-alarms'] = answer(503, loadFixture(`${F}/health-local-alarms-memory-alarm.json`));
    const memory = new Map<string, unknown>();
    const r = await runCollector(healthChecksCollector, { api: fakeApi(routes), memory });
    expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(0);
    expect(r.value('rabbitmq_health_check_up', { check: 'local-alarms' })).toBe(0);
    expect(r.value('rabbitmq_health_check_up', { check: 'virtual-hosts' })).toBe(1);
    expect(r.text).not.toContain('alarms in effect');
    const warnings = r.logs.filter((l) => l.level === 40);
    expect(warnings.map((l) => [l.check, l.cause])).toEqual([
      ['alarms', 'GET path: HTTP 503 (There are alarms in effect in the cluster)'],
      ['local-alarms', 'GET path: HTTP 503 (There are alarms in effect on the node)'],
    ]);
    // The same failure on the next poll is not logged again; its end is.
    const again = await runCollector(healthChecksCollector, { api: fakeApi(routes), memory });
    expect(again.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(0);
    expect(again.logs.filter((l) => l.level >= 30)).toEqual([]);
    const cleared = await runCollector(healthChecksCollector, { api: fakeApi(healthy310()), memory });
    expect(cleared.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
    expect(cleared.logs.filter((l) => l.msg === 'health check passes again').map((l) => l.check)).toEqual(['alarms', 'local-alarms']);
  });

  it('checks configured ports and protocols: 5672 and amqp pass, 9999 and mqtt have no listener (503)', async () => {
    const routes = healthy310();
    delete routes['/api/overview'];
    routes['/api/health/checks/port-listener/9999'] = answer(503, loadFixture(`${F}/health-port-9999.json`));
    routes['/api/health/checks/protocol-listener/amqp091'] = loadFixture(`${F}/health-proto-amqp091.json`);
    routes['/api/health/checks/protocol-listener/mqtt'] = answer(503, loadFixture(`${F}/health-proto-mqtt.json`));
    const r = await runCollector(healthChecksCollector, {
      api: fakeApi(routes),
      options: { ports: [5672, 9999, 5672], protocols: ['amqp091', 'mqtt'], certificate_expiration_days: 30 },
    });
    expect(r.family('rabbitmq_health_check_up').filter((s) => s.labels.port || s.labels.protocol)).toEqual([
      { name: 'rabbitmq_health_check_up', labels: { check: 'port-listener', port: '5672' }, value: 1 },
      { name: 'rabbitmq_health_check_up', labels: { check: 'port-listener', port: '9999' }, value: 0 },
      { name: 'rabbitmq_health_check_up', labels: { check: 'protocol-listener', protocol: 'amqp091' }, value: 1 },
      { name: 'rabbitmq_health_check_up', labels: { check: 'protocol-listener', protocol: 'mqtt' }, value: 0 },
    ]);
    expect(r.logs.find((l) => l.port === '9999')?.cause).toBe('GET path: HTTP 503 (No active listener)');
  });

  it('uses only the AMQP ports of the node that answered /api/overview, read once per target', async () => {
    const routes = healthy310();
    routes['/api/overview'] = loadFixture(`${C}/overview.json`);
    const memory = new Map<string, unknown>();
    const api = fakeApi(routes);
    const r = await runCollector(healthChecksCollector, { api, memory });
    expect(r.family('rabbitmq_health_check_up').filter((s) => s.labels.check === 'port-listener').map((s) => s.labels.port)).toEqual(['5672']);
    await runCollector(healthChecksCollector, { api, memory });
    expect(api.calls.filter((c) => c.path === '/api/overview')).toHaveLength(1);
    expect(api.calls.filter((c) => c.path === '/api/whoami')).toHaveLength(1);
  });

  it('falls back to port 5672 and protocol amqp when the listeners cannot be read, and tries again next poll', async () => {
    const routes = healthy310();
    routes['/api/overview'] = answer(500, { error: 'internal_error' });
    const memory = new Map<string, unknown>();
    const api = fakeApi(routes);
    const r = await runCollector(healthChecksCollector, { api, memory });
    expect(r.value('rabbitmq_health_check_up', { check: 'port-listener', port: '5672' })).toBe(1);
    expect(r.value('rabbitmq_health_check_up', { check: 'protocol-listener', protocol: 'amqp' })).toBe(1);
    await runCollector(healthChecksCollector, { api, memory });
    expect(api.calls.filter((c) => c.path === '/api/overview')).toHaveLength(2);
  });

  it('gives no series for a check that answers 404, does not throw, logs it once, and serves it at the first poll it answers again', async () => {
    const routes = healthy310();
    routes['/api/health/checks/node-is-mirror-sync-critical'] = NOT_FOUND;
    const api = fakeApi(routes);
    const memory = new Map<string, unknown>();
    const first = await runCollector(healthChecksCollector, { api, memory, options: WITH_ALIVENESS });
    expect(first.value('rabbitmq_health_check_up', { check: 'node-is-mirror-sync-critical' })).toBeUndefined();
    expect(first.family('rabbitmq_health_check_up')).toHaveLength(8);
    expect(first.logs.filter((l) => l.path === '/api/health/checks/node-is-mirror-sync-critical').map((l) => [l.level, l.msg])).toEqual([
      [30, 'the broker has no node-is-mirror-sync-critical health check: no series while the path is absent'],
    ]);
    const r = await runCollector(healthChecksCollector, { api, memory, options: WITH_ALIVENESS });
    expect(r.family('rabbitmq_health_check_up')).toHaveLength(8);
    expect(r.logs.filter((l) => l.level >= 30)).toEqual([]);
    expect(api.calls.filter((c) => c.path === '/api/health/checks/node-is-mirror-sync-critical')).toHaveLength(2);
    // The next poll after the path answers again serves its series.
    routes['/api/health/checks/node-is-mirror-sync-critical'] = loadFixture(`${F}/health-mirror-sync-critical.json`);
    const back = await runCollector(healthChecksCollector, { api, memory });
    expect(back.value('rabbitmq_health_check_up', { check: 'node-is-mirror-sync-critical' })).toBe(1);
  });

  it('leaves out a check that times out or answers 500, with a warning, and keeps the others', async () => {
    const routes = healthy310();
    routes['/api/health/checks/virtual-hosts'] = timeout;
    routes['/api/health/checks/node-is-quorum-critical'] = answer(500, { error: 'Internal Server Error', reason: 'boom' });
    const r = await runCollector(healthChecksCollector, { api: fakeApi(routes), options: WITH_ALIVENESS });
    expect(r.value('rabbitmq_health_check_up', { check: 'virtual-hosts' })).toBeUndefined();
    expect(r.value('rabbitmq_health_check_up', { check: 'node-is-quorum-critical' })).toBeUndefined();
    expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
    expect(r.family('rabbitmq_health_check_up')).toHaveLength(7);
    expect(r.logs.filter((l) => l.level === 40).map((l) => [l.part, l.reason])).toEqual([
      ['virtual-hosts', 'timeout'],
      ['node-is-quorum-critical', 'http_500'],
    ]);
  });

  it('a check that never answers ends before the poll\'s deadline: the others are served, it is reported while it lasts and logged once', async () => {
    const routes = healthy310();
    routes['/api/health/checks/virtual-hosts'] = STALL;
    const memory = new Map<string, unknown>();
    const limits = { timeoutMs: 1000, maxAgeMs: 3000 };
    const started = performance.now();
    const r = await runCollector(healthChecksCollector, { api: fakeApi(routes), memory, limits });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
    expect(r.value('rabbitmq_health_check_up', { check: 'virtual-hosts' })).toBeUndefined();
    expect(r.value('rabbitmq_exporter_collector_part_failed', { collector: 'health_checks', part: 'virtual-hosts', reason: 'poll_deadline' })).toBe(1);
    const again = await runCollector(healthChecksCollector, { api: fakeApi(routes), memory, limits });
    expect(again.value('rabbitmq_exporter_collector_part_failed', { collector: 'health_checks', part: 'virtual-hosts', reason: 'poll_deadline' })).toBe(1);
    expect([...r.logs, ...again.logs].filter((l) => l.part === 'virtual-hosts' && l.level === 40)).toHaveLength(1);
    const back = await runCollector(healthChecksCollector, { api: fakeApi(healthy310()), memory, limits });
    expect(back.family('rabbitmq_exporter_collector_part_failed')).toEqual([]);
    expect(back.value('rabbitmq_health_check_up', { check: 'virtual-hosts' })).toBe(1);
  });

  it('leaves out the aliveness test of a vhost the user has no permissions on (401), warning once', async () => {
    const routes = healthy310();
    routes['/api/aliveness-test/%2F'] = answer(401, { error: 'not_authorised', reason: 'User not authorised to access virtual host' });
    const memory = new Map<string, unknown>();
    const api = fakeApi(routes);
    const r = await runCollector(healthChecksCollector, { api, memory, options: WITH_ALIVENESS });
    expect(r.family('rabbitmq_health_check_up')).toHaveLength(8);
    expect(r.value('rabbitmq_health_check_up', { check: 'aliveness-test', vhost: '/' })).toBeUndefined();
    expect(r.logs.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'the exporter\'s user may not read this path (it needs permissions on the vhost /): its series are left out while it is refused',
    ]);
    const again = await runCollector(healthChecksCollector, { api, memory, options: WITH_ALIVENESS });
    expect(again.logs.filter((l) => l.level >= 30)).toEqual([]);
    expect(api.calls.filter((c) => c.path === '/api/aliveness-test/%2F')).toHaveLength(2);
  });

  it('treats a 401 of any other check (bad credentials) as a failure of that check', async () => {
    const routes = healthy310();
    routes['/api/health/checks/alarms'] = answer(401, { error: 'not_authorized', reason: 'Login failed' });
    const r = await runCollector(healthChecksCollector, { api: fakeApi(routes) });
    expect(r.value('rabbitmq_health_check_up', { check: 'alarms' })).toBeUndefined();
    expect(r.logs.filter((l) => l.level === 40).map((l) => [l.part, l.reason])).toEqual([['alarms', 'http_401']]);
  });

  it('fails the poll only when every check fails', async () => {
    const routes: Record<string, FakeRoute> = { '/api/whoami': timeout, '/api/overview': timeout };
    for (const path of Object.keys(healthy310())) if (path.includes('health') || path.includes('aliveness')) routes[path] = timeout;
    await expect(runCollector(healthChecksCollector, { api: fakeApi(routes) })).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('serves 0 for node-is-quorum-critical when a quorum queue would lose its quorum (cluster, 503 with a body of 14 kB)', async () => {
    const routes = healthy310();
    routes['/api/health/checks/node-is-quorum-critical'] = bigAnswer(503, `${C}/health-quorum-critical.json`);
    const r = await runCollector(healthChecksCollector, { api: fakeApi(routes) });
    expect(r.value('rabbitmq_health_check_up', { check: 'node-is-quorum-critical' })).toBe(0);
    expect(r.text).not.toContain('q8200');
  });

  it('skips checks listed in `skip` and uses the configured certificate window and aliveness vhosts', async () => {
    const routes = healthy310();
    routes['/api/health/checks/certificate-expiration/7/days'] = loadFixture(`${F}/health-cert.json`);
    routes['/api/aliveness-test/vh1'] = answer(503, { status: 'failed', reason: 'aliveness-test queue is empty' });
    const api = fakeApi(routes);
    const r = await runCollector(healthChecksCollector, {
      api,
      options: { skip: ['node-is-quorum-critical', 'port-listener'], certificate_expiration_days: 7, aliveness_vhosts: ['/', 'vh1'] },
    });
    expect(r.samples).toEqual(
      new Map([
        ['rabbitmq_health_check_up{check="alarms"}', 1],
        ['rabbitmq_health_check_up{check="local-alarms"}', 1],
        ['rabbitmq_health_check_up{check="virtual-hosts"}', 1],
        ['rabbitmq_health_check_up{check="node-is-mirror-sync-critical"}', 1],
        ['rabbitmq_health_check_up{check="certificate-expiration"}', 1],
        ['rabbitmq_health_check_up{check="protocol-listener",protocol="amqp"}', 1],
        ['rabbitmq_health_check_up{check="aliveness-test",vhost="/"}', 1],
        ['rabbitmq_health_check_up{check="aliveness-test",vhost="vh1"}', 0],
      ]),
    );
    expect(api.calls.map((c) => c.path)).not.toContain('/api/health/checks/node-is-quorum-critical');
  });

  it('asks the checks of 3.13/4.x, not the mirroring check or the aliveness test, and skips the ones a version lacks (404)', async () => {
    const ok = { status: 'ok' };
    const routes: Record<string, FakeRoute> = {
      '/api/whoami': { name: 'monitor', tags: ['monitoring'] },
      '/api/overview': loadFixture(`${F}/overview.json`),
      '/api/health/checks/alarms': ok,
      '/api/health/checks/local-alarms': ok,
      '/api/health/checks/virtual-hosts': ok,
      '/api/health/checks/node-is-quorum-critical': ok,
      '/api/health/checks/certificate-expiration/30/days': ok,
      '/api/health/checks/port-listener/5672': ok,
      '/api/health/checks/protocol-listener/amqp': { status: 'ok', protocols: ['amqp', 'clustering', 'http'] },
      '/api/health/checks/quorum-queues-without-elected-leaders/all-vhosts/': answer(503, {
        status: 'failed',
        reason: 'Detected quorum queues without an elected leader',
        queues: [{ name: 'q1', vhost: '/' }],
      }),
      '/api/health/checks/below-node-connection-limit': answer(503, { status: 'failed', reason: 'node connection limit is reached' }),
      '/api/health/checks/ready-to-serve-clients': ok,
      '/api/health/checks/is-in-service': ok,
      '/api/health/checks/metadata-store/initialized': ok,
      '/api/health/checks/reached-target-cluster-size': NOT_FOUND,
    };
    const api = fakeApi(routes);
    const r = await runCollector(healthChecksCollector, { api, broker: BROKER_4_2 });
    expect(r.samples).toEqual(
      new Map([
        ['rabbitmq_health_check_up{check="alarms"}', 1],
        ['rabbitmq_health_check_up{check="local-alarms"}', 1],
        ['rabbitmq_health_check_up{check="virtual-hosts"}', 1],
        ['rabbitmq_health_check_up{check="node-is-quorum-critical"}', 1],
        ['rabbitmq_health_check_up{check="quorum-queues-without-elected-leaders/all-vhosts"}', 0],
        ['rabbitmq_health_check_up{check="below-node-connection-limit"}', 0],
        ['rabbitmq_health_check_up{check="ready-to-serve-clients"}', 1],
        ['rabbitmq_health_check_up{check="is-in-service"}', 1],
        ['rabbitmq_health_check_up{check="metadata-store/initialized"}', 1],
        ['rabbitmq_health_check_up{check="certificate-expiration"}', 1],
        ['rabbitmq_health_check_up{check="port-listener",port="5672"}', 1],
        ['rabbitmq_health_check_up{check="protocol-listener",protocol="amqp"}', 1],
      ]),
    );
    const paths = api.calls.map((c) => c.path);
    expect(paths).not.toContain('/api/health/checks/node-is-mirror-sync-critical');
    expect(paths.some((p) => p.startsWith('/api/aliveness-test'))).toBe(false);
  });

  it('asks the mirroring check and the aliveness test of 3.13 (variant B, mirroring still there)', async () => {
    const routes = healthy310();
    for (const p of ['quorum-queues-without-elected-leaders/all-vhosts/', 'below-node-connection-limit', 'ready-to-serve-clients', 'is-in-service', 'metadata-store/initialized', 'reached-target-cluster-size']) {
      routes[`/api/health/checks/${p}`] = NOT_FOUND;
    }
    const r = await runCollector(healthChecksCollector, {
      api: fakeApi(routes),
      broker: { ...BROKER_4_2, managementVersion: '3.13.7' },
      options: WITH_ALIVENESS,
    });
    expect(r.value('rabbitmq_health_check_up', { check: 'node-is-mirror-sync-critical' })).toBe(1);
    expect(r.value('rabbitmq_health_check_up', { check: 'aliveness-test', vhost: '/' })).toBe(1);
    expect(r.family('rabbitmq_health_check_up')).toHaveLength(9);
  });

  describe('whoami at the first poll', () => {
    async function warningsFor(whoami: unknown): Promise<unknown[]> {
      const routes = healthy310();
      routes['/api/whoami'] = whoami;
      const r = await runCollector(healthChecksCollector, { api: fakeApi(routes) });
      return r.logs.filter((l) => l.level === 40).map((l) => [l.user, l.tags]);
    }

    it('warns, once, when the tags (a list, 3.10+) have neither monitoring nor administrator', async () => {
      expect(await warningsFor({ name: 'app', tags: ['management', 'policymaker'] })).toEqual([['app', ['management', 'policymaker']]]);
      expect(await warningsFor({ name: 'app', tags: [] })).toEqual([['app', []]]);
      expect(await warningsFor(loadFixture(`${F}/whoami.json`))).toEqual([]);
      expect(await warningsFor({ name: 'mon', tags: ['monitoring'] })).toEqual([]);
    });

    it('reads the comma-separated string of older versions', async () => {
      expect(await warningsFor({ name: 'old', tags: 'management,policymaker' })).toEqual([['old', ['management', 'policymaker']]]);
      expect(await warningsFor({ name: 'old', tags: 'administrator' })).toEqual([]);
      expect(await warningsFor({ name: 'old', tags: 'management, monitoring' })).toEqual([]);
      expect(userTags('')).toEqual([]);
      expect(userTags(undefined)).toEqual([]);
    });

    it('asks once per target, and again next poll only if it failed', async () => {
      const routes = healthy310();
      routes['/api/whoami'] = timeout;
      const api = fakeApi(routes);
      const memory = new Map<string, unknown>();
      const failed = await runCollector(healthChecksCollector, { api, memory });
      expect(failed.value('rabbitmq_health_check_up', { check: 'alarms' })).toBe(1);
      routes['/api/whoami'] = { name: 'app', tags: ['management'] };
      const r = await runCollector(healthChecksCollector, { api, memory });
      expect(r.logs.filter((l) => l.level === 40)).toHaveLength(1);
      await runCollector(healthChecksCollector, { api, memory });
      expect(api.calls.filter((c) => c.path === '/api/whoami')).toHaveLength(2);
    });
  });

  it('rejects unknown options and unknown check names', () => {
    expect(() => healthChecksCollector.optionsSchema!.parse({ skip: ['no-such-check'] })).toThrow();
    expect(() => healthChecksCollector.optionsSchema!.parse({ port: 5672 })).toThrow();
    expect(healthChecksCollector.optionsSchema!.parse({})).toEqual({ skip: [], aliveness_vhosts: [], certificate_expiration_days: 30 });
  });
});
