// Issue 32 item 10: the Exporter dashboard in the several-clusters layout of the README. One
// exporter polls two targets; a real Prometheus scrapes them with the scrape config of
// docs/configuration.md: each cluster on /probe?target=NAME (job rabbitmq, instance = the name),
// the exporter's own series on /metrics (job rabbitmq-exporter). Every variable of the dashboard
// must list what Grafana would offer, and every panel must return data: the memory and CPU
// panels were empty, their $job coming from rabbitmq_identity_info, which /metrics never has.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exporterDashboard } from '../../tools/dashboards/exporter.js';
import { eventually } from '../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { prometheusAvailable, startPrometheus, type PrometheusProcess } from '../support/prometheus-process.js';
import { dashboardJson, documentedProbeScrapeConfig, panelTargets, regexValues, substitute, variableValues } from './support/dashboard-queries.js';
import { describeWithBroker } from './support/with-broker.js';

const TARGETS = ['orders', 'billing'];
/** The exporter's own job in the documented scrape config. */
const EXPORTER_JOB = 'rabbitmq-exporter';

describeWithBroker('the Exporter dashboard with several clusters on a real Prometheus', (broker) => {
  let exporter: ExporterProcess;
  let prometheus: PrometheusProcess;
  let exporterHost: string;

  beforeAll(async () => {
    if (!prometheusAvailable()) throw new Error("prometheus is not installed (.ci/run installs Debian's prometheus package)");
    // Two targets on the one test broker: two clusters as far as the scrape layout goes.
    exporter = await startExporter({
      configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}\ntargets:\n${TARGETS.map((t) => `  - name: ${t}\n`).join('')}`,
    });
    exporterHost = new URL(exporter.url).host;
    prometheus = await startPrometheus([], '1s', { scrapeConfigs: documentedProbeScrapeConfig(TARGETS, exporterHost) });
  });

  afterAll(async () => {
    await prometheus?.stop();
    await exporter?.stop();
  });

  /** What each variable must list, once both clusters and the exporter have been scraped. */
  async function expectedVariables(): Promise<Record<string, string[]>> {
    const identities = await eventually(
      async () => {
        const result = await prometheus.query('rabbitmq_identity_info');
        return result.length === TARGETS.length ? result : undefined;
      },
      30_000,
      'rabbitmq_identity_info of both targets in Prometheus',
    );
    expect(identities.map((r) => `${r.metric.job}/${r.metric.instance}`).sort()).toEqual(TARGETS.map((t) => `rabbitmq/${t}`).sort());
    return {
      job: ['rabbitmq'],
      cluster: [...new Set(identities.map((r) => r.metric.rabbitmq_cluster!))],
      instance: [...TARGETS],
      exporter_job: [EXPORTER_JOB],
      exporter: [exporterHost],
    };
  }

  it('every variable lists the clusters and the exporter process', async () => {
    const expected = await expectedVariables();
    const vars = regexValues(expected);
    const variables = dashboardJson(exporterDashboard).templating.list.filter((v) => v.type === 'query');
    expect(variables.map((v) => v.name).sort()).toEqual(Object.keys(expected).sort());
    for (const v of variables) {
      const values = await eventually(
        async () => {
          const found = await variableValues(prometheus, v.query ?? '', vars);
          return expected[v.name]!.every((x) => found.includes(x)) ? found : undefined;
        },
        30_000,
        `variable ${v.name} to list ${expected[v.name]!.join(', ')}`,
      );
      expect(values.sort(), v.name).toEqual([...expected[v.name]!].sort());
    }
  });

  it('every panel returns data: collectors per cluster, memory, CPU and event loop per exporter process', async () => {
    const vars = { ...regexValues(await expectedVariables()), __rate_interval: '15s' };
    const targets = panelTargets([exporterDashboard]);
    const results = new Map<string, { metric: Record<string, string> }[]>();
    // Rates need a few scrapes: wait for every panel's data, not for a fixed time. A query error fails at once.
    await eventually(
      async () => {
        for (const t of targets) results.set(t.key, await prometheus.query(substitute(t.expr, vars)));
        return [...results.values()].every((r) => r.length > 0) ? true : undefined;
      },
      60_000,
      'every panel query of the Exporter dashboard to return data',
    ).catch((error: unknown) => {
      const empty = [...results].filter(([, r]) => r.length === 0).map(([k]) => k);
      throw new Error(`${String(error)}\nstill empty:\n${empty.join('\n')}`);
    });
    const jobs = (title: string) => [...new Set(targets.filter((t) => t.key.includes(`/ ${title} /`)).flatMap((t) => results.get(t.key)!.map((s) => `${s.metric.job}/${s.metric.instance}`)))];
    for (const title of ['Exporter memory', 'Exporter CPU', 'Event loop delay']) expect(jobs(title), title).toEqual([`${EXPORTER_JOB}/${exporterHost}`]);
    expect(jobs('Poll success').sort()).toEqual(TARGETS.map((t) => `rabbitmq/${t}`).sort());
  }, 90_000);
});
