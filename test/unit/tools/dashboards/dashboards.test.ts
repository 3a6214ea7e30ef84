import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { ProcessMetrics } from '../../../../src/pipeline/process-metrics.js';
import { DASHBOARDS, dashboardFile, dashboardPath } from '../../../../tools/dashboards/dashboard-files.js';
import { generatedFiles } from '../../../../tools/dashboards/generate.js';
import { alertRules } from '../../../../tools/dashboards/alerts.js';
import { recordingRules } from '../../../../tools/dashboards/recording-rules.js';
import { replaceThresholds } from '../../../../tools/dashboards/thresholds-doc.js';
import { replaceShipped } from '../../../../tools/dashboards/shipped-doc.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { lintDashboard, metricNames, panelsOf } from './lint.js';

/** Series Prometheus itself adds to every target. */
const PROMETHEUS_SERIES = ['up', 'scrape_samples_scraped'];

async function knownMetrics(): Promise<Set<string>> {
  const names = new Set<string>([...PROMETHEUS_SERIES, ...recordingRules.map((r) => r.record)]);
  for (const def of catalogue(COLLECTORS)) names.add(def.name);
  for (const m of await new ProcessMetrics().names()) names.add(m.name);
  return names;
}

describe('generated dashboards and rules', () => {
  it('are up to date: run `npm run dashboards` after changing tools/dashboards or the catalogue', () => {
    for (const [path, content] of generatedFiles()) {
      expect(readFileSync(join(REPO_ROOT, path), 'utf8'), `${path} is out of date: run \`npm run dashboards\``).toBe(content);
    }
  });

  it('the runbook\'s threshold table is up to date', () => {
    const runbook = readFileSync(join(REPO_ROOT, 'docs/runbook.md'), 'utf8');
    expect(replaceThresholds(runbook), 'docs/runbook.md thresholds are out of date: run `npm run dashboards`').toBe(runbook);
  });

  it('docs/dashboards.md lists the dashboards and alerts as generated', () => {
    const guide = readFileSync(join(REPO_ROOT, 'docs/dashboards.md'), 'utf8');
    expect(replaceShipped(guide), 'docs/dashboards.md is out of date: run `npm run dashboards`').toBe(guide);
  });

  it('pass the dashboard lint', async () => {
    const known = await knownMetrics();
    for (const spec of DASHBOARDS) {
      const dashboard = JSON.parse(dashboardFile(spec));
      expect(lintDashboard(dashboard, { knownMetrics: known }), dashboardPath(spec)).toEqual([]);
      expect(panelsOf(dashboard).filter((p) => p.type !== 'row').length).toBeGreaterThan(3);
    }
  });

  it('rules use only metrics the exporter serves or the rules record', async () => {
    const known = await knownMetrics();
    for (const r of [...recordingRules, ...alertRules]) {
      for (const name of metricNames(r.expr)) expect(known.has(name), `${'alert' in r ? r.alert : r.record}: ${name}`).toBe(true);
    }
  });

  it('every alert has a for:, a firing and a silent promtool case, and a runbook section', () => {
    const runbook = readFileSync(join(REPO_ROOT, 'docs/runbook.md'), 'utf8');
    for (const rule of alertRules) {
      // Without one, a single failed or odd poll fires the alert (issue 32).
      expect(rule.for, `${rule.alert} for:`).toMatch(/^\d+[smh]$/);
      expect(rule.cases.some((c) => c.fires.length > 0), `${rule.alert} firing case`).toBe(true);
      expect(rule.cases.some((c) => c.fires.length === 0), `${rule.alert} silent case`).toBe(true);
      expect(runbook, `docs/runbook.md section for ${rule.alert}`).toMatch(new RegExp(`^## ${rule.alert}$`, 'm'));
    }
  });
});

describe('dashboard lint', () => {
  const known = new Set(['rabbitmq_up', 'rabbitmq_queue_messages_published_total']);
  const good = {
    uid: 'x',
    templating: {
      list: [
        { type: 'datasource', name: 'datasource', query: 'prometheus' },
        { type: 'query', name: 'job', query: 'label_values(rabbitmq_up, job)', datasource: { uid: '${datasource}' } },
        { type: 'query', name: 'cluster', query: 'label_values(rabbitmq_up, instance)', datasource: { uid: '${datasource}' } },
      ],
    },
    links: [{ type: 'dashboards', tags: ['t'] }],
    panels: [
      {
        id: 1,
        type: 'timeseries',
        title: 'p',
        description: 'd',
        datasource: { uid: '${datasource}' },
        fieldConfig: { defaults: { unit: 'short' } },
        targets: [{ refId: 'A', expr: 'sum by (vhost) (rate(rabbitmq_queue_messages_published_total{vhost=~"$x"}[$__rate_interval]))' }],
      },
    ],
  };

  it('accepts a dashboard that follows the rules', () => {
    expect(lintDashboard(good, { knownMetrics: known })).toEqual([]);
  });

  it('reports each broken rule', () => {
    const bad = structuredClone(good) as typeof good & { __inputs?: unknown };
    bad.__inputs = [];
    bad.templating.list = bad.templating.list.filter((v) => v.name !== 'cluster');
    const panel = bad.panels[0]!;
    bad.panels.push({ ...panel, description: '', fieldConfig: { defaults: { unit: '' } } });
    panel.targets = [{ refId: 'A', expr: 'rate(rabbitmq_queue_messages_published_total[5m]) + rabbitmq_no_such_metric + vhost_used' }];
    const problems = lintDashboard(bad, { knownMetrics: known }).join('\n');
    expect(problems).toContain('has __inputs');
    expect(problems).toContain('no cluster variable');
    expect(problems).toContain('duplicate id');
    expect(problems).toContain('no description');
    expect(problems).toContain('no unit');
    expect(problems).toContain('rate() over [5m], not [$__rate_interval]');
    expect(problems).toContain('unknown metric rabbitmq_no_such_metric');
    expect(problems).toContain('unknown metric vhost_used');
  });

  it('finds metric names, not labels, functions or strings', () => {
    expect(metricNames('sum by (job, vhost) (rate(a_total{vhost=~"b_c"}[$__rate_interval])) / on (vhost) group_right b{limit="max"} > 0.8 or topk(10, time() - c)')).toEqual(['a_total', 'b', 'c']);
  });
});
