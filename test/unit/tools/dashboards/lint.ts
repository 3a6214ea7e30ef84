/**
 * Checks a generated Grafana dashboard against what file provisioning and this project need:
 * a datasource variable and no __inputs, job and cluster variables, a unit and a description
 * on every panel, $__rate_interval in every rate, unique panel ids, and only metric names the
 * exporter (or the shipped recording rules, or Prometheus itself) defines.
 */
export interface LintContext {
  /** Every series name a query may use. */
  knownMetrics: ReadonlySet<string>;
}

interface Panel {
  id?: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: { uid?: string };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: { expr?: string; refId?: string; datasource?: { uid?: string } }[];
  panels?: Panel[];
}

interface Dashboard {
  uid?: string;
  __inputs?: unknown;
  templating?: { list?: { type: string; name: string; query?: unknown; datasource?: { uid?: string }; multi?: boolean; includeAll?: boolean }[] };
  panels?: Panel[];
  links?: { type?: string; tags?: string[] }[];
}

const PROMQL_WORDS = new Set([
  'sum', 'min', 'max', 'avg', 'count', 'topk', 'bottomk', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
  'and', 'or', 'unless', 'bool', 'offset', 'time', 'vector', 'rate', 'irate', 'increase', 'deriv', 'predict_linear',
  'max_over_time', 'min_over_time', 'avg_over_time', 'label_values', 'inf', 'nan',
]);

/** Metric names a PromQL expression refers to (label names, strings, durations and functions stripped). */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$[a-zA-Z_]+/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const after = stripped.slice((match.index ?? 0) + word.length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(word.toLowerCase())) continue;
    if (/^\d/.test(word)) continue;
    names.push(word);
  }
  return names;
}

export function panelsOf(dashboard: Dashboard): Panel[] {
  return (dashboard.panels ?? []).flatMap((p) => [p, ...(p.panels ?? [])]);
}

export function lintDashboard(dashboard: Dashboard, context: LintContext): string[] {
  const problems: string[] = [];
  const where = (p: Panel) => `${dashboard.uid} panel ${p.id} "${p.title}"`;
  if ('__inputs' in dashboard) problems.push(`${dashboard.uid}: has __inputs (file provisioning cannot fill them)`);
  const vars = dashboard.templating?.list ?? [];
  const datasourceVar = vars.find((v) => v.name === 'datasource');
  if (datasourceVar?.type !== 'datasource' || datasourceVar.query !== 'prometheus') problems.push(`${dashboard.uid}: no datasource variable of type datasource for prometheus`);
  for (const name of ['job', 'cluster']) if (!vars.some((v) => v.name === name && v.type === 'query')) problems.push(`${dashboard.uid}: no ${name} variable`);
  for (const v of vars.filter((x) => x.type === 'query')) {
    if (v.datasource?.uid !== '${datasource}') problems.push(`${dashboard.uid}: variable ${v.name} does not use $datasource`);
    const selector = /^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$/.exec(String(v.query))?.[1];
    if (selector === undefined) problems.push(`${dashboard.uid}: variable ${v.name} is not label_values(selector, label)`);
    for (const name of metricNames(selector ?? '')) if (!context.knownMetrics.has(name)) problems.push(`${dashboard.uid}: variable ${v.name} uses unknown metric ${name}`);
  }
  if (!(dashboard.links ?? []).some((l) => l.type === 'dashboards' && (l.tags ?? []).length > 0)) problems.push(`${dashboard.uid}: no links to the other dashboards`);

  const ids = new Set<number>();
  const text = JSON.stringify(dashboard);
  for (const p of panelsOf(dashboard)) {
    if (typeof p.id !== 'number') problems.push(`${where(p)}: no id`);
    else if (ids.has(p.id)) problems.push(`${where(p)}: duplicate id`);
    else ids.add(p.id);
    if (p.type === 'row') continue;
    if (!p.description?.trim()) problems.push(`${where(p)}: no description`);
    if (!p.fieldConfig?.defaults?.unit) problems.push(`${where(p)}: no unit`);
    if (p.datasource?.uid !== '${datasource}') problems.push(`${where(p)}: does not use $datasource`);
    if (!p.targets?.length) problems.push(`${where(p)}: no query`);
    for (const t of p.targets ?? []) {
      const expr = t.expr ?? '';
      if (expr.trim() === '') problems.push(`${where(p)} ${t.refId}: empty query`);
      for (const m of expr.matchAll(/\b(rate|irate|increase)\s*\([^[]*\[([^\]]*)\]/g)) {
        if (m[2] !== '$__rate_interval') problems.push(`${where(p)} ${t.refId}: ${m[1]}() over [${m[2]}], not [$__rate_interval]`);
      }
      for (const name of metricNames(expr)) if (!context.knownMetrics.has(name)) problems.push(`${where(p)} ${t.refId}: unknown metric ${name}`);
      // Grafana puts a single value in as it is: as a regex, a dot in a name (orders.v1) matches any character.
      for (const v of vars.filter((x) => x.type === 'query' && !x.multi && !x.includeAll)) {
        if (new RegExp(`[=!]~"\\$${v.name}"`).test(expr)) problems.push(`${where(p)} ${t.refId}: matches the single-value variable $${v.name} as a regex (=~), not with =`);
      }
    }
  }
  for (const name of ['$vhost', '$queue']) {
    if (text.includes(name) && !vars.some((v) => `$${v.name}` === name)) problems.push(`${dashboard.uid}: uses ${name} without defining it`);
  }
  return problems;
}
