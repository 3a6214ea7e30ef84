// Issue 14: several targets in one exporter against the real broker. Two targets watch the same
// node through different vhosts and users: /probe?target=NAME serves each one's queues with the
// values the API reports, and nothing of the other's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { documentedProbeScrapeConfig } from './support/dashboard-queries.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { prometheusAvailable, startPrometheus } from '../support/prometheus-process.js';

const enc = encodeURIComponent;
const READER = 'multi-target-reader';
const READER_PASSWORD = 'reader-pass-multi-4e7';
const QUEUES = { 'multi-a': { qa1: 3, qa2: 1 }, 'multi-b': { qb1: 5 } } as const;

describeWithBroker('several targets against a real RabbitMQ', (broker) => {
  let exporter: ExporterProcess;
  let dir: string;
  const api = managementApi(broker);
  const probe = async (name: string) => {
    const response = await fetch(`${exporter.url}/probe?target=${name}`);
    return { status: response.status, text: await response.text() };
  };
  /** The served value of a queue's series, found by its vhost and queue labels. */
  const queueValue = (samples: Map<string, number>, metric: string, vhost: string, queue: string) => {
    const key = [...samples.keys()].find((k) => k.startsWith(`${metric}{`) && k.includes(`vhost="${vhost}"`) && k.includes(`queue="${queue}"`));
    return key === undefined ? undefined : samples.get(key);
  };

  beforeAll(async () => {
    for (const [vhost, queues] of Object.entries(QUEUES)) {
      await api('PUT', `/api/vhosts/${enc(vhost)}`, {});
      await api('PUT', `/api/permissions/${enc(vhost)}/${enc(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
      for (const [queue, count] of Object.entries(queues)) {
        await api('PUT', `/api/queues/${enc(vhost)}/${enc(queue)}`, { durable: false, auto_delete: false });
        for (let i = 0; i < count; i++) {
          await api('POST', `/api/exchanges/${enc(vhost)}/amq.default/publish`, { properties: {}, routing_key: queue, payload: `m${i}`, payload_encoding: 'string' });
        }
      }
    }
    // Target b reads with a user of its own, allowed in multi-b only.
    await api('PUT', `/api/users/${READER}`, { password: READER_PASSWORD, tags: 'monitoring' });
    await api('PUT', `/api/permissions/multi-b/${READER}`, { configure: '', write: '', read: '.*' });
    dir = mkdtempSync(join(tmpdir(), 'rmqexp-targets-'));
    const passwordFile = join(dir, 'reader-password');
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`);
    exporter = await startExporter({
      configYaml: `
poll:
  interval: 1s
  jitter: 0
target:
  url: ${broker.managementUrl}
  username: ${broker.username}
collectors:
  queues:
    interval: 1s
targets:
  - name: a
    collectors:
      queues:
        vhosts:
          include: "^multi-a$"
      exchanges:
        vhosts:
          include: "^multi-a$"
      vhosts:
        vhosts:
          include: "^multi-a$"
  - name: b
    username: ${READER}
    password_file: ${passwordFile}
    collectors:
      queues:
        vhosts:
          include: "^multi-b$"
      exchanges:
        vhosts:
          include: "^multi-b$"
      vhosts:
        vhosts:
          include: "^multi-b$"
`,
      env: { RABBITMQ_PASSWORD: broker.password },
    });
  });

  afterAll(async () => {
    await exporter?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await api('DELETE', `/api/users/${READER}`).catch(() => undefined);
    for (const vhost of Object.keys(QUEUES)) await api('DELETE', `/api/vhosts/${enc(vhost)}`).catch(() => undefined);
  });

  it("each target's /probe serves its own vhost's queues with the API's values, and none of the other's", async () => {
    for (const [name, vhost, other] of [
      ['a', 'multi-a', 'multi-b'],
      ['b', 'multi-b', 'multi-a'],
    ] as const) {
      const queues = QUEUES[vhost] as Record<string, number>;
      // The API counts a queue's messages at the queue's next statistics tick (on 4.x, seconds after
      // the publish; before it both the API and the exporter say 0): wait for the API to count
      // what was published and for the exporter to serve what the API says.
      const seen = await eventually(
        async () => {
          const answer = await probe(name);
          const parsed = samples(answer.text);
          if (answer.status !== 200 || parsed.get('rabbitmq_up') !== 1) return undefined;
          const inApi = new Map<string, number>();
          for (const queue of Object.keys(queues)) {
            const { messages_ready: ready } = await api<{ messages_ready?: number }>('GET', `/api/queues/${enc(vhost)}/${enc(queue)}`);
            if (ready === undefined || ready !== queues[queue]) return undefined;
            if (queueValue(parsed, 'rabbitmq_queue_messages_ready', vhost, queue) !== ready) return undefined;
            inApi.set(queue, ready);
          }
          return { samples: parsed, api: inApi };
        },
        30_000,
        `the API to count the messages published to ${vhost} and target ${name} to serve them`,
      );
      const values = seen.samples;
      for (const queue of Object.keys(queues)) {
        expect(seen.api.get(queue), `${vhost}/${queue} in the API`).toBe(queues[queue]);
        expect(queueValue(values, 'rabbitmq_queue_messages_ready', vhost, queue), `${name}: ${vhost}/${queue}`).toBe(seen.api.get(queue));
      }
      expect([...values.keys()].filter((k) => k.includes(`vhost="${other}"`))).toEqual([]);
      // A target's answer carries its own series only: the exporter's process series are on /metrics.
      expect(values.has('rabbitmq_exporter_config_last_reload_successful')).toBe(false);
      const promtool = await checkMetricsWithPromtool((await probe(name)).text);
      expect(promtool.ok, promtool.output).toBe(true);
    }
  });

  it("/metrics carries the exporter's own series, no target's; the reader's password appears nowhere", async () => {
    const own = await exporter.metrics();
    expect(own.status).toBe(200);
    const values = samples(own.text);
    expect(values.get('rabbitmq_exporter_config_last_reload_successful')).toBe(1);
    expect(values.has('rabbitmq_up')).toBe(false);
    expect([...values.keys()].filter((k) => k.startsWith('rabbitmq_queue_'))).toEqual([]);
    const unknown = await probe('c');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('unknown target "c" (configured targets: a, b)\n');
    const landing = await (await fetch(`${exporter.url}/`)).text();
    expect(landing).toContain('<a href="/probe?target=a">');
    expect(landing).toContain('<a href="/probe?target=b">');
    for (const text of [exporter.logs(), landing, own.text, (await probe('b')).text]) expect(text).not.toContain(READER_PASSWORD);
  });

  it('a real Prometheus with the scrape config of docs/configuration.md scrapes each target as an instance of its own', async () => {
    if (!prometheusAvailable()) throw new Error("prometheus is not installed (.ci/run installs Debian's prometheus package)");
    const scrapeConfigs = documentedProbeScrapeConfig(['a', 'b'], new URL(exporter.url).host);
    const prometheus = await startPrometheus([], '1s', { scrapeConfigs });
    try {
      const ups = await eventually(
        async () => {
          const result = await prometheus.query('up');
          return result.length === 3 && result.every((r) => r.value[1] === '1') ? result : undefined;
        },
        30_000,
        'Prometheus to scrape both targets and the exporter',
      );
      expect(ups.map((r) => `${r.metric.job}/${r.metric.instance}`).sort()).toEqual([`rabbitmq-exporter/${new URL(exporter.url).host}`, 'rabbitmq/a', 'rabbitmq/b']);
      const ready = await eventually(
        async () => {
          const result = await prometheus.query('rabbitmq_queue_messages_ready{queue=~"qa1|qb1"}');
          return result.length === 2 ? result : undefined;
        },
        30_000,
        'the queues of both targets in Prometheus',
      );
      expect(ready.map((r) => [r.metric.instance, r.metric.vhost, r.metric.queue, r.value[1]]).sort()).toEqual([
        ['a', 'multi-a', 'qa1', '3'],
        ['b', 'multi-b', 'qb1', '5'],
      ]);
      const reload = await prometheus.query('rabbitmq_exporter_config_last_reload_successful');
      expect(reload.map((r) => [r.metric.job, r.value[1]])).toEqual([['rabbitmq-exporter', '1']]);
    } finally {
      await prometheus.stop();
    }
  });
});
