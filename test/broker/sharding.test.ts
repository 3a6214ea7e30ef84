// Issue 14 ("Past one process"): two shards (--shard=0 and --shard=auto on a pod named ...-1, of
// --total-shards=2) and one unsharded exporter, all real processes, against the real broker with
// several vhosts holding queues, exchanges, connections, channels and consumers. The two shards'
// series together are the unsharded exporter's, and no series is served by both (beyond each
// replica's own rabbitmq_exporter_* series), as scraped and as a real Prometheus joins them.
import * as amqp from 'amqplib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TargetShare } from '../../src/model/shard-assignment.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';

const enc = encodeURIComponent;
const VHOSTS = ['shard-orders', 'shard-billing', 'shard-search', 'shard-audit', 'shard-mail', 'shard-reports'];
const QUEUE = 'work';

/** The replica's own series (its collectors', its process's): every replica serves its own, whatever its shard. */
const own = (series: string) => /^(rabbitmq_exporter_|process_|nodejs_)/.test(series);

describeWithBroker('shards against a real RabbitMQ: the union is one exporter, the intersection empty', (broker) => {
  const models: amqp.ChannelModel[] = [];
  let unsharded: ExporterProcess;
  let shards: ExporterProcess[] = [];
  const api = managementApi(broker);
  const series = async (exporter: ExporterProcess) => {
    const { status, text } = await exporter.metrics();
    expect(status).toBe(200);
    return samples(text);
  };

  beforeAll(async () => {
    for (const vhost of VHOSTS) {
      await api('PUT', `/api/vhosts/${enc(vhost)}`, {});
      await api('PUT', `/api/permissions/${enc(vhost)}/${enc(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
      await api('PUT', `/api/exchanges/${enc(vhost)}/events`, { type: 'topic', durable: false });
      // A connection with a channel consuming from the vhost's queue, which holds 3 messages.
      const model = await amqp.connect(`amqp://${broker.username}:${broker.password}@127.0.0.1:${broker.amqpPort}/${enc(vhost)}`, {
        clientProperties: { connection_name: `shard-test-${vhost}` },
      });
      models.push(model);
      const channel = await model.createConfirmChannel();
      await channel.assertQueue(QUEUE, { durable: false });
      await channel.assertQueue(`${QUEUE}-idle`, { durable: false });
      for (let i = 0; i < 3; i++) channel.sendToQueue(`${QUEUE}-idle`, Buffer.from(`m${i}`));
      await channel.waitForConfirms();
      await channel.consume(QUEUE, () => undefined, { noAck: true });
    }
    const configYaml = `
poll:
  interval: 1s
  jitter: 0
target:
  url: ${broker.managementUrl}
  username: ${broker.username}
`;
    const env = { RABBITMQ_PASSWORD: broker.password };
    [unsharded, ...shards] = await Promise.all([
      startExporter({ configYaml, env }),
      startExporter({ configYaml, env, args: ['--shard=0', '--total-shards=2'] }),
      // As in deploy/sharded/statefulset.yaml: the ordinal of the pod's name.
      startExporter({ configYaml, env: { ...env, POD_NAME: 'rabbitmq-exporter-1' }, args: ['--shard=auto', '--total-shards=2'] }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([unsharded, ...shards].map((e) => e?.stop()));
    for (const model of models) await model.close().catch(() => undefined);
    for (const vhost of VHOSTS) await api('DELETE', `/api/vhosts/${enc(vhost)}`).catch(() => undefined);
  });

  it('the test vhosts fall on both shards (else the test would show nothing)', () => {
    const owned = [0, 1].map((shard) => VHOSTS.filter((v) => new TargetShare({ shard, totalShards: 2 }, 'default').ownsVhost(v)));
    expect(owned[0]!.length).toBeGreaterThan(0);
    expect(owned[1]!.length).toBeGreaterThan(0);
  });

  it('each replica says which shard it is', async () => {
    for (const [exporter, ordinal, total] of [[unsharded, 0, 1], [shards[0], 0, 2], [shards[1], 1, 2]] as const) {
      const samples = await series(exporter!);
      expect(samples.get('rabbitmq_exporter_shard_ordinal')).toBe(ordinal);
      expect(samples.get('rabbitmq_exporter_total_shards')).toBe(total);
    }
  });

  it("the two shards' series are the unsharded exporter's, and no series is on both", async () => {
    const owner = new TargetShare({ shard: 1, totalShards: 2 }, 'default').ownsClusterSeries ? 1 : 0;
    // The queue's counts, not just any of its series: a queue's record lacks `messages` until the
    // broker's first statistics tick after it was made, which for the vhost made last may not have come yet.
    const every = (vhostSeries: string[]) =>
      VHOSTS.every((v) => vhostSeries.some((k) => k.startsWith('rabbitmq_queue_messages{') && k.includes(`vhost="${v}"`) && k.includes(`queue="${QUEUE}"`)));
    let last: { single: string[]; union: string[] } | undefined;
    const overlaps = new Set<string>();
    // The three processes poll on their own clocks: once each has polled the settled broker, their series agree.
    await eventually(
      async () => {
        const [single, zero, one] = await Promise.all([unsharded, ...shards].map(series));
        const keys = (samples: Map<string, number>) => [...samples.keys()].filter((k) => !own(k));
        const [a, b] = [keys(zero!), keys(one!)];
        // Never on both, whenever scraped (checked after the wait: a failure here must not be waited out).
        for (const k of a) if (b.includes(k)) overlaps.add(k);
        if (overlaps.size > 0) return { a, b };
        last = { single: keys(single!).sort(), union: [...a, ...b].sort() };
        const settled = every(last.single) && last.single.includes('rabbitmq_up') && VHOSTS.every((v) => last!.single.some((k) => k.startsWith('rabbitmq_connections_by_state{') && k.includes(`vhost="${v}"`)));
        return settled && JSON.stringify(last.single) === JSON.stringify(last.union) ? { a, b } : undefined;
      },
      60_000,
      'the union of the shards to equal the unsharded exporter',
    ).catch((error: unknown) => {
      const missing = last?.single.filter((k) => !last!.union.includes(k)) ?? [];
      const extra = last?.union.filter((k) => !last!.single.includes(k)) ?? [];
      throw new Error(`${(error as Error).message}\nmissing from the shards: ${missing.slice(0, 20).join('\n')}\nonly on the shards: ${extra.slice(0, 20).join('\n')}`);
    });
    expect([...overlaps], 'series served by both shards').toEqual([]);
    const [zero, one] = await Promise.all(shards.map(series));
    const count = (samples: Map<string, number>) => [...samples.keys()].filter((k) => !own(k)).length;
    console.log(`[sharding] ${broker.version}: unsharded ${last!.single.length} series; shard 0 ${count(zero!)}, shard 1 ${count(one!)} (beyond their own)`);
    // The split is real: each shard serves queues of some vhosts, the cluster-wide series on one only.
    for (const [samples, shard] of [[zero!, 0], [one!, 1]] as const) {
      const vhosts = VHOSTS.filter((v) => [...samples.keys()].some((k) => k.startsWith('rabbitmq_queue_messages{') && k.includes(`vhost="${v}"`)));
      expect(vhosts, `shard ${shard}'s vhosts`).toEqual(VHOSTS.filter((v) => new TargetShare({ shard, totalShards: 2 }, 'default').ownsVhost(v)));
      expect(samples.has('rabbitmq_up'), `rabbitmq_up on shard ${shard}`).toBe(shard === owner);
      // A collector with only cluster-wide series does not even poll on the other shard.
      expect(samples.has('rabbitmq_exporter_collector_enabled{collector="nodes"}'), `nodes collector on shard ${shard}`).toBe(shard === owner);
    }
  });

  it('a real Prometheus scraping the shards and the unsharded exporter sees the same series, none twice', async () => {
    if (!prometheusAvailable()) throw new Error("prometheus is not installed (.ci/run installs Debian's prometheus package)");
    const host = (e: ExporterProcess) => new URL(e.url).host;
    const prometheus: PrometheusProcess = await startPrometheus([], '1s', {
      scrapeConfigs: `scrape_configs:
  - job_name: sharded
    static_configs:
      - targets: ['${host(shards[0]!)}', '${host(shards[1]!)}']
  - job_name: single
    static_configs:
      - targets: ['${host(unsharded)}']
`,
    });
    try {
      const broker = '{__name__=~"rabbitmq_.+", __name__!~"rabbitmq_exporter_.+"}';
      // Aggregations drop the metric name: it is kept in a label of its own to count series.
      const named = (job: string) => `label_replace(${broker.replace('{', `{job="${job}", `)}, "metric_name", "$1", "__name__", "(.+)")`;
      const bySeries = (result: { metric: Record<string, string> }[]) =>
        result.map(({ metric: { instance: _instance, job: _job, ...rest } }) => JSON.stringify(Object.entries(rest).sort())).sort();
      await eventually(
        async () => {
          const [sharded, single] = await Promise.all([
            prometheus.query(`${broker.replace('{', '{job="sharded", ')}`),
            prometheus.query(`${broker.replace('{', '{job="single", ')}`),
          ]);
          const settled = single.some((r) => r.metric.vhost === VHOSTS[0] && r.metric.queue === QUEUE) && sharded.length > 0;
          return settled && JSON.stringify(bySeries(sharded)) === JSON.stringify(bySeries(single)) ? true : undefined;
        },
        60_000,
        'Prometheus to hold the same series from the shards as from the unsharded exporter',
      );
      // Joined across the shards, no series is there twice.
      expect(await prometheus.query(`count without (instance) (${named('sharded')}) > 1`)).toEqual([]);
      // The same count finds a series served by two instances (the check can fail): the unsharded one and a shard.
      expect((await prometheus.query(`count without (instance, job) (${named('single')} or ${named('sharded')}) > 1`)).length).toBeGreaterThan(0);
      const shardsSeen = await prometheus.query('rabbitmq_exporter_total_shards{job="sharded"}');
      expect(shardsSeen.map((r) => r.value[1])).toEqual(['2', '2']);
    } finally {
      await prometheus.stop();
    }
  });
});
