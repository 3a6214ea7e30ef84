// The shipped dashboards and rules against a real Prometheus scraping the built exporter, which
// watches the private broker while a small workload runs: every variable, panel query and rule
// expression goes through Prometheus's HTTP API; none may fail, and none may come back empty
// except the panels listed below with the reason.
import { join } from 'node:path';
import amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DASHBOARDS, dashboardPath } from '../../tools/dashboards/dashboard-files.js';
import { alertRules } from '../../tools/dashboards/alerts.js';
import { recordingRules } from '../../tools/dashboards/recording-rules.js';
import { RULES_FILE } from '../../tools/dashboards/rule-files.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';
import { dashboardJson, OFF_BY_DEFAULT_PANELS, panelsWithoutData, panelTargets, regexValues, variableValues } from './support/dashboard-queries.js';
import { atLeast } from '../harness/broker/versions.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const VHOST = 'dash-e2e';
const USER = 'dash-e2e-user';
const PASSWORD = 'dash-e2e-password';
const WORK = 'dash-work';
const BACKLOG = 'dash-backlog';

/** Panel targets with no data in this scenario, and why: `<dashboard uid> / <panel title> / <legend>`. */
const emptyHere = (version: string): Record<string, string> => ({
  ...OFF_BY_DEFAULT_PANELS,
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / connections {{vhost}}': 'the test broker runs without the rabbitmq_stream_management plugin',
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / publishers {{vhost}}': 'the test broker runs without the rabbitmq_stream_management plugin',
  'rabbitmq-exporter-connections / Stream connections, publishers and consumers / consumers {{vhost}}': 'the test broker runs without the rabbitmq_stream_management plugin',
  'rabbitmq-exporter-nodes / Inter-node traffic / sent {{node}} → {{peer}}': 'a single-node broker has no inter-node links',
  'rabbitmq-exporter-nodes / Inter-node traffic / received {{node}} ← {{peer}}': 'a single-node broker has no inter-node links',
  ...(atLeast(version, '4.0')
    ? {
        'rabbitmq-exporter-nodes / TCP sockets / open {{node}}': 'RabbitMQ 4.0 dropped the socket limit; the exporter serves no socket series there (docs/versions.md)',
        'rabbitmq-exporter-nodes / TCP sockets / limit {{node}}': 'RabbitMQ 4.0 dropped the socket limit; the exporter serves no socket series there (docs/versions.md)',
      }
    : {}),
});

