/**
 * Records the management API of a real two-node cluster, both nodes running and then one
 * stopped, into test/fixtures/rabbitmq-<version>-cluster/ (the counterpart of the 3.10.8
 * recordings in rabbitmq-3.10.8-cluster/). Not a test: run on purpose, one version at a time:
 *
 *   RECORD_FIXTURES=4.3 npx vitest run --project record test/record/record-cluster.record.ts
 *
 * Two private nodes of the same version (test/harness/broker/broker.ts): `rabbit2-…` is started
 * with the epmd and cookie of `rabbit1-…` and joins it with `rabbitmqctl join_cluster`; later
 * `rabbitmqctl stop_app` stops it (its Erlang node stays up, as in the 3.10.8 recording). Every
 * answer is read from rabbit1's management API.
 */
import amqp from 'amqplib';
import { expect, it } from 'vitest';
import { DEFAULT_PLUGINS, startBroker, type BrokerHandle, type BrokerInfo } from '../harness/broker/broker.js';
import { joinCluster } from '../harness/broker/cluster.js';
import { rootfsRabbitVersion } from '../harness/broker/rootfs.js';
import { brokerVersion } from '../harness/broker/versions.js';
import { Recorder, sleep } from './recorder.js';

const version = process.env.RECORD_FIXTURES ?? '';

async function api(node: BrokerInfo, method: string, p: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${node.managementUrl}${p}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from(`${node.username}:${node.password}`).toString('base64')}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p} on ${node.nodeName}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Polls `check` every 500 ms until it returns true; throws `what` with the last answer after 90 s. */
async function until(what: string, check: () => Promise<[boolean, unknown]>): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const [done, last] = await check();
    if (done) return;
    if (Date.now() > deadline) throw new Error(`${what} within 90 s; last: ${JSON.stringify(last)}`);
    await sleep(500);
  }
}

type Queue = { name: string; node?: string; messages?: number; members?: string[]; online?: string[] };

