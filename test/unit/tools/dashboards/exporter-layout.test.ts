// Issue 32 item 10, without a broker: with several targets, /metrics serves only the exporter's
// process-wide series and each cluster's /probe everything else (docs/configuration.md). Every
// query of the Exporter dashboard picks its series either by cluster ($job, $instance) or by
// exporter process ($exporter_job, $exporter); each must pick series its side serves.
// test/broker/dashboards-targets.test.ts runs the same dashboard against a real Prometheus.
import { describe, expect, it } from 'vitest';
import { newHttpCounters, processWideFamilies } from '../../../../src/pipeline/own-series.js';
import { ProcessMetrics } from '../../../../src/pipeline/process-metrics.js';
import { dashboardFile } from '../../../../tools/dashboards/dashboard-files.js';
import { exporterDashboard } from '../../../../tools/dashboards/exporter.js';

type Side = 'process' | 'cluster' | 'neither';

interface Selector {
  metric: string;
  matchers: string;
  where: string;
  side: Side;
}

const PROCESS_VARIABLES = ['exporter_job', 'exporter'];
const CLUSTER_VARIABLES = ['job', 'cluster', 'instance'];

/** A variable's side is its own; a panel query's, the variables its matchers use. */
function sideOf(matchers: string, variable?: string): Side {
  if (variable !== undefined) return PROCESS_VARIABLES.includes(variable) ? 'process' : CLUSTER_VARIABLES.includes(variable) ? 'cluster' : 'neither';
  const uses = (names: string[]) => names.some((n) => new RegExp(`\\$${n}\\b`).test(matchers));
  if (uses(PROCESS_VARIABLES) === uses(CLUSTER_VARIABLES)) return 'neither';
  return uses(PROCESS_VARIABLES) ? 'process' : 'cluster';
}

/** Every `metric{matchers}` (or bare metric) of the dashboard's variables and panel queries. */
function selectors(): Selector[] {
  const dashboard = JSON.parse(dashboardFile(exporterDashboard)) as {
    templating: { list: { name: string; type: string; query?: string }[] };
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const queries = [
    ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => ({ where: `variable ${v.name}`, variable: v.name, expr: /^label_values\((.*),\s*\w+\)$/.exec(v.query ?? '')?.[1] ?? '' })),
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel ${p.title}`, variable: undefined, expr: t.expr }))),
  ];
  return queries.flatMap(({ where, variable, expr }) =>
    [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?(?!\s*\()/g)]
      .filter((m) => m[2] !== undefined || variable !== undefined)
      .map((m) => ({ metric: m[1]!.replace(/_total$/, ''), matchers: m[2] ?? '', where, side: sideOf(m[2] ?? '', variable) })),
  );
}

describe('the Exporter dashboard in the several-clusters layout', () => {
  it('picks the exporter\'s process series by exporter process, from series /metrics serves with several targets', async () => {
    const onMetrics = new Set([...processWideFamilies(newHttpCounters()).map((f) => f.header.name), ...(await new ProcessMetrics().names()).map((m) => m.name)].map((n) => n.replace(/_total$/, '')));
    const all = selectors();
    const processSide = all.filter((s) => s.side === 'process');
    expect(processSide.map((s) => s.where)).toEqual(expect.arrayContaining(['variable exporter_job', 'variable exporter', 'panel Exporter memory', 'panel Exporter CPU']));
    for (const s of processSide) expect(onMetrics, `${s.where}: ${s.metric}${s.matchers}`).toContain(s.metric);
    // Nothing picked by cluster is served only on /metrics, and everything is picked by one side.
    for (const s of all.filter((x) => x.side === 'cluster')) expect(onMetrics.has(s.metric), `${s.where}: ${s.metric}${s.matchers} is on /metrics only`).toBe(false);
    expect(all.filter((s) => s.side === 'neither').map((s) => `${s.where}: ${s.metric}${s.matchers}`)).toEqual([]);
  });
});
