import { nativeNames, type NamingProfile } from '../model/naming-profile.js';
import { kbuddeProfile } from './kbudde/profile.js';

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
