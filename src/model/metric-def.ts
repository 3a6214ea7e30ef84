/**
 * What the catalogue knows about one metric family. Every series the exporter serves
 * belongs to exactly one MetricDef, owned by exactly one collector (or by the exporter
 * itself), so families never need merging across collectors.
 */
/** A histogram's series are `<name>_bucket` (with `le`), `<name>_count` and `<name>_sum`. */
export type MetricType = 'gauge' | 'counter' | 'histogram';

export type MetricUnit = 'bytes' | 'seconds' | 'ratio' | 'per_second' | 'bytes_per_second' | '';

/**
 * Where a family's value is read when it is a field of the broker's record: a dot path into
 * the JSON (`message_stats.publish`) and the factor to base units (ms → s is 0.001). Absent on
 * computed families (aggregates, `_info`, states), which their collector writes itself.
 */
export interface MetricSource {
  readonly field: string;
  /** Multiplier to base units; 1 when absent. */
  readonly scale?: number;
}

/** The names a naming profile other than the default one gives a family. */
export interface ProfileName {
  /** The family's name; absent when `familyPerValue` names one family per label value instead. */
  readonly name?: string;
  readonly type?: MetricType;
  /** Label names under that profile, when they differ from the default ones. */
  readonly labels?: readonly string[];
  /**
   * Labels the row lacks, read from the record each series comes from: label name → field (a dot
   * path, as in `source`). `self` names the field holding the object's node; without it, `self`
   * reads the row's own `node` label.
   */
  readonly fields?: Readonly<Record<string, string>>;
  /** The profile's value is the row's times this (kbudde's uptime is in milliseconds: 1000). */
  readonly scale?: number;
  /**
   * One family per value of one of the row's labels (kbudde's memory families: area="binary" is
   * rabbitmq_memory_binary_bytes): label value → family name. That label is not served; series
   * with a value not listed are left out.
   */
  readonly familyPerValue?: { readonly label: string; readonly names: Readonly<Record<string, string>> };
  /** A profile label → the native label whose value it carries, when their names differ. */
  readonly labelFrom?: Readonly<Record<string, string>>;
  /** Labels computed from several fields of the record (kbudde's queue state). */
  readonly derived?: Readonly<Record<string, DerivedLabel>>;
}

/** A label a profile computes from fields of the record: kbudde's queue state is `idle` for a running queue with idle_since. */
export interface DerivedLabel {
  /** Tells label sets apart in the sink's cache (the function itself cannot be compared). */
  readonly id: string;
  /** The record's top-level fields it reads: asked for with columns= and held over counts-only polls. */
  readonly reads: readonly string[];
  readonly value: (record: Readonly<Record<string, unknown>>) => string;
}

/**
 * Other naming profiles, one column each of the same row: the family's value, field and
 * scaling stay those of the row; only what it is called changes. `kbudde`: kbudde/rabbitmq_exporter's
 * names, served with `naming: kbudde` (src/exposition/naming-profile.ts). Labels a profile adds beyond
 * the row's may be only `cluster`, `self`, `node` (the node that answered /api/overview, on families
 * without a `node` label), and those read from the record's `fields`.
 */
export interface NamingProfiles {
  readonly kbudde?: ProfileName;
}

export interface MetricDef {
  /** Full exposition name; counters end in `_total`. */
  readonly name: string;
  readonly type: MetricType;
  readonly unit: MetricUnit;
  readonly help: string;
  /** Label names in the order collectors pass label values. */
  readonly labels: readonly string[];
  /** The collector that emits it, or `exporter` for the exporter's own series. */
  readonly owner: string;
  /** The gauge fed from the management API's `<field>_details.rate`, when the family has one. */
  readonly rate?: MetricDef;
  /** The collector polling it in the background (absent on the exporter's own series). */
  readonly polledBy?: string;
  /** The record field it is read from, when it is one (see fieldTable). */
  readonly source?: MetricSource;
  /** Its names under other naming profiles. */
  readonly names?: NamingProfiles;
  /** The option of its collector (`collectors.<owner>.<option>`) that turns it on, when it is off by default. */
  readonly option?: string;
  /** Named as another exporter names it (MetricSpec.relayed). */
  readonly relayed?: boolean;
}

