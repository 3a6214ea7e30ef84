// Issue 15: the alert rules samber/awesome-prometheus-alerts publishes for kbudde/rabbitmq_exporter
// (test/fixtures/kbudde/awesome-alerts.yaml) on a real Prometheus scraping the built exporter under
// the kbudde profile, started from kbudde's environment. The placeholder selectors (my-queue,
// my-exchange, my-dead-letter-queue) are rewritten to objects the scenario creates and `for` to 0s
// (the expression is under test, not the operator's patience). Every rule must evaluate without
// error; the rules whose condition the scenario sets up must fire, on the objects that set it up.
// The queue rules read kbudde's queue families, which the queue module of the profile serves.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { freePort } from '../harness/ports.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const VHOST = 'kbudde-alerts';
const DEAD_LETTER = 'ka-dead-letter';
const EXPIRING = 'ka-expiring';
const BACKLOG = 'ka-backlog';
const BUSY = 'ka-busy';
const QUIET = 'ka-quiet';
const DEAD_LETTERED = 12;
const BACKLOG_MESSAGES = 1001;

interface Rule {
  alert: string;
  expr: string;
  for: string;
}

/** The published rules with the scenario's objects in their selectors and `for: 0s`. */
function scenarioRules(): { groups: { name: string; rules: Rule[] }[] } {
  const published = parseYaml(readFileSync('test/fixtures/kbudde/awesome-alerts.yaml', 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
  const queueOf: Record<string, string> = { RabbitmqTooManyMessagesInQueue: BACKLOG, RabbitmqSlowQueueConsuming: BACKLOG, RabbitmqTooManyConsumers: BUSY };
  for (const group of published.groups) {
    for (const rule of group.rules) {
      const before = rule.expr;
      rule.expr = rule.expr
        .replace('queue="my-dead-letter-queue"', `queue="${DEAD_LETTER}"`)
        .replace('queue="my-queue"', `queue="${queueOf[rule.alert] ?? 'unexpected'}"`)
        .replace('exchange="my-exchange"', `exchange="${QUIET}"`);
      expect(rule.expr.includes('my-'), `${rule.alert}: ${before}`).toBe(false);
      rule.for = '0s';
    }
  }
  return published;
}

interface RuleState {
  name: string;
  health: string;
  state: string;
  lastError?: string;
  alerts: { labels: Record<string, string>; state: string }[];
}

describeWithBroker('awesome-prometheus-alerts kbudde rules on a real Prometheus', (broker) => {
  const api = managementApi(broker);
  const v = encodeURIComponent(VHOST);
  const dir = mkdtempSync(join(tmpdir(), 'rmqexp-kbudde-alerts-'));
  const models: amqp.ChannelModel[] = [];
  let healthy: ExporterProcess;
  let dead: ExporterProcess;
  let prometheus: PrometheusProcess;
  let quietTraffic: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error("prometheus is not installed (.ci/run installs Debian's prometheus package)");
    await api('PUT', `/api/vhosts/${v}`, {});
    await api('PUT', `/api/permissions/${v}/${broker.username}`, { configure: '.*', write: '.*', read: '.*' });
    const connection = await amqp.connect(`amqp://${broker.username}:${broker.password}@127.0.0.1:${broker.amqpPort}/${v}`);
    models.push(connection);
    const channel = await connection.createConfirmChannel();
    // Messages expire at once in ka-expiring and are dead-lettered into ka-dead-letter.
    await channel.assertQueue(DEAD_LETTER, { durable: false });
    await channel.assertQueue(EXPIRING, { durable: false, arguments: { 'x-message-ttl': 1, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': DEAD_LETTER } });
    for (let i = 0; i < DEAD_LETTERED; i++) channel.sendToQueue(EXPIRING, Buffer.from('x'));
    // ka-backlog: over 1000 ready messages, no consumer, the oldest stamped an hour ago.
    await channel.assertQueue(BACKLOG, { durable: false });
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    for (let i = 0; i < BACKLOG_MESSAGES; i++) channel.sendToQueue(BACKLOG, Buffer.from('b'), { timestamp: hourAgo + i });
    await channel.waitForConfirms();
    // ka-busy: two consumers; ka-quiet: one message a second into it, below the rule's 5 per second.
    await channel.assertQueue(BUSY, { durable: false });
    for (let i = 0; i < 2; i++) await (await connection.createChannel()).consume(BUSY, () => undefined, { noAck: true });
    await channel.assertExchange(QUIET, 'fanout', { durable: false });
    await channel.bindQueue(BUSY, QUIET, '');
    quietTraffic = setInterval(() => channel.publish(QUIET, '', Buffer.from('q')), 1000);
    await eventually(async () => {
      const queue = await api<{ messages?: number }>('GET', `/api/queues/${v}/${DEAD_LETTER}`);
      return queue.messages === DEAD_LETTERED ? true : undefined;
    }, 30_000, `${DEAD_LETTERED} messages dead-lettered into ${DEAD_LETTER}`);

    const kbudde = (url: string) =>
      startExporter({
        listenAddressConfigured: true,
        // --poll.interval: the rules' rates need several polls within their window; everything else is kbudde's environment.
        args: ['--poll.interval=1s'],
        env: { EXPORTER_NAMING: 'kbudde', RABBIT_URL: url, RABBIT_USER: broker.username, RABBIT_PASSWORD: broker.password, PUBLISH_PORT: '0', PUBLISH_ADDR: '127.0.0.1' },
      });
    healthy = await kbudde(broker.managementUrl);
    // A second exporter whose broker does not answer: rabbitmq_up 0 there.
    dead = await kbudde(`http://127.0.0.1:${await freePort()}`);
    const rules = join(dir, 'kbudde-rules.yml');
    writeFileSync(rules, stringifyYaml(scenarioRules()));
    prometheus = await startPrometheus([new URL(healthy.url).host, new URL(dead.url).host], '1s', { ruleFiles: [rules] });
  }, 120_000);

  afterAll(async () => {
    if (quietTraffic) clearInterval(quietTraffic);
    await prometheus?.stop();
    await healthy?.stop();
    await dead?.stop();
    for (const m of models) await m.close().catch(() => undefined);
    await api('DELETE', `/api/vhosts/${v}`).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  async function rules(): Promise<RuleState[]> {
    const data = await prometheus.api<{ groups: { rules: RuleState[] }[] }>('/api/v1/rules');
    return data.groups.flatMap((g) => g.rules);
  }

  /** Waits until the rule fires with an alert whose labels include `labels`. */
  async function firing(name: string, labels: Record<string, string>): Promise<void> {
    await eventually(
      async () => {
        const rule = (await rules()).find((r) => r.name === name);
        const hit = rule?.alerts.find((a) => a.state === 'firing' && Object.entries(labels).every(([k, value]) => a.labels[k] === value));
        return hit ? true : undefined;
      },
      30_000,
      `${name} firing for ${JSON.stringify(labels)}`,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\n${JSON.stringify((await rules()).find((r) => r.name === name))}`);
    });
  }

  it('evaluates every published rule without error', async () => {
    const evaluated = await eventually(async () => {
      const all = await rules();
      return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
    }, 60_000, 'every rule to be evaluated');
    expect(evaluated.map((r) => r.name).sort()).toEqual(scenarioRules().groups.flatMap((g) => g.rules.map((r) => r.alert)).sort());
    for (const r of evaluated) expect({ rule: r.name, health: r.health, error: r.lastError ?? '' }).toEqual({ rule: r.name, health: 'ok', error: '' });
  });

  it('RabbitmqDown fires for the exporter whose broker does not answer, and not for the healthy one', async () => {
    const deadInstance = new URL(dead.url).host;
    await firing('RabbitmqDown', { instance: deadInstance });
    await eventually(async () => {
      const alerts = (await rules()).find((r) => r.name === 'RabbitmqDown')!.alerts;
      return alerts.length === 1 && alerts[0]!.labels.instance === deadInstance ? true : undefined;
    }, 30_000, 'RabbitmqDown for the dead exporter alone');
  });

  it('RabbitmqClusterDown fires: one running node is fewer than 3', async () => {
    await firing('RabbitmqClusterDown', {});
  });

  it('RabbitmqInactiveExchange fires for the exchange with one message a second', async () => {
    await firing('RabbitmqInactiveExchange', { exchange: QUIET, vhost: VHOST });
  });

  it('the rules the scenario does not set up stay inactive, on families that have series', async () => {
    for (const family of ['rabbitmq_partitions', 'rabbitmq_node_mem_used', 'rabbitmq_node_mem_limit', 'rabbitmq_connections']) {
      await eventually(async () => ((await prometheus.query(family)).length > 0 ? true : undefined), 30_000, `${family} in Prometheus`);
    }
    const all = await rules();
    for (const name of ['RabbitmqClusterPartition', 'RabbitmqOutOfMemory', 'RabbitmqInstanceTooManyConnections']) {
      expect(all.find((r) => r.name === name)?.state, name).toBe('inactive');
    }
  });

  // These read kbudde's queue families (the profile's queue module).
  it('RabbitmqDeadLetterQueueFillingUp fires for the queue messages are dead-lettered into', async () => {
    await firing('RabbitmqDeadLetterQueueFillingUp', { queue: DEAD_LETTER, vhost: VHOST });
  });

  it('RabbitmqTooManyMessagesInQueue fires for the queue with over 1000 ready messages', async () => {
    await firing('RabbitmqTooManyMessagesInQueue', { queue: BACKLOG, vhost: VHOST });
  });

  it('RabbitmqSlowQueueConsuming fires for the queue whose head message is an hour old', async () => {
    await firing('RabbitmqSlowQueueConsuming', { queue: BACKLOG, vhost: VHOST });
  });

  it('RabbitmqNoConsumer fires for a queue without consumers, not for the one with two', async () => {
    await firing('RabbitmqNoConsumer', { queue: BACKLOG, vhost: VHOST });
    const alerts = (await rules()).find((r) => r.name === 'RabbitmqNoConsumer')!.alerts;
    expect(alerts.some((a) => a.labels.queue === BUSY && a.labels.vhost === VHOST)).toBe(false);
  });

  it('RabbitmqTooManyConsumers fires for the queue with two consumers', async () => {
    await firing('RabbitmqTooManyConsumers', { queue: BUSY, vhost: VHOST });
  });
});
