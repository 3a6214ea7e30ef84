import type { MetricDef } from '../model/metric-def.js';
import { nativeNames, type NamingProfile } from '../model/naming-profile.js';
import { excludedFamilies } from './kbudde/exclusions.js';
import { kbuddeProfile } from './kbudde/profile.js';
import type { KbuddeSettings } from './kbudde/settings.js';

/**
 * Every naming profile, by its value of the `naming` setting (flag --naming, EXPORTER_NAMING).
 * Adding one is a folder beside kbudde/ and a line here.
 */
const PROFILES = { native: nativeNames, kbudde: kbuddeProfile } as const satisfies Record<string, NamingProfile>;

export type NamingProfileName = keyof typeof PROFILES;
export const NAMING_PROFILES = Object.keys(PROFILES) as [NamingProfileName, ...NamingProfileName[]];

/**
 * What a target's samples are renamed by under `naming`: undefined for the native profile, whose
 * names the collectors write already (its sinks render as they go, with nothing to relabel).
 */
export function renaming(naming: NamingProfileName | undefined): NamingProfile | undefined {
  const profile = PROFILES[naming ?? 'native'];
  return profile === nativeNames ? undefined : profile;
}

/** A target's profile as its sinks use it: the names, and what its settings make of them. */
export interface TargetProfile {
  readonly names: NamingProfile;
  /** `self` is "lb" on every series (behind a load balancer the node answering changes from request to request). */
  readonly loadBalanced: boolean;
  /** The families of `metrics` the settings leave out although the profile serves them. */
  excluded(metrics: readonly MetricDef[]): ReadonlySet<MetricDef>;
}

/** The profile a target's samples are written under, chosen once per target; undefined for the native names. */
export function targetProfile(naming: NamingProfileName | undefined, kbudde: KbuddeSettings | undefined): TargetProfile | undefined {
  const names = renaming(naming);
  if (!names) return undefined;
  return {
    names,
    loadBalanced: kbudde?.connection === 'loadbalancer',
    excluded: (metrics) => excludedFamilies(metrics, kbudde?.excludeMetrics ?? []),
  };
}
