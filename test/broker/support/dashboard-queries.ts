/**
 * The shipped dashboards' queries as Grafana sends them to Prometheus: variables substituted the
 * way Grafana does, label_values() variables as /api/v1/label/<label>/values calls.
 */
import { readFileSync } from 'node:fs';
import { dashboardFile } from '../../../tools/dashboards/dashboard-files.js';
import type { DashboardSpec } from '../../../tools/dashboards/grafana.js';
import { eventually } from '../../harness/eventually.js';
import type { PrometheusProcess } from '../../support/prometheus-process.js';

export interface DashboardJson {
  uid: string;
  templating: { list: { name: string; type: string; query?: string }[] };
  panels: { type: string; title: string; targets?: { expr: string; legendFormat?: string; refId: string }[] }[];
}

export interface PanelTarget {
  /** `<dashboard uid> / <panel title> / <legend>` */
  key: string;
  expr: string;
}

/** Grafana's escaping of a variable's value inside a PromQL regex string: `.` becomes `\\.` in the query text. */
export const escapeRegex = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&');

/** Variable values as Grafana substitutes them into `=~` matchers: each escaped, several joined as an alternation. */
export function regexValues(values: Record<string, string | readonly string[]>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const all = typeof value === 'string' ? [value] : value;
      return [name, all.length === 1 ? escapeRegex(all[0]!) : `(${all.map(escapeRegex).join('|')})`];
    }),
  );
}

export function substitute(expr: string, vars: Record<string, string>): string {
  return expr.replace(/\$\{?([a-zA-Z_]+)\}?/g, (whole, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`no value for ${whole} in ${expr}`);
    return value;
  });
}

export function dashboardJson(spec: DashboardSpec): DashboardJson {
  return JSON.parse(dashboardFile(spec)) as DashboardJson;
}

export function panelTargets(specs: readonly DashboardSpec[]): PanelTarget[] {
  return specs.flatMap((spec) => {
    const dashboard = dashboardJson(spec);
    return dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ key: `${dashboard.uid} / ${p.title} / ${t.legendFormat}`, expr: t.expr })));
  });
}

/** The values a label_values(selector, label) variable lists, its own variables substituted. */
export async function variableValues(prometheus: PrometheusProcess, query: string, vars: Record<string, string>): Promise<string[]> {
  const [, selector, label] = /^label_values\((.*),\s*([a-zA-Z_]+)\)$/.exec(query) ?? [];
  if (selector === undefined || label === undefined) throw new Error(`not label_values(selector, label): ${query}`);
  return prometheus.api<string[]>(`/api/v1/label/${label}/values?match[]=${encodeURIComponent(substitute(selector, vars))}`);
}

/** The scrape_configs block of docs/configuration.md for several clusters, for these target names and this exporter. */
export function documentedProbeScrapeConfig(targets: readonly string[], exporterHost: string): string {
  const doc = readFileSync('docs/configuration.md', 'utf8');
  const documented = /```yaml\n(scrape_configs:\n[\s\S]*?metrics_path: \/probe[\s\S]*?)```/.exec(doc)?.[1];
  if (documented === undefined) throw new Error('no /probe scrape config in docs/configuration.md');
  if (!documented.includes('targets: [orders, billing]')) throw new Error('the /probe scrape config of docs/configuration.md no longer lists [orders, billing]');
  return documented.replace('targets: [orders, billing]', `targets: [${targets.join(', ')}]`).replaceAll('rabbitmq-exporter:9419', exporterHost);
}

/**
 * Runs every panel query until each returns data but those of `allowedEmpty` (rates need a few
 * scrapes: waits for the data, not for a time); a query error stops the wait. Returns the panels
 * still empty and the query errors; fails naming the panels without data after `timeoutMs`.
 */
export async function panelsWithoutData(
  prometheus: PrometheusProcess,
  targets: readonly PanelTarget[],
  vars: Record<string, string>,
  allowedEmpty: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<{ empty: string[]; errors: string[] }> {
  let empty: string[] = [];
  const errors: string[] = [];
  await eventually(
    async () => {
      empty = [];
      for (const t of targets) {
        const result = await prometheus.query(substitute(t.expr, vars)).catch((error: unknown) => {
          errors.push(`${t.key}: ${String(error)}`);
          return [];
        });
        if (result.length === 0) empty.push(t.key);
      }
      return errors.length > 0 || empty.every((k) => k in allowedEmpty) ? true : undefined;
    },
    timeoutMs,
    'every panel query to return data',
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\nstill empty:\n${empty.filter((k) => !(k in allowedEmpty)).join('\n')}`);
  });
  return { empty, errors };
}

/** Panels of settings that are off by default (issue 26's signals), empty wherever the exporter runs its defaults: `<dashboard uid> / <panel title> / <legend>`. */
export const OFF_BY_DEFAULT_PANELS: Readonly<Record<string, string>> = {
  'rabbitmq-exporter-queues / Estimated wait (top 10) / {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Without progress (top 10) / {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Stuck consumers / __auto': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Dead-letter queues / __auto': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Fill of length limits (top 10) / messages {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Fill of length limits (top 10) / bytes {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Time to full (bottom 10) / messages {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Time to full (bottom 10) / bytes {{vhost}} / {{queue}}': 'the queue signals are off by default (collectors.queues.signals)',
  'rabbitmq-exporter-queues / Messages by family / ready {{vhost}} / {{family}}': 'the family roll-ups are off by default (collectors.queues.families)',
  'rabbitmq-exporter-queues / Messages by family / unacked {{vhost}} / {{family}}': 'the family roll-ups are off by default (collectors.queues.families)',
  'rabbitmq-exporter-queues / Message rates by family / published {{vhost}} / {{family}}': 'the family roll-ups are off by default (collectors.queues.families)',
  'rabbitmq-exporter-queues / Message rates by family / acked {{vhost}} / {{family}}': 'the family roll-ups are off by default (collectors.queues.families)',
  'rabbitmq-exporter-queues / Queues by depth / {{depth}}': 'the family roll-ups are off by default (collectors.queues.families)',
  'rabbitmq-exporter-nodes / Quorum queue leaders per node / {{node}}': 'quorum placement is off by default (collectors.queues.quorum_placement)',
  'rabbitmq-exporter-nodes / Quorum queue replicas per node / {{node}}': 'quorum placement is off by default (collectors.queues.quorum_placement)',
  'rabbitmq-exporter-nodes / Quorum queues at risk / below quorum {{vhost}}': 'quorum placement is off by default (collectors.queues.quorum_placement)',
  'rabbitmq-exporter-nodes / Quorum queues at risk / without leader {{vhost}}': 'quorum placement is off by default (collectors.queues.quorum_placement)',
  'rabbitmq-exporter-nodes / Quorum queues at risk / below target size {{vhost}}': 'quorum placement is off by default (collectors.queues.quorum_placement)',
  'rabbitmq-exporter-nodes / Days until certificates expire / __auto': 'the certificates collector is off by default (collectors.certificates)',
  'rabbitmq-exporter-connections / Connections by client library / __auto': 'connections by client properties are off by default (collectors.connections.by_client)',
};