export interface MetricSpec {
  type: MetricType;
  help: string;
  labels?: readonly string[];
  unit?: MetricUnit;
  /** Also define the gauge for the API's `_details.rate` of the same field. */
  rate?: boolean;
  /** The record field it is read from; absent on computed families. */
  source?: MetricSource;
  names?: NamingProfiles;
  /** The names of the `rate` gauge under other naming profiles. */
  rateNames?: NamingProfiles;
  /** The option of its collector that turns it on, when it is off by default (dashboards say so where it has no data). */
  option?: string;
  /**
   * Served under the name another exporter gives it (rabbitmq_prometheus's erlang_vm_*), for the
   * dashboards written for that one: a gauge may then end in `_total`, as the plugin names some.
   */
  relayed?: boolean;
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Builds one collector's part of the catalogue and checks the naming conventions early. */
export function defineMetrics<K extends string>(
  owner: string,
  specs: Record<K, MetricSpec & { name: string }>,
): Record<K, MetricDef> {
  const out = {} as Record<K, MetricDef>;
  for (const key of Object.keys(specs) as K[]) {
    const spec = specs[key];
    const def: MetricDef = {
      name: spec.name,
      type: spec.type,
      unit: spec.unit ?? inferUnit(spec.name),
      help: spec.help,
      labels: spec.labels ?? [],
      owner,
      ...(owner === 'exporter' ? {} : { polledBy: owner }),
      ...(spec.rate ? { rate: rateDef(spec, owner) } : {}),
      ...(spec.source ? { source: spec.source } : {}),
      ...(spec.names ? { names: spec.names } : {}),
      ...(spec.option ? { option: spec.option } : {}),
      ...(spec.relayed ? { relayed: true } : {}),
    };
    assertConventions(def);
    if (def.rate) assertConventions(def.rate);
    out[key] = def;
  }
  return out;
}

/**
 * A collector's families in the order of its rows, each rate gauge right after its family:
 * the collector's `metrics` list (and the order of docs/metrics.md).
 */
export function metricsOf(...parts: readonly (Readonly<Record<string, MetricDef>> | readonly MetricDef[])[]): MetricDef[] {
  const out: MetricDef[] = [];
  for (const part of parts) {
    for (const def of Object.values(part) as MetricDef[]) {
      out.push(def);
      if (def.rate) out.push(def.rate);
    }
  }
  return out;
}

/**
 * The management API computes `_details.rate` over its own sampling window. Counters get
 * `<base>_per_second`; gauges get `<name>_change_per_second`, since theirs is a slope.
 */
function rateDef(spec: MetricSpec & { name: string }, owner: string): MetricDef {
  const name =
    spec.type === 'counter'
      ? `${spec.name.replace(/_total$/, '')}_per_second`
      : `${spec.name}_change_per_second`;
  return {
    name,
    type: 'gauge',
    unit: inferUnit(name),
    help: `Per-second rate of ${spec.name} as computed by the management API over its sampling window (the field's _details.rate).`,
    labels: spec.labels ?? [],
    owner,
    polledBy: owner,
    ...(spec.rateNames ? { names: spec.rateNames } : {}),
    ...(spec.option ? { option: spec.option } : {}),
  };
}

function inferUnit(name: string): MetricUnit {
  const base = name.replace(/_total$/, '');
  if (base.endsWith('_bytes_per_second')) return 'bytes_per_second';
  if (base.endsWith('_per_second')) return 'per_second';
  if (base.endsWith('_bytes')) return 'bytes';
  if (base.endsWith('_seconds')) return 'seconds';
  if (base.endsWith('_ratio')) return 'ratio';
  return '';
}

export function assertConventions(def: MetricDef): void {
  if (!NAME_RE.test(def.name)) throw new Error(`metric name ${def.name} is not a valid Prometheus name`);
  if (def.type === 'counter' && !def.name.endsWith('_total')) {
    throw new Error(`counter ${def.name} must end in _total`);
  }
  if (def.type === 'gauge' && def.name.endsWith('_total') && !def.relayed) {
    throw new Error(`gauge ${def.name} must not end in _total`);
  }
  if (def.type === 'histogram') {
    if (/_(total|bucket|count|sum)$/.test(def.name)) throw new Error(`histogram ${def.name} must not end in _total, _bucket, _count or _sum (its series add those)`);
    if (def.labels.includes('le')) throw new Error(`histogram ${def.name} must not declare le: its buckets carry it`);
  }
  for (const label of def.labels) {
    if (!LABEL_RE.test(label) || label.startsWith('__')) {
      throw new Error(`metric ${def.name} has an invalid label name ${label}`);
    }
  }
  if (new Set(def.labels).size !== def.labels.length) {
    throw new Error(`metric ${def.name} repeats a label name`);
  }
  if (def.help.trim() === '') throw new Error(`metric ${def.name} has no help`);
}
