import type { MetricDef } from '../../src/model/metric-def.js';
import { series } from './promql.js';

// The shape of an alert rule and its promtool cases, apart from alerts.ts so the files of rules
// it gathers (cluster-signal-alerts.ts) can use it without an import cycle.

/** One promtool case: input series, when to evaluate, and the labels of each alert expected then (none: silent). */
export interface AlertCase {
  readonly name: string;
  /** Series (a selector built from the catalogue) → promtool expanding notation, one sample per `interval`. */
  readonly input: readonly (readonly [selector: string, values: string])[];
  /** Time between samples: 1m unless a case needs a scrape's resolution. */
  readonly interval?: string;
  readonly at: string;
  readonly fires: readonly Record<string, string>[];
}

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly severity: 'critical' | 'warning';
  /** Annotations may use `{{ $labels.x }}` and nothing else, so tests can render them exactly. */
  readonly summary: string;
  readonly description: string;
  readonly cases: readonly AlertCase[];
}

/** Target labels every test series carries, as Prometheus adds them to scraped series. */
export const TEST_TARGET = { job: 'rabbitmq', instance: 'exporter:9419' } as const;

/** A test series of `def` as scraped from TEST_TARGET. */
export const testSeries = (def: MetricDef, labels: Record<string, string> = {}) => series(def, { ...TEST_TARGET, ...labels });
/** The labels an alert fired by a test series carries. */
export const testTarget = (labels: Record<string, string> = {}) => ({ ...TEST_TARGET, ...labels });
