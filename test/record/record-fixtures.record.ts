/**
 * Records management API answers of a real RabbitMQ node into test/fixtures/rabbitmq-<version>/
 * (statistics on) and rabbitmq-<version>-stats-disabled/ (management.disable_stats and
 * management_agent.disable_metrics_collector), with a README naming the request and status of
 * each file. Not a test: run on purpose, one version at a time, e.g.
 *
 *   RECORD_FIXTURES=4.0 npx vitest run --project record
 *
 * The nodes are private (test/harness/broker/broker.ts). Bodies are pretty-printed with sorted keys.
 */
import amqp from 'amqplib';
import { expect, it } from 'vitest';
import { DEFAULT_PLUGINS, startBroker, type BrokerHandle } from '../harness/broker/broker.js';
import { rootfsRabbitVersion } from '../harness/broker/rootfs.js';
import { brokerVersion } from '../harness/broker/versions.js';
import { Recorder, sleep } from './recorder.js';

const version = process.env.RECORD_FIXTURES ?? '';
const STATS_OFF = ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'];

const enc = encodeURIComponent;

/** Queues of each type, one with a backlog and a policy, a consumer, a vhost: the state recorded. */
async function populate(rec: Recorder, broker: BrokerHandle, statsOn: boolean): Promise<amqp.ChannelModel> {
  await rec.put('/api/vhosts/vh1', {});
  await rec.put(`/api/permissions/vh1/${broker.username}`, { configure: '.*', write: '.*', read: '.*' });
  await rec.put('/api/queues/%2F/fx.classic', { durable: true, arguments: { 'x-queue-type': 'classic' } });
  await rec.put('/api/queues/%2F/fx.quorum', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await rec.put('/api/queues/%2F/fx.stream', { durable: true, arguments: { 'x-queue-type': 'stream' } });
  await rec.put('/api/queues/vh1/fx.vh1-classic', { durable: true, arguments: {} });
  await rec.put('/api/queues/%2F/fx.backlog', { durable: true, arguments: {} });
  await rec.put('/api/policies/%2F/fx-backlog-ttl', { pattern: '^fx\\.backlog$', definition: { 'message-ttl': 3_600_000 }, 'apply-to': 'queues' });
  const conn = await amqp.connect(broker.amqpUrl);
  const ch = await conn.createConfirmChannel();
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 20; i++) ch.sendToQueue('fx.backlog', Buffer.from(`m${i}`), { persistent: true, timestamp: now });
  for (let i = 0; i < 5; i++) ch.sendToQueue('fx.quorum', Buffer.from(`q${i}`), { persistent: true });
  for (let i = 0; i < 5; i++) ch.sendToQueue('fx.stream', Buffer.from(`s${i}`), { persistent: true });
  for (let i = 0; i < 3; i++) ch.sendToQueue('fx.classic', Buffer.from(`c${i}`), { persistent: true });
  await ch.waitForConfirms();
  // One consumer holding 2 unacknowledged messages of fx.classic.
  const cch = await conn.createChannel();
  await cch.prefetch(2);
  await cch.consume('fx.classic', () => undefined, { noAck: false });
  // Statistics refresh every second (collect_statistics_interval = 1000), a quorum queue's
  // counts with its tick (5 s): wait until every queue has its counts and the consumer is listed.
  const deadline = Date.now() + 60_000;
  while (statsOn) {
    const res = await fetch(`${broker.managementUrl}/api/queues`, { headers: { authorization: `Basic ${Buffer.from(`${broker.username}:${broker.password}`).toString('base64')}` } });
    const queues = (await res.json()) as { name: string; messages?: number; consumers?: number }[];
    const want: Record<string, number> = { 'fx.backlog': 20, 'fx.classic': 3, 'fx.quorum': 5, 'fx.stream': 5, 'fx.vh1-classic': 0 };
    const ready = queues.length === 5 && queues.every((q) => q.messages === want[q.name]) && queues.find((q) => q.name === 'fx.classic')?.consumers === 1;
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`queue statistics incomplete after 60 s: ${JSON.stringify(queues)}`);
    await sleep(500);
  }
  await sleep(2_000);
  return conn;
}

