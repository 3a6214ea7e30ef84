import type { MetricDef } from './metric-def.js';

/**
 * Naming profiles: which names, types and labels the families are served under. `native` is the
 * catalogue's own; `kbudde` is kbudde/rabbitmq_exporter's (docs/kbudde-migration.md), read from
 * each row's `names.kbudde`. The value path (field, scaling) is the row's in every profile.
 */
export const NAMING_PROFILES = ['native', 'kbudde'] as const;
export type NamingProfileName = (typeof NAMING_PROFILES)[number];

/**
 * Where one label of a profile's family comes from: a label of the native family (of the same
 * name, or the one the row's `labelFrom` names), the cluster's name (`cluster`), whether the
 * series' `node` label is the node that answered /api/overview (`self`: "1" or "0"), or, on a
 * family without a node label of its own, that node's name (`node`: kbudde's rabbitmq_up and
 * rabbitmq_version_info carry it).
 */
export type LabelSource =
  | { readonly from: 'label'; readonly name: string }
  | { readonly from: 'cluster' }
  | { readonly from: 'self' }
  | { readonly from: 'node' };

/** A family as a profile serves it: its header, and where each of its labels comes from. */
export interface ProfiledFamily {
  readonly def: MetricDef;
  readonly labels: readonly LabelSource[];
}

/** The exporter's own family kbudde serves under the same name with labels of its own: written apart (self/exporter-metrics.ts). */
const KBUDDE_OWN_NAMES = new Set(['rabbitmq_exporter_build_info']);

const kbuddeFamilies = new WeakMap<MetricDef, ProfiledFamily | null>();

/**
 * The family `def` is served as under `profile`, or undefined when that profile does not serve
 * it. Worked out once per family and kept. Under `kbudde`: the rows with `names.kbudde`, and the
 * exporter's own health series unchanged (except rabbitmq_exporter_build_info, whose name kbudde uses with other labels).
 */
export function profiledFamily(profile: NamingProfileName, def: MetricDef): ProfiledFamily | undefined {
  if (profile === 'native') return { def, labels: def.labels.map((name) => ({ from: 'label', name })) };
  let known = kbuddeFamilies.get(def);
  if (known === undefined) {
    known = kbuddeFamily(def) ?? null;
    kbuddeFamilies.set(def, known);
  }
  return known ?? undefined;
}

function kbuddeFamily(def: MetricDef): ProfiledFamily | undefined {
  const kbudde = def.names?.kbudde;
  if (!kbudde) {
    if (def.owner !== 'exporter' || KBUDDE_OWN_NAMES.has(def.name)) return undefined;
    return profiledFamily('native', def);
  }
  const labels = kbudde.labels ?? def.labels;
  const sources = labels.map((name): LabelSource => {
    const native = kbudde.labelFrom?.[name] ?? name;
    if (def.labels.includes(native)) return { from: 'label', name: native };
    if (name === 'cluster') return { from: 'cluster' };
    if (name === 'self' && def.labels.includes('node')) return { from: 'self' };
    if (name === 'node') return { from: 'node' };
    throw new Error(`${def.name}: its kbudde label ${name} is neither one of its own labels (${def.labels.join(', ')}) nor cluster, self or node`);
  });
  return {
    def: { ...def, name: kbudde.name, type: kbudde.type ?? def.type, labels, names: undefined, rate: undefined },
    labels: sources,
  };
}

/** Every family the profile serves among `defs`, as served: the table the profile tests check. */
export function servedFamilies(profile: NamingProfileName, defs: readonly MetricDef[]): ProfiledFamily[] {
  return defs.flatMap((def) => profiledFamily(profile, def) ?? []);
}
