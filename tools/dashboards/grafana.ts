import {
  DashboardBuilder,
  DashboardLinkBuilder,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableHide,
  VariableRefresh,
  VariableSort,
  type Dashboard,
  DashboardLinkType,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { ReduceDataOptionsBuilder, VizLegendOptionsBuilder, LegendDisplayMode, LegendPlacement, StackingConfigBuilder, StackingMode, BigValueGraphMode, BigValueColorMode } from '@grafana/grafana-foundation-sdk/common';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as TimeseriesBuilder } from '@grafana/grafana-foundation-sdk/timeseries';
import { PanelBuilder as StatBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TableBuilder } from '@grafana/grafana-foundation-sdk/table';
import { exporterMetrics } from '../../src/collectors/exporter/metrics.js';
import { overviewMetrics } from '../../src/collectors/overview/metrics.js';
import { queueMetrics } from '../../src/collectors/queues/metrics.js';
import { vhostMetrics } from '../../src/collectors/vhosts/metrics.js';
import { noValueText } from './off-by-default.js';
import { series } from './promql.js';

/** Every panel queries the data source the `datasource` variable picks. */
const DATASOURCE = { type: 'prometheus', uid: '${datasource}' };
/** Dashboards carry this tag; the link bar lists every dashboard that has it. */
export const DASHBOARD_TAG = 'rabbitmq-exporter';

export interface Target {
  expr: string;
  legend?: string;
  /** Table panels ask for the latest value only. */
  instant?: boolean;
}

export interface PanelSpec {
  title: string;
  description: string;
  /** A Grafana unit id: short, bytes, Bps, s, percentunit, mps (messages/s), cps, reqps, iops, none. */
  unit: string;
  targets: Target[];
  /** Width in grid columns (24 is the full width). */
  span?: number;
  height?: number;
  stacked?: boolean;
}

/** vhost and queue pick within the cluster; exporter picks exporter processes by their own series. */
export type DashboardVariable = 'vhost' | 'queue' | 'exporter';

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  variables: readonly DashboardVariable[];
  fill(layout: Layout): void;
}

/** Adds rows and panels in order, numbering panels so ids are unique within the dashboard. */
export class Layout {
  private nextId = 1;

  constructor(private readonly builder: DashboardBuilder) {}

  row(title: string): this {
    this.builder.withRow(new RowBuilder(title).id(this.nextId++));
    return this;
  }

  timeseries(spec: PanelSpec): this {
    const panel = this.common(new TimeseriesBuilder(), spec, { span: 12, height: 8 })
      .min(0)
      .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom).calcs([]));
    if (spec.stacked) panel.stacking(new StackingConfigBuilder().mode(StackingMode.Normal)).fillOpacity(30);
    return this.add(panel, spec.targets);
  }

  stat(spec: PanelSpec): this {
    const panel = this.common(new StatBuilder(), spec, { span: 4, height: 4 })
      .graphMode(BigValueGraphMode.None)
      .colorMode(BigValueColorMode.Value)
      .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false));
    return this.add(panel, spec.targets);
  }

  table(spec: PanelSpec): this {
    const panel = this.common(new TableBuilder(), spec, { span: 24, height: 8 });
    return this.add(panel, spec.targets.map((t) => ({ ...t, instant: true })));
  }

  /** What every panel has: a fresh id, title, description, unit, the $datasource, and a size. */
  private common<P extends TimeseriesBuilder | StatBuilder | TableBuilder>(panel: P, spec: PanelSpec, size: { span: number; height: number }): P {
    panel
      .id(this.nextId++)
      .title(spec.title)
      .description(spec.description)
      .unit(spec.unit)
      .datasource(DATASOURCE)
      .span(spec.span ?? size.span)
      .height(spec.height ?? size.height);
    return panel;
  }

  private add(panel: TimeseriesBuilder | StatBuilder | TableBuilder, targets: Target[]): this {
    for (const [i, t] of targets.entries()) panel.withTarget(query(t, i));
    const noValue = noValueText(targets.map((t) => t.expr));
    if (noValue) panel.noValue(noValue);
    this.builder.withPanel(panel);
    return this;
  }
}

function query(target: Target, index: number): DataqueryBuilder {
  const q = new DataqueryBuilder()
    .refId(String.fromCharCode(65 + index))
    .datasource(DATASOURCE)
    .expr(target.expr)
    .legendFormat(target.legend ?? '__auto');
  if (target.instant) q.instant().format(PromQueryFormat.Table);
  else q.range();
  return q;
}

/** The variables every dashboard has, then the ones the spec asks for. */
function variables(wanted: readonly DashboardVariable[]) {
  const identity = overviewMetrics.identity;
  const vars = [
    new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus'),
    labelValues('job', 'Job', `label_values(${series(identity)}, job)`, { multi: true }),
    labelValues('cluster', 'Cluster', `label_values(${series(identity, { job: '=~$job' })}, rabbitmq_cluster)`, { multi: true }),
    // The exporter serves one cluster per target, so the cluster picks the targets and every
    // query filters on them, which is cheaper than joining each query on rabbitmq_identity_info.
    labelValues('instance', 'Exporter', `label_values(${series(identity, { job: '=~$job', rabbitmq_cluster: '=~$cluster' })}, instance)`, { multi: true, hidden: true }),
  ];
  const scope = { job: '=~$job', instance: '=~$instance' };
  if (wanted.includes('vhost')) vars.push(labelValues('vhost', 'Virtual host', `label_values(${series(vhostMetrics.info, scope)}, vhost)`, { multi: true }));
  if (wanted.includes('queue')) {
    vars.push(labelValues('queue', 'Queue', `label_values(${series(queueMetrics.info, { ...scope, vhost: '=~$vhost' })}, queue)`, { multi: false }));
  }
  if (wanted.includes('exporter')) {
    // rabbitmq_exporter_build_info is on every exporter process's /metrics, whatever the layout:
    // the cluster's own job with one target, a job of the exporter's own with several.
    const build = exporterMetrics.build;
    vars.push(labelValues('exporter_job', 'Exporter job', `label_values(${series(build)}, job)`, { multi: true }));
    vars.push(labelValues('exporter', 'Exporter process', `label_values(${series(build, { job: '=~$exporter_job' })}, instance)`, { multi: true }));
  }
  return vars;
}

function labelValues(name: string, label: string, expr: string, options: { multi: boolean; hidden?: boolean }) {
  const v = new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(expr)
    .definition(expr)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(options.multi)
    .includeAll(options.multi);
  if (options.multi) v.current({ text: 'All', value: '$__all', selected: true });
  if (options.hidden) v.hide(VariableHide.HideVariable);
  return v;
}

export function buildDashboard(spec: DashboardSpec): Dashboard {
  const builder = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([DASHBOARD_TAG, 'rabbitmq'])
    .editable()
    .time({ from: 'now-3h', to: 'now' })
    .refresh('1m')
    .timezone('browser')
    .link(new DashboardLinkBuilder('RabbitMQ').type(DashboardLinkType.Dashboards).tags([DASHBOARD_TAG]).asDropdown(true).includeVars(true).keepTime(true));
  for (const v of variables(spec.variables)) builder.withVariable(v);
  spec.fill(new Layout(builder));
  const dashboard = builder.build();
  // The SDK puts links in Grafana 12's controls menu; the classic link bar works in every version.
  for (const link of dashboard.links ?? []) delete (link as { placement?: unknown }).placement;
  return dashboard;
}