describeWithBroker('shipped dashboards and rules on a real Prometheus', (broker) => {
  let exporter: ExporterProcess;
  let prometheus: PrometheusProcess;
  const models: amqp.ChannelModel[] = [];
  let workload: NodeJS.Timeout | undefined;
  const api = managementApi(broker);
  const amqpUrl = (user: string, password: string) => `amqp://${user}:${password}@127.0.0.1:${broker.amqpPort}/${encodeURIComponent(VHOST)}`;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error('prometheus is not installed (.ci/run installs Debian\'s prometheus package)');
    const all = { configure: '.*', write: '.*', read: '.*' };
    await api('PUT', `/api/vhosts/${VHOST}`, {});
    await api('PUT', `/api/permissions/${VHOST}/${broker.username}`, all);
    await api('PUT', `/api/users/${USER}`, { password: PASSWORD, tags: '' });
    await api('PUT', `/api/permissions/${VHOST}/${USER}`, all);
    // Limits the two connections below reach, so the near-limit alerts have something to see.
    await api('PUT', `/api/vhost-limits/${VHOST}/max-connections`, { value: 2 });
    await api('PUT', `/api/user-limits/${USER}/max-connections`, { value: 1 });

    const main = await amqp.connect(amqpUrl(broker.username, broker.password));
    models.push(main, await amqp.connect(amqpUrl(USER, PASSWORD)));
    const publisher = await main.createConfirmChannel();
    await publisher.assertQueue(WORK, { durable: false });
    await publisher.assertQueue(BACKLOG, { durable: false });
    publisher.on('return', () => undefined);
    // dash-work: a manual-ack consumer that requeues every fifth new message once, and an auto-ack one.
    const manual = await main.createChannel();
    await manual.prefetch(10);
    let seen = 0;
    await manual.consume(WORK, (msg) => {
      if (!msg) return;
      if (!msg.fields.redelivered && ++seen % 5 === 0) manual.nack(msg, false, true);
      else manual.ack(msg);
    });
    const auto = await main.createChannel();
    await auto.consume(WORK, () => undefined, { noAck: true });
    // dash-backlog has no consumer and grows; its messages carry a timestamp. Unroutable
    // messages are dropped (not mandatory) and returned (mandatory).
    workload = setInterval(() => {
      const timestamp = Math.floor(Date.now() / 1000);
      publisher.sendToQueue(WORK, Buffer.from('w'));
      publisher.sendToQueue(BACKLOG, Buffer.from('b'), { timestamp });
      publisher.publish('amq.direct', 'nowhere', Buffer.from('d'));
      publisher.publish('amq.direct', 'nowhere', Buffer.from('r'), { mandatory: true });
    }, 100);

    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}\n`,
    });
    prometheus = await startPrometheus([new URL(exporter.url).host], '1s', { ruleFiles: [join(process.cwd(), RULES_FILE)] });
  });

  afterAll(async () => {
    if (workload) clearInterval(workload);
    await prometheus?.stop();
    await exporter?.stop();
    for (const m of models) await m.close().catch(() => undefined);
    await api('DELETE', `/api/vhosts/${VHOST}`).catch(() => undefined);
    await api('DELETE', `/api/users/${USER}`).catch(() => undefined);
  });

  /** Values of the dashboards' variables as Grafana would substitute them for this scenario. */
  async function variables(): Promise<Record<string, string>> {
    const instance = new URL(exporter.url).host;
    const cluster = await eventually(
      async () => (await prometheus.query('rabbitmq_identity_info'))[0]?.metric.rabbitmq_cluster,
      30_000,
      'rabbitmq_identity_info in Prometheus',
    );
    // One target: the exporter's own series are on the cluster's job and instance too.
    const regex = { job: 'rabbitmq', cluster, instance, vhost: VHOST, queue: WORK, exporter_job: 'rabbitmq', exporter: instance };
    return { ...regexValues(regex), __rate_interval: '15s' };
  }

  it('every variable of every dashboard finds the scenario\'s values', async () => {
    const vars = await variables();
    const instance = new URL(exporter.url).host;
    const expected: Record<string, string> = {
      job: 'rabbitmq',
      cluster: (await prometheus.query('rabbitmq_identity_info'))[0]!.metric.rabbitmq_cluster!,
      instance,
      vhost: VHOST,
      queue: WORK,
      exporter_job: 'rabbitmq',
      exporter: instance,
    };
    for (const spec of DASHBOARDS) {
      for (const v of dashboardJson(spec).templating.list.filter((x) => x.type === 'query')) {
        const values = await eventually(
          async () => {
            const found = await variableValues(prometheus, v.query ?? '', vars);
            return found.includes(expected[v.name]!) ? found : undefined;
          },
          60_000,
          `${dashboardPath(spec)} variable ${v.name} to list ${expected[v.name]}`,
        );
        expect(values).toContain(expected[v.name]);
      }
    }
  });

  it('every panel query runs, and returns data unless listed as empty in this scenario', async () => {
    const EMPTY_HERE = emptyHere(broker.version!);
    const vars = await variables();
    const targets = panelTargets(DASHBOARDS);
    expect(targets.length).toBeGreaterThan(80);
    // Rates need a few scrapes and the per-queue slope a few evaluations. A query error is final.
    const { empty, errors } = await panelsWithoutData(prometheus, targets, vars, EMPTY_HERE, 90_000);
    expect(errors).toEqual([]);
    // The list of legitimately empty panels stays true: each of them really is empty.
    expect(empty.sort()).toEqual(Object.keys(EMPTY_HERE).sort());
  }, 180_000);

  it('Prometheus evaluates every shipped rule without error; recording rules produce series', async () => {
    interface RuleGroup {
      rules: { name: string; type: string; health: string; lastError?: string }[];
    }
    const groups = await eventually(
      async () => {
        const data = await prometheus.api<{ groups: RuleGroup[] }>('/api/v1/rules');
        return data.groups.flatMap((g) => g.rules).every((r) => r.health !== 'unknown') ? data.groups : undefined;
      },
      60_000,
      'every rule to be evaluated',
    );
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual([...recordingRules.map((r) => r.record), ...alertRules.map((r) => r.alert)].sort());
    for (const r of rules) expect({ rule: r.name, health: r.health, error: r.lastError ?? '' }).toEqual({ rule: r.name, health: 'ok', error: '' });
    for (const rule of [...recordingRules, ...alertRules]) await prometheus.query(rule.expr); // throws on a query error
    for (const r of recordingRules) {
      const series = await eventually(async () => {
        const result = await prometheus.query(r.record);
        return result.length > 0 ? result : undefined;
      }, 60_000, `recorded series ${r.record}`);
      expect(series.some((s) => s.metric.vhost === VHOST)).toBe(true);
    }
  }, 120_000);

  it('the alerts this scenario provokes become pending or firing, with the broker\'s labels', async () => {
    const wanted: Record<string, string>[] = [
      { alertname: 'RabbitmqMessagesWithoutConsumer', vhost: VHOST, queue: BACKLOG },
      { alertname: 'RabbitmqUnroutableMessagesDropped', vhost: VHOST },
      { alertname: 'RabbitmqVhostNearLimit', vhost: VHOST, limit: 'max-connections' },
      { alertname: 'RabbitmqUserNearLimit', user: USER, limit: 'max-connections' },
    ];
    type Alert = { labels: Record<string, string>; state: string };
    const matches = (a: Alert, w: Record<string, string>) => Object.entries(w).every(([k, v]) => a.labels[k] === v);
    const alerts = await eventually(
      async () => {
        const data = await prometheus.api<{ alerts: Alert[] }>('/api/v1/alerts');
        return wanted.every((w) => data.alerts.some((a) => matches(a, w))) ? data.alerts : undefined;
      },
      90_000,
      `alerts ${wanted.map((w) => w.alertname).join(', ')}`,
    );
    for (const w of wanted) {
      const alert = alerts.find((a) => matches(a, w));
      expect(['pending', 'firing'], w.alertname).toContain(alert?.state);
    }
    // The exporter reaches the broker and every collector succeeds.
    const exporterAlerts = ['RabbitmqExporterDown', 'RabbitmqBrokerUnreachable', 'RabbitmqCollectorFailing', 'RabbitmqCollectorDataWithdrawn'];
    expect(alerts.filter((a) => exporterAlerts.includes(a.labels.alertname!)).map((a) => a.labels)).toEqual([]);
  }, 120_000);
});
