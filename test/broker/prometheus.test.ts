import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithBroker } from './support/with-broker.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';
import { managementApi } from './support/management-api.js';

// A real Prometheus scrapes the built exporter, negotiating OpenMetrics and gzip as it does in
// production, and we ask it what it stored.
describeWithBroker('a real Prometheus scraping the exporter', (broker) => {
  let exporter: ExporterProcess;
  let prometheus: PrometheusProcess;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error('prometheus is not installed (.ci/run installs Debian\'s prometheus package)');
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}\n`,
    });
    prometheus = await startPrometheus([new URL(exporter.url).host]);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
  });

  it('scrapes without errors and stores the broker\'s series', async () => {
    const up = await eventually(
      async () => {
        const result = await prometheus.query('up{job="rabbitmq"}');
        return result[0]?.value[1] === '1' ? result : undefined;
      },
      30_000,
      'Prometheus to record up=1 for the exporter',
    );
    expect(up).toHaveLength(1);
    const rabbitUp = await eventually(
      async () => (await prometheus.query('rabbitmq_up'))[0]?.value[1],
      30_000,
      'rabbitmq_up in Prometheus',
    );
    expect(rabbitUp).toBe('1');
    const [node] = await prometheus.query('rabbitmq_process_resident_memory_bytes');
    expect(node?.metric.node).toBe(broker.nodeName);
    // Every sample of a scrape was accepted: nothing dropped for bad names, duplicates or types.
    const scraped = Number((await prometheus.query('scrape_samples_scraped{job="rabbitmq"}'))[0]?.value[1]);
    const added = Number((await prometheus.query('scrape_samples_post_metric_relabeling{job="rabbitmq"}'))[0]?.value[1]);
    expect(scraped).toBeGreaterThan(100);
    expect(added).toBe(scraped);
    const targets = (await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as {
      data: { activeTargets: { health: string; lastError: string }[] };
    };
    expect(targets.data.activeTargets[0]?.lastError).toBe('');
    expect(targets.data.activeTargets[0]?.health).toBe('up');
  });

  it('computes rate() over a broker counter the exporter serves', async () => {
    // Publish while waiting, so the cluster-wide publish counter moves between scrapes.
    const publish = () =>
      managementApi(broker)('POST', '/api/exchanges/%2F/amq.default/publish', { properties: {}, routing_key: 'nowhere', payload: 'x', payload_encoding: 'string' });
    const rate = await eventually(
      async () => {
        await publish();
        const [sample] = await prometheus.query('rate(rabbitmq_global_messages_received_total[10s])');
        const value = sample ? Number(sample.value[1]) : NaN;
        return value > 0 ? value : undefined;
      },
      45_000,
      'a positive rate() of rabbitmq_global_messages_received_total',
    );
    expect(rate).toBeGreaterThan(0);
  });
});