it.skipIf(!version)(`records a two-node cluster of RabbitMQ ${version} with one node stopped`, async () => {
  const { suite } = brokerVersion(version);
  let rabbit1: BrokerHandle | undefined;
  let rabbit2: BrokerHandle | undefined;
  let conn: amqp.ChannelModel | undefined;
  try {
    rabbit1 = await startBroker({ version, nodeNamePrefix: 'rabbit1', plugins: DEFAULT_PLUGINS });
    rabbit2 = await startBroker({ version, nodeNamePrefix: 'rabbit2', plugins: DEFAULT_PLUGINS, peerOf: rabbit1.info });
    await joinCluster(rabbit2, rabbit1.info);
    const full = rabbit1.version!;
    const dir = `test/fixtures/rabbitmq-${full.replace(/\.\d+$/, '.x')}-cluster`;
    const rec = new Recorder(rabbit1.info, dir);

    // A quorum queue with a member on each node, declared on rabbit1; a classic queue declared
    // through rabbit2's API, so it lives on rabbit2 (queue leaders are client-local by default).
    await api(rabbit1, 'PUT', '/api/policies/%2F/fx-policy', { pattern: '^fx\\.', definition: { 'max-length': 5000 }, 'apply-to': 'queues' });
    await api(rabbit1, 'PUT', '/api/queues/%2F/fx.quorum2', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await api(rabbit2, 'PUT', '/api/queues/%2F/fx.on-rabbit2', { durable: true, arguments: { 'x-queue-type': 'classic' } });
    conn = await amqp.connect(rabbit1.amqpUrl);
    const ch = await conn.createConfirmChannel();
    for (let i = 0; i < 4; i++) ch.sendToQueue('fx.quorum2', Buffer.from(`q${i}`), { persistent: true });
    for (let i = 0; i < 3; i++) ch.sendToQueue('fx.on-rabbit2', Buffer.from(`c${i}`), { persistent: true });
    await ch.waitForConfirms();
    await until('the queues to show their members and counts', async () => {
      const qq = (await api(rabbit1!, 'GET', '/api/queues/%2F/fx.quorum2')) as Queue;
      const cq = (await api(rabbit1!, 'GET', '/api/queues/%2F/fx.on-rabbit2')) as Queue;
      return [qq.messages === 4 && qq.online?.length === 2 && cq.messages === 3 && cq.node === rabbit2!.nodeName, [qq, cq]];
    });
    await sleep(2_000);

    const node1 = encodeURIComponent(rabbit1.nodeName);
    await rec.record('overview.json', '/api/overview');
    await rec.record('nodes.json', '/api/nodes');
    await rec.record('node-memory-b.json', `/api/nodes/${node1}/memory`);
    await rec.record('queue-quorum2.json', '/api/queues/%2F/fx.quorum2');
    await rec.record('queue-on-rabbit2.json', '/api/queues/%2F/fx.on-rabbit2');
    await rec.record('vhost-root.json', '/api/vhosts/%2F');
    await rec.record('health-quorum-critical.json', '/api/health/checks/node-is-quorum-critical');

    const stoppedAt = Date.now();
    await rabbit2.ctl(['stop_app']);
    await until(`GET /api/nodes of ${rabbit1.nodeName} to say ${rabbit2.nodeName} is not running`, async () => {
      const nodes = (await api(rabbit1!, 'GET', '/api/nodes')) as { name: string; running: boolean }[];
      return [nodes.some((n) => n.name === rabbit2!.nodeName && n.running === false), nodes.map((n) => [n.name, n.running])];
    });
    await until('the quorum queue to show one member online', async () => {
      const qq = (await api(rabbit1!, 'GET', '/api/queues/%2F/fx.quorum2')) as Queue;
      return [qq.online?.length === 1, qq];
    });
    await sleep(2_000);
    const downFor = Math.round((Date.now() - stoppedAt) / 1000);
    await rec.record('nodes-rabbit2-down.json', '/api/nodes');
    await rec.record('overview-rabbit2-down.json', '/api/overview');
    await rec.record('queue-quorum2-rabbit2-down.json', '/api/queues/%2F/fx.quorum2');
    await rec.record('queue-on-rabbit2-rabbit2-down.json', '/api/queues/%2F/fx.on-rabbit2');
    await rec.record('queues-rabbit2-down.json', '/api/queues?page=1&page_size=100');
    await rec.record('vhost-root-rabbit2-down.json', '/api/vhosts/%2F');
    await rec.record('vhosts-rabbit2-down.json', '/api/vhosts');
    await rec.record('exchanges-rabbit2-down.json', '/api/exchanges?page=1&page_size=100');
    await rec.record('connections-rabbit2-down.json', '/api/connections?page=1&page_size=20');
    await rec.record('channels-rabbit2-down.json', '/api/channels?page=1&page_size=20');
    await rec.record('consumers-rabbit2-down.json', '/api/consumers');
    await rec.record('health-vhosts-rabbit2-down.json', '/api/health/checks/virtual-hosts');
    await rec.record('health-alarms-rabbit2-down.json', '/api/health/checks/alarms');
    await rec.record('health-local-alarms-rabbit2-down.json', '/api/health/checks/local-alarms');
    await rec.record('health-quorum-critical-rabbit2-down.json', '/api/health/checks/node-is-quorum-critical');
    await rec.record('health-qq-without-leaders-rabbit2-down.json', '/api/health/checks/quorum-queues-without-elected-leaders/all-vhosts/');
    await rec.record('health-reached-target-cluster-size-rabbit2-down.json', '/api/health/checks/reached-target-cluster-size');
    await rec.record('health-ready-to-serve-clients-rabbit2-down.json', '/api/health/checks/ready-to-serve-clients');
    await rec.record('health-is-in-service-rabbit2-down.json', '/api/health/checks/is-in-service');
    await rec.record('health-below-connection-limit-rabbit2-down.json', '/api/health/checks/below-node-connection-limit');
    await rec.record('health-metadata-store-initialized-rabbit2-down.json', '/api/health/checks/metadata-store/initialized');

    const from = suite ? `Debian ${suite} package rabbitmq-server ${rootfsRabbitVersion(suite)} in a chroot` : 'the host package';
    rec.writeReadme(`RabbitMQ ${full}, a two-node cluster with one node stopped: recorded answers`, [
      `Recorded on ${new Date().toISOString().slice(0, 10)} by test/record/record-cluster.record.ts`,
      `(\`RECORD_FIXTURES=${version} npx vitest run --project record test/record/record-cluster.record.ts\`) from two private`,
      `nodes of RabbitMQ ${full} (${from}; plugins management, prometheus, shovel, federation, with their`,
      `management plugins): \`${rabbit1.nodeName}\` ("rabbit1") and \`${rabbit2.nodeName}\` ("rabbit2"), which shares`,
      "rabbit1's epmd and cookie and joined it with `rabbitmqctl join_cluster`. Every answer is rabbit1's.",
      'State: policy `fx-policy` (max-length 5000) on `^fx\\.`; `fx.quorum2`, a quorum queue with a member on each node',
      '(4 messages); `fx.on-rabbit2`, a classic queue declared through rabbit2 and living there (3 messages); one AMQP',
      'connection to rabbit1. Files without `-rabbit2-down` were recorded with both nodes running; files with it',
      `${downFor} s after \`rabbitmqctl -n rabbit2 stop_app\` (the Erlang node of rabbit2 stays up, its RabbitMQ`,
      'application is stopped), once rabbit1 listed rabbit2 as not running and the quorum queue had one member online.',
      'Bodies are pretty-printed with sorted keys. The status column is the HTTP status of the answer.',
    ]);
    expect(rec.entries.find((e) => e.file === 'nodes-rabbit2-down.json')?.status).toBe(200);
  } finally {
    await conn?.close().catch(() => undefined);
    // rabbit1 owns the epmd both use: stop rabbit2 first.
    await rabbit2?.stop();
    await rabbit1?.stop();
  }
}, 600_000);
