// Tests of the real-RabbitMQ harness itself (test/broker/support/*).
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBroker } from '../harness/broker/broker.js';
import { checkMetricsWithPromtool, promtoolPath } from '../harness/promtool.js';
import { rootfsRabbitVersion } from '../harness/broker/rootfs.js';
import { brokerVersion } from '../harness/broker/versions.js';
import { describeWithBroker, getBroker, type BrokerHandle } from './support/with-broker.js';
import { managementRequest } from './support/management-api.js';
import { toolsRequired } from '../support/required-tools.js';

const api = (b: BrokerHandle, method: string, p: string, body?: unknown) => managementRequest(b)(method, p, body);

describeWithBroker('private RabbitMQ node', (broker) => {
  afterAll(async () => {
    // leave the shared broker as we found it
    await api(broker, 'DELETE', '/api/queues/%2F/harness-q').catch(() => undefined);
  });

  it('is isolated: own node name, ports on 127.0.0.1, temp dir', () => {
    expect(broker.nodeName).toMatch(/^rmqexp-test-\d+-[a-z0-9]+@localhost$/);
    const ports = [broker.amqpPort, broker.managementPort, broker.prometheusPort, broker.distPort, broker.epmdPort];
    expect(new Set(ports).size).toBe(5);
    for (const p of ports) expect(p).not.toBeOneOf([4369, 5672, 15672, 15692, 25672]);
    expect(broker.managementUrl).toBe(`http://127.0.0.1:${broker.managementPort}`);
    expect(broker.env.ERL_EPMD_PORT).toBe(String(broker.epmdPort));
    expect(broker.env.HOME).toBe(broker.dir);
  });

  it('answers GET /api/overview with the management_version of its project', async () => {
    const res = await api(broker, 'GET', '/api/overview');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text) as { management_version: string; node: string };
    expect(body.management_version.startsWith(`${broker.brokerVersion}.`), body.management_version).toBe(true);
    expect(body.node).toBe(broker.nodeName);
    // Which broker this run tested (sid moves): printed with the test output.
    const suite = brokerVersion(broker.brokerVersion).suite;
    console.log(`RabbitMQ ${body.management_version} from ${suite ? `Debian ${suite} (package ${rootfsRabbitVersion(suite)})` : 'the host package'}`);
  });

  it('runs a second node of the same version beside it, and leaves nothing mounted', async () => {
    const second = await startBroker({ version: broker.brokerVersion, nodeNamePrefix: 'rmqexp-second' });
    try {
      expect(second.nodeName).not.toBe(broker.nodeName);
      const ports = [second.amqpPort, second.managementPort, second.prometheusPort, second.distPort, second.epmdPort];
      for (const p of ports) expect([broker.amqpPort, broker.managementPort, broker.prometheusPort, broker.distPort, broker.epmdPort]).not.toContain(p);
      expect(second.dir).not.toBe(broker.dir);
      expect(second.env.HOME).toBe(second.dir);
      expect(fs.readFileSync(`${second.dir}/.erlang.cookie`, 'utf8')).not.toBe(fs.readFileSync(`${broker.dir}/.erlang.cookie`, 'utf8'));
      expect(await second.ctl(['-q', 'eval', 'node().'])).toContain(second.nodeName);
    } finally {
      await second.stop();
    }
    // The first node is untouched by the second one's start and stop.
    expect((await api(broker, 'GET', '/api/overview')).status).toBe(200);
    expect(await broker.ctl(['-q', 'eval', 'node().'])).toContain(broker.nodeName);
    // /proc and the temp directory are mounted in the node's private mount namespace only.
    if (broker.rootfs) expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(broker.rootfs);
  });

  it('has the shovel and federation management APIs', async () => {
    for (const p of ['/api/shovels', '/api/federation-links']) {
      const res = await api(broker, 'GET', p);
      expect(res.status, p).toBe(200);
      expect(Array.isArray(JSON.parse(res.text))).toBe(true);
    }
  });

  it('serves rabbitmq_prometheus on its own port', async () => {
    const res = await fetch(`${broker.prometheusUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('rabbitmq_');
  });

  it('runs rabbitmqctl against the private node', async () => {
    const out = await broker.ctl(['list_queues']);
    expect(out).toContain('Listing queues');
    await expect(broker.ctl(['no_such_command'])).rejects.toThrow(/rabbitmqctl/);
  });

  it('sees a queue declared over HTTP in rabbitmqctl list_queues', async () => {
    const res = await api(broker, 'PUT', '/api/queues/%2F/harness-q', { durable: false, auto_delete: false, arguments: {} });
    expect([201, 204]).toContain(res.status);
    const out = await broker.ctl(['-q', '--no-table-headers', 'list_queues', 'name', 'messages']);
    const rows = out
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    expect(rows).toContainEqual(['harness-q', '0']);
  });

  it('stopApp() takes the management API down and startApp() brings it back', async () => {
    await broker.stopApp();
    try {
      const down = await api(broker, 'GET', '/api/overview').then(
        (r) => r.status,
        () => 'refused',
      );
      expect(down).not.toBe(200);
    } finally {
      await broker.startApp();
    }
    const res = await api(broker, 'GET', '/api/overview');
    expect(res.status).toBe(200);
  });
});

const needPromtool = !!promtoolPath() || toolsRequired();
describe.skipIf(!needPromtool)('promtool check metrics', () => {
  it('accepts a valid exposition', async () => {
    const r = await checkMetricsWithPromtool(
      '# HELP rabbitmq_up Whether the broker answered.\n# TYPE rabbitmq_up gauge\nrabbitmq_up 1\n' +
        '# HELP rabbitmq_messages_published_total Published messages.\n# TYPE rabbitmq_messages_published_total counter\nrabbitmq_messages_published_total 3\n',
    );
    expect(r.output).toBe('');
    expect(r.ok).toBe(true);
  });

  it('rejects a counter without _total', async () => {
    const r = await checkMetricsWithPromtool('# HELP foo_published A counter.\n# TYPE foo_published counter\nfoo_published 1\n');
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/_total/);
  });
});

// The chroot versions' root file systems: a failed build names its step. Run once, by the 4.0 project.
const buildScript = path.join(import.meta.dirname, '../harness/broker/build-rootfs.sh');
describe.skipIf(getBroker()?.brokerVersion !== '4.0')('build-rootfs.sh', () => {
  const run = (args: string[], env: Record<string, string>) => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-rootfs-'));
    try {
      return spawnSync('bash', [buildScript, ...args], { env: { ...process.env, BROKER_ROOTFS_CACHE: cache, ...env }, encoding: 'utf8', timeout: 120_000 });
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  };

  it('names the step that failed: a bad suite name, an unreachable mirror', () => {
    const bad = run(['../etc'], {});
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("build-rootfs ../etc: step arguments failed: unexpected suite name '../etc'");
    const unreachable = run(['trixie'], { BROKER_ROOTFS_MIRROR: 'http://127.0.0.1:9/debian' });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/build-rootfs trixie: step debootstrap failed: debootstrap trixie \S+ http:\/\/127\.0\.0\.1:9\/debian/);
  });
});
