import type { DerivedLabel, MetricDef } from '../model/metric-def.js';
import type { RenderedFamily } from './text-format.js';

/**
 * A naming profile: which names, types and labels the families are served under. The native
 * profile is the catalogue's own; the others live in src/profiles/ (one folder each), and
 * src/profiles/profiles.ts lists them. A target chooses one once (its `naming` setting). The value
 * path (field, scaling) is the row's in every profile; a profile may only multiply the row's value
 * by a constant (`scale`).
 */
export interface NamingProfile {
  /** Its value of the `naming` setting. */
  readonly name: string;
  /** The family `def` is served as, or undefined when the profile does not serve it. */
  served(def: MetricDef): ProfiledRow | undefined;
  /** Series of the exporter's own that the profile adds, and its own rabbitmq_up (module health, say). */
  readonly ownSeries?: ProfileOwnSeries;
}

/** What a profile's own series read of a target's polls (a TargetState is one). */
export interface ProfilePolls {
  /** rabbitmq_up as the native names serve it: the last poll of the collector describing the broker succeeded. */
  readonly up: boolean;
  readonly collectors: ReadonlyMap<string, { readonly lastSuccess: boolean | undefined; readonly lastDurationSeconds: number | undefined }>;
}

/** What a profile's own series read of a target besides its polls. */
export interface ProfileTargetView {
  /** The cluster's name and the node that answered /api/overview; undefined until it has answered. */
  broker(): { clusterName: string; node: string } | undefined;
  /** Each collector that runs on the target, with its options, in the order they run. */
  readonly running: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

/** The build the exporter's own series describe. */
export interface BuildView {
  readonly version: string;
  readonly revision: string;
  readonly branch: string;
  readonly buildDate: string;
}

export interface ProfileOwnSeries {
  /** rabbitmq_up under the profile. */
  up(polls: ProfilePolls, view: ProfileTargetView): boolean;
  /** Its own families for one target, or (no target) those served once per process; `withProcess`: with the process-wide ones. */
  families(target: { polls: ProfilePolls; view: ProfileTargetView } | undefined, withProcess: boolean, build: BuildView): RenderedFamily[];
}

/**
 * Where one label of a profile's family comes from: a label of the native family (of the same
 * name, or the one the row's `labelFrom` names), the cluster's name (`cluster`), a field of the
 * record the series comes from (`field`), whether the series' node is the node that answered
 * /api/overview (`self`: "1" or "0"; that node being the row's `node` label or, with `path`, a
 * field of the record), or, on a family without a node label of its own, the name of the node that
 * answered (`node`).
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

/** A row served as one family per value of its label `label` (a profile's `familyPerValue`). */
export interface FamiliesPerValue {
  readonly label: string;
  readonly families: ReadonlyMap<string, ProfiledFamily>;
}

/** What a row is served as under a profile: one family, or one per value of a label. */
export type ProfiledRow = ProfiledFamily | FamiliesPerValue;

export function isPerValue(row: ProfiledRow): row is FamiliesPerValue {
  return 'families' in row;
}

/** The family `def` as the catalogue names it: the native profile's, and a profile's for the rows it serves unchanged. */
export function servedAsNative(def: MetricDef): ProfiledFamily {
  return profiledFamilyOf(def, def.labels.map((name) => ({ from: 'label', name })));
}

/** The native profile: every family as the catalogue names it. */
export const nativeNames: NamingProfile = { name: 'native', served: servedAsNative };

/** One string per distinct key, so that the sink compares keys by reference. */
const labelsKeys = new Map<string, string>();

/** A family served with these label sources (and `scale` × the row's value): the one shape every profile's families take. */
export function profiledFamilyOf(def: MetricDef, labels: readonly LabelSource[], scale?: number): ProfiledFamily {
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
export function servedFamilies(profile: NamingProfile, defs: readonly MetricDef[]): ProfiledFamily[] {
  return defs.flatMap((def) => {
    const row = profile.served(def);
    if (!row) return [];
    return isPerValue(row) ? [...row.families.values()] : [row];
  });
}

/**
 * The record fields the profile's labels read for `defs` (top-level names): what a collector
 * that asks for `columns=` adds to them under that profile. None under the native one.
 */
export function labelFieldsRead(profile: NamingProfile, defs: readonly MetricDef[]): string[] {
  const fields = new Set<string>();
  for (const served of servedFamilies(profile, defs)) {
    for (const source of served.labels) {
      if ('path' in source && source.path) fields.add(source.path[0]!);
      if (source.from === 'derived') for (const field of source.label.reads) fields.add(field);
    }
  }
  return [...fields];
}