const SKIP = !version;
it.skipIf(SKIP)(`records the management API of RabbitMQ ${version}`, async () => {
  const { suite } = brokerVersion(version);
  for (const statsOn of [true, false]) {
    const broker = await startBroker({
      version,
      nodeNamePrefix: 'rmqexp-record',
      plugins: [...DEFAULT_PLUGINS, 'rabbitmq_stream', 'rabbitmq_stream_management'],
      extraConfig: statsOn ? [] : STATS_OFF,
    });
    let conn: amqp.ChannelModel | undefined;
    try {
      const full = broker.version!;
      const dir = `test/fixtures/rabbitmq-${full.replace(/\.\d+$/, '.x')}${statsOn ? '' : '-stats-disabled'}`;
      const rec = new Recorder(broker, dir);
      conn = await populate(rec, broker, statsOn);
      const node = enc(broker.nodeName);
      await rec.record('overview.json', '/api/overview');
      await rec.record('nodes.json', '/api/nodes');
      await rec.record('queues-page1.json', '/api/queues?page=1&page_size=100');
      await rec.record('queues.json', '/api/queues');
      await rec.record('queues-totals-page1.json', '/api/queues?page=1&page_size=100&enable_queue_totals=true');
      await rec.record('queues-disable-stats-page1.json', '/api/queues?disable_stats=true&enable_queue_totals=true&page=1&page_size=100');
      await rec.record('queues-detailed.json', '/api/queues/detailed?page=1&page_size=100');
      await rec.record('queue-single-backlog.json', '/api/queues/%2F/fx.backlog');
      await rec.record('exchanges-page1.json', '/api/exchanges?page=1&page_size=100');
      await rec.record('vhosts.json', '/api/vhosts');
      await rec.record('connections-page1.json', '/api/connections?page=1&page_size=20');
        await rec.record('node-memory.json', `/api/nodes/${node}?memory=true`);
        await rec.record('node-memory-b.json', `/api/nodes/${node}/memory`);
        await rec.record('queue-quorum.json', '/api/queues/%2F/fx.quorum');
        await rec.record('queue-stream.json', '/api/queues/%2F/fx.stream');
        await rec.record('queue-single-backlog-disable-stats.json', '/api/queues/%2F/fx.backlog?disable_stats=true&enable_queue_totals=true');
        await rec.record('queue-quorum-status.json', '/api/queues/quorum/%2F/fx.quorum/status');
        await rec.record('channels-page1.json', '/api/channels?page=1&page_size=20');
        await rec.record('consumers.json', '/api/consumers');
        await rec.record('vhost-limits.json', '/api/vhost-limits');
        await rec.record('user-limits.json', '/api/user-limits');
        await rec.record('whoami.json', '/api/whoami');
        await rec.record('auth.json', '/api/auth');
        await rec.record('extensions.json', '/api/extensions');
        await rec.record('cluster-name.json', '/api/cluster-name');
        await rec.record('version.json', '/api/version');
        await rec.record('feature-flags.json', '/api/feature-flags');
        await rec.record('deprecated-features.json', '/api/deprecated-features');
        await rec.record('deprecated-features-used.json', '/api/deprecated-features/used');
        await rec.record('federation-links.json', '/api/federation-links');
        await rec.record('shovels.json', '/api/shovels');
        await rec.record('stream-connections.json', '/api/stream/connections');
        await rec.record('stream-publishers.json', '/api/stream/publishers');
        await rec.record('stream-consumers.json', '/api/stream/consumers');
        await rec.record('health-alarms.json', '/api/health/checks/alarms');
        await rec.record('health-local-alarms.json', '/api/health/checks/local-alarms');
        await rec.record('health-vhosts.json', '/api/health/checks/virtual-hosts');
        await rec.record('health-quorum-critical.json', '/api/health/checks/node-is-quorum-critical');
        await rec.record('health-mirror-sync-critical.json', '/api/health/checks/node-is-mirror-sync-critical');
        await rec.record('health-cert.json', '/api/health/checks/certificate-expiration/30/days');
        await rec.record('health-port-listener.json', `/api/health/checks/port-listener/${broker.amqpPort}`);
        await rec.record('health-port-9999.json', '/api/health/checks/port-listener/9999');
        await rec.record('health-proto-amqp.json', '/api/health/checks/protocol-listener/amqp');
        await rec.record('health-proto-amqp091.json', '/api/health/checks/protocol-listener/amqp091');
        await rec.record('health-proto-mqtt.json', '/api/health/checks/protocol-listener/mqtt');
        await rec.record('health-qq-without-leaders.json', '/api/health/checks/quorum-queues-without-elected-leaders/all-vhosts/');
        await rec.record('health-below-connection-limit.json', '/api/health/checks/below-node-connection-limit');
        await rec.record('health-ready-to-serve-clients.json', '/api/health/checks/ready-to-serve-clients');
        await rec.record('health-is-in-service.json', '/api/health/checks/is-in-service');
        await rec.record('health-metadata-store-initialized.json', '/api/health/checks/metadata-store/initialized');
        await rec.record('health-reached-target-cluster-size.json', '/api/health/checks/reached-target-cluster-size');
        await rec.record('aliveness-root.json', '/api/aliveness-test/%2F');
        await rec.record('unauth-bad.json', '/api/queues/vh1/doesnotexist');
        await rec.record('unauthorized.json', '/api/overview', `${broker.username}:wrong-password`);
      const from = suite ? `Debian ${suite} package rabbitmq-server ${rootfsRabbitVersion(suite)} in a chroot` : 'the host package';
      rec.writeReadme(`RabbitMQ ${full}${statsOn ? '' : ', statistics disabled'}: recorded answers`, [
        `Recorded on ${new Date().toISOString().slice(0, 10)} by test/record/record-fixtures.record.ts (\`RECORD_FIXTURES=${version} npx vitest run --project record\`)`,
        `from a private node of RabbitMQ ${full} (${from}; node \`${broker.nodeName}\`, plugins management, prometheus,`,
        `shovel, federation, stream, with their management plugins)${statsOn ? '.' : `, with \`${STATS_OFF.join('` and `')}\` in rabbitmq.conf.`}`,
        'State: vhosts `/` and `vh1`; queues `fx.classic` (3 messages, one consumer with prefetch 2), `fx.quorum` (5),',
        '`fx.stream` (5), `fx.backlog` (20 messages with a timestamp, policy `fx-backlog-ttl`), `vh1/fx.vh1-classic`;',
        'one AMQP connection with two channels. Bodies are pretty-printed with sorted keys; node-specific values',
        '(ports, node name, pids) are as recorded. The status column is the HTTP status of the answer.',
      ]);
      expect(rec.entries.find((e) => e.file === 'overview.json')?.status).toBe(200);
    } finally {
      await conn?.close().catch(() => undefined);
      await broker.stop();
    }
  }
}, 300_000);
