import type { MetricDef } from '../../src/model/metric-def.js';

/**
 * PromQL built from catalogue entries, so a renamed or removed metric, or a label it does not
 * have, fails the generator instead of leaving a dashboard or a rule silently empty.
 */

/** Label matchers of one selector: `{ vhost: '=~$vhost' }` or a plain value for `=`. */
export type Matchers = Readonly<Record<string, string>>;

/** What every dashboard query is scoped to: the exporter's job and the cluster's instance. */
export const DASHBOARD_SCOPE: Matchers = { job: '=~$job', instance: '=~$instance' };

/**
 * What a query of the exporter process's own series (process metrics, build, event loop) is
 * scoped to. With several targets those are on /metrics only, a scrape job of their own, not on
 * any cluster's /probe (docs/configuration.md#several-clusters), so $job and $instance never
 * find them: the `exporter` variables pick the processes instead.
 */
export const PROCESS_SCOPE: Matchers = { job: '=~$exporter_job', instance: '=~$exporter' };

/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = new Set(['job', 'instance']);

export function matcherText(matchers: Matchers): string {
  const parts = Object.entries(matchers).map(([label, raw]) => {
    const op = /^(=~|!~|!=|=)/.exec(raw)?.[1] ?? '=';
    const value = raw.slice(raw.startsWith(op) ? op.length : 0);
    return `${label}${op}${JSON.stringify(value)}`;
  });
  return parts.length === 0 ? '' : `{${parts.join(', ')}}`;
}

/** `name{matchers}` after checking that the metric has every label matched on. */
export function series(def: MetricDef, matchers: Matchers = {}): string {
  for (const label of Object.keys(matchers)) {
    if (!TARGET_LABELS.has(label) && !def.labels.includes(label)) {
      throw new Error(`${def.name} has no label ${label} (labels: ${def.labels.join(', ') || 'none'})`);
    }
  }
  return `${def.name}${matcherText(matchers)}`;
}

/** `rate(counter[window])`; refuses gauges, whose rate() is meaningless. */
export function rate(def: MetricDef, matchers: Matchers = {}, window = '$__rate_interval'): string {
  return `${counterOnly('rate', def)}(${series(def, matchers)}[${window}])`;
}

/** `increase(counter[window])`. */
export function increase(def: MetricDef, matchers: Matchers = {}, window: string): string {
  return `${counterOnly('increase', def)}(${series(def, matchers)}[${window}])`;
}

function counterOnly(fn: 'rate' | 'increase', def: MetricDef): string {
  if (def.type !== 'counter') throw new Error(`${fn}() over ${def.name}, which is a ${def.type}`);
  return fn;
}

/** Checks that every label grouped by exists on the metric (or is a target label). */
export function labelsOf(def: MetricDef, labels: readonly string[]): string {
  for (const label of labels) {
    if (!TARGET_LABELS.has(label) && !def.labels.includes(label)) throw new Error(`${def.name} has no label ${label}`);
  }
  return labels.join(', ');
}

/** `sum by (labels) (expr over def)`, the labels checked against def. */
export function sumBy(labels: readonly string[], def: MetricDef, expr: string): string {
  return `sum by (${labelsOf(def, labels)}) (${expr})`;
}

/** A series scoped to the dashboard's job and cluster (and any extra matchers). */
export function scoped(def: MetricDef, extra: Matchers = {}): string {
  return series(def, { ...DASHBOARD_SCOPE, ...extra });
}

/** rate() over a counter scoped to the dashboard's job and cluster, over `$__rate_interval`. */
export function scopedRate(def: MetricDef, extra: Matchers = {}): string {
  return rate(def, { ...DASHBOARD_SCOPE, ...extra });
}
