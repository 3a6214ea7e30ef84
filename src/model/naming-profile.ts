import type { DerivedLabel, MetricDef, ProfileName } from './metric-def.js';

/**
 * Naming profiles: which names, types and labels the families are served under. `native` is the
 * catalogue's own; `kbudde` is kbudde/rabbitmq_exporter's (docs/kbudde-migration.md), read from
 * each row's `names.kbudde`. The value path (field, scaling) is the row's in every profile; a
 * profile may only multiply the row's value by a constant (`scale`).
 */
export const NAMING_PROFILES = ['native', 'kbudde'] as const;
export type NamingProfileName = (typeof NAMING_PROFILES)[number];

/**
 * Where one label of a profile's family comes from: a label of the native family (of the same
 * name, or the one the row's `labelFrom` names), the cluster's name (`cluster`), a field of the
 * record the series comes from (`field`), whether the series' node is the node that answered
 * /api/overview (`self`: "1" or "0"; that node being the row's `node` label or, with `path`, a
 * field of the record), or, on a family without a node label of its own, the name of the node that
 * answered (`node`: kbudde's rabbitmq_up and rabbitmq_version_info carry it).
 */
export type LabelSource =
  | { readonly from: 'label'; readonly name: string }
  | { readonly from: 'cluster' }
  | { readonly from: 'field'; readonly path: readonly string[] }
  | { readonly from: 'derived'; readonly label: DerivedLabel }
  | { readonly from: 'self'; readonly path?: readonly string[] }
  | { readonly from: 'node' };

/** A family as a profile serves it: its header, and where each of its labels comes from. */
export interface ProfiledFamily {
  readonly def: MetricDef;
  readonly labels: readonly LabelSource[];
  /**
   * The same for every family with the same label names and sources: the sink renders a record's
   * label set once for all its families that share it.
   */
  readonly labelsKey: string;
  /** Multiplier of the row's value, when the profile's unit differs. */
  readonly scale?: number;
  /** Whether a label reads the record's fields: the collector must pass the record. */
  readonly readsRecord: boolean;
}

/** A row served as one family per value of its label `label` (`names.kbudde.familyPerValue`). */
export interface FamiliesPerValue {
  readonly label: string;
  readonly families: ReadonlyMap<string, ProfiledFamily>;
}

/** What a row is served as under a profile: one family, or one per value of a label. */
export type ProfiledRow = ProfiledFamily | FamiliesPerValue;

export function isPerValue(row: ProfiledRow): row is FamiliesPerValue {
  return 'families' in row;
}

/** The exporter's own family kbudde serves under the same name with labels of its own: written apart (self/exporter-metrics.ts). */
const KBUDDE_OWN_NAMES = new Set(['rabbitmq_exporter_build_info']);

const kbuddeRows = new WeakMap<MetricDef, ProfiledRow | null>();

/**
 * The family `def` is served as under `profile`, or undefined when that profile does not serve
 * it. Worked out once per family and kept. Under `kbudde`: the rows with `names.kbudde`, and the
 * exporter's own health series unchanged (except rabbitmq_exporter_build_info, whose name kbudde uses with other labels).
 */
export function profiledFamily(profile: NamingProfileName, def: MetricDef): ProfiledRow | undefined {
  if (profile === 'native') return nativeFamily(def);
  let known = kbuddeRows.get(def);
  if (known === undefined) {
    known = kbuddeRow(def) ?? null;
    kbuddeRows.set(def, known);
  }
  return known ?? undefined;
}

function nativeFamily(def: MetricDef): ProfiledFamily {
  return family(def, def.labels.map((name) => ({ from: 'label', name })));
}

function kbuddeRow(def: MetricDef): ProfiledRow | undefined {
  const kbudde = def.names?.kbudde;
  if (!kbudde) {
    if (def.owner !== 'exporter' || KBUDDE_OWN_NAMES.has(def.name)) return undefined;
    return nativeFamily(def);
  }
  const labels = kbudde.labels ?? def.labels;
  const sources = labels.map((name) => labelSource(def, kbudde, name));
  const served = (name: string): ProfiledFamily =>
    family({ ...def, name, type: kbudde.type ?? def.type, labels, names: undefined, rate: undefined }, sources, kbudde.scale);
  const perValue = kbudde.familyPerValue;
  if (perValue && kbudde.name === undefined) {
    if (!def.labels.includes(perValue.label) || labels.includes(perValue.label)) {
      throw new Error(`${def.name}: its kbudde families are per value of ${perValue.label}, which must be one of its own labels and not one of kbudde's`);
    }
    return { label: perValue.label, families: new Map(Object.entries(perValue.names).map(([value, name]) => [value, served(name)])) };
  }
  if (perValue || kbudde.name === undefined) throw new Error(`${def.name}: its kbudde names need either name or familyPerValue, not both`);
  return served(kbudde.name);
}

function labelSource(def: MetricDef, kbudde: ProfileName, name: string): LabelSource {
  const derived = kbudde.derived?.[name];
  if (derived) return { from: 'derived', label: derived };
  const field = kbudde.fields?.[name];
  if (name === 'self') {
    if (field !== undefined) return { from: 'self', path: field.split('.') };
    if (def.labels.includes('node')) return { from: 'self' };
  } else if (field !== undefined) {
    return { from: 'field', path: field.split('.') };
  }
  const native = kbudde.labelFrom?.[name] ?? name;
  if (def.labels.includes(native)) return { from: 'label', name: native };
  if (name === 'cluster') return { from: 'cluster' };
  if (name === 'node') return { from: 'node' };
  throw new Error(`${def.name}: its kbudde label ${name} is neither one of its own labels (${def.labels.join(', ')}), a field of its record, nor cluster, self or node`);
}

/** One string per distinct key, so that the sink compares keys by reference. */
const labelsKeys = new Map<string, string>();

function family(def: MetricDef, labels: readonly LabelSource[], scale?: number): ProfiledFamily {
  const key = JSON.stringify([def.labels, labels]);
  if (!labelsKeys.has(key)) labelsKeys.set(key, key);
  return {
    def,
    labels,
    labelsKey: labelsKeys.get(key)!,
    ...(scale !== undefined && scale !== 1 ? { scale } : {}),
    readsRecord: labels.some((source) => ('path' in source && source.path !== undefined) || source.from === 'derived'),
  };
}

/** Every family the profile serves among `defs`, as served: the table the profile tests check. */
export function servedFamilies(profile: NamingProfileName, defs: readonly MetricDef[]): ProfiledFamily[] {
  return defs.flatMap((def) => {
    const row = profiledFamily(profile, def);
    if (!row) return [];
    return isPerValue(row) ? [...row.families.values()] : [row];
  });
}

/**
 * The record fields the profile's labels read for `defs` (top-level names): what a collector
 * that asks for `columns=` adds to them under that profile. None under `native`.
 */
export function labelFieldsRead(profile: NamingProfileName, defs: readonly MetricDef[]): string[] {
  const fields = new Set<string>();
  for (const served of servedFamilies(profile, defs)) {
    for (const source of served.labels) {
      if ('path' in source && source.path) fields.add(source.path[0]!);
      if (source.from === 'derived') for (const field of source.label.reads) fields.add(field);
    }
  }
  return [...fields];
}
