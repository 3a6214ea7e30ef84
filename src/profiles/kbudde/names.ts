import type { MetricDef, ProfileName } from '../../model/metric-def.js';
import { type LabelSource, type NamingProfile, type ProfiledFamily, type ProfiledRow, profiledFamilyOf, servedAsNative } from '../../exposition/naming-profile.js';

/** The exporter's own family kbudde serves under the same name with labels of its own: written apart (./own-series.ts). */
const KBUDDE_OWN_NAMES = new Set(['rabbitmq_exporter_build_info']);

const kbuddeRows = new WeakMap<MetricDef, ProfiledRow | null>();

/**
 * kbudde/rabbitmq_exporter's names (docs/kbudde-migration.md), read from each row's
 * `names.kbudde`: the rows that have one, and the exporter's own health series unchanged (except
 * rabbitmq_exporter_build_info, whose name kbudde uses with other labels). Worked out once per
 * family and kept.
 */
export const kbuddeNames: NamingProfile = {
  name: 'kbudde',
  served(def: MetricDef): ProfiledRow | undefined {
    let known = kbuddeRows.get(def);
    if (known === undefined) {
      known = kbuddeRow(def) ?? null;
      kbuddeRows.set(def, known);
    }
    return known ?? undefined;
  },
};

function kbuddeRow(def: MetricDef): ProfiledRow | undefined {
  const kbudde = def.names?.kbudde;
  if (!kbudde) {
    if (def.owner !== 'exporter' || KBUDDE_OWN_NAMES.has(def.name)) return undefined;
    return servedAsNative(def);
  }
  const labels = kbudde.labels ?? def.labels;
  const sources = labels.map((name) => labelSource(def, kbudde, name));
  const served = (name: string): ProfiledFamily =>
    profiledFamilyOf({ ...def, name, type: kbudde.type ?? def.type, labels, names: undefined, rate: undefined }, sources, kbudde.scale);
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
