import type { MetricDef } from '../model/metric-def.js';
import { nativeNames, type NamingProfile } from '../exposition/naming-profile.js';
import { kbuddeProfile } from './kbudde/profile.js';
import { kbuddeSettings } from './kbudde/settings.js';
import type { EnvironmentContext, ProfileSettings, StartupWarning, VariablesSeen } from './profile-settings.js';

/**
 * Every naming profile, by its value of the `naming` setting (flag --naming, EXPORTER_NAMING).
 * Adding one is a folder beside kbudde/ and a line here (and one in SETTINGS when it has settings).
 */
const PROFILES = { native: nativeNames, kbudde: kbuddeProfile } as const satisfies Record<string, NamingProfile>;

/** The profiles with a configuration part of their own (profile-settings.ts), by name. */
const SETTINGS = { kbudde: kbuddeSettings } as const;

export type NamingProfileName = keyof typeof PROFILES;
export const NAMING_PROFILES = Object.keys(PROFILES) as [NamingProfileName, ...NamingProfileName[]];

/** The flag's help: what each profile's names are. */
export const NAMING_HELP = "metric names: this exporter's (default), or kbudde/rabbitmq_exporter's\n(docs/kbudde-migration.md)";
/** The usage's last lines: the variables the profiles read. */
export const PROFILE_ENVIRONMENT_HELP = "With --naming=kbudde or EXPORTER_NAMING=kbudde and no --config, also kbudde/rabbitmq_exporter's\n(RABBIT_URL, RABBIT_EXPORTERS, ...: docs/kbudde-migration.md).";

type Settings = typeof SETTINGS;
// biome-ignore lint/suspicious/noExplicitAny: each profile's hooks have their own section and settings types; the helpers below only pass one's own values back to it.
type AnySettings = ProfileSettings<any, any>;
const settingsEntries = Object.entries(SETTINGS) as [keyof Settings, AnySettings][];

/** Each profile's settings in force, by profile name (the configuration carries them all; the chosen one's apply). */
export type ProfileSettingsInForce = { [K in keyof Settings]: ReturnType<Settings[K]['resolve']> };
/** Each profile's variables read, ignored or set while it is off. */
export type ProfileVariables = { -readonly [K in keyof Settings]: VariablesSeen };

/** The config file's sections the profiles add (`kbudde:`), for the schema. */
export function profileSections(): { [K in keyof Settings]: Settings[K]['section'] } {
  return Object.fromEntries(settingsEntries.map(([name, hooks]) => [name, hooks.section])) as { [K in keyof Settings]: Settings[K]['section'] };
}

/** The validated sections made into each profile's settings in force. */
export function resolveProfileSettings(file: { [K in keyof Settings]: unknown }): ProfileSettingsInForce {
  return Object.fromEntries(settingsEntries.map(([name, hooks]) => [name, hooks.resolve(file[name])])) as ProfileSettingsInForce;
}

/** The secret files the profiles' variables name (read ahead with the config file, whichever profile is chosen). */
export function profileSecretFiles(env: EnvironmentContext['env']): string[] {
  return settingsEntries.flatMap(([, hooks]) => hooks.secretFileVariables.flatMap((variable) => (env[variable] ? [env[variable]] : [])));
}

/**
 * The chosen profile's variables written into the tree (only without a config file: with one, the
 * file wins); the others' set variables only noted, for the start-up warnings.
 */
export function readProfileEnvironment(chosen: unknown, withConfigFile: boolean, context: EnvironmentContext): ProfileVariables {
  const seen = {} as ProfileVariables;
  for (const [name, hooks] of settingsEntries) {
    // An empty value counts: the other exporter read it as unset, so do we.
    const set = hooks.variables.filter((variable) => context.env[variable] !== undefined);
    if (name !== chosen) seen[name] = { read: [], ignored: [], profileOff: set };
    else if (withConfigFile) seen[name] = { read: [], ignored: set, profileOff: [] };
    else {
      seen[name] = { read: set, ignored: [], profileOff: [] };
      hooks.putEnvironment(context);
    }
  }
  return seen;
}

/** Every profile's start-up warnings about its variables. */
export function profileStartupWarnings(seen: ProfileVariables | undefined, configFile: string | undefined): StartupWarning[] {
  return settingsEntries.flatMap(([name, hooks]) => (seen ? hooks.startupWarnings(seen[name], configFile) : []));
}

/** The chosen profile's part of the configuration logged at debug (nothing for a profile without settings). */
export function chosenProfileView(naming: NamingProfileName, settings: ProfileSettingsInForce, seen: ProfileVariables | undefined): Record<string, unknown> {
  const hooks = settingsOf(naming);
  return hooks ? hooks.redactedView(settings[naming as keyof Settings], seen?.[naming as keyof Settings]) : {};
}

/** The chosen profile's fields on the start-up line. */
export function chosenProfileStartingFields(naming: NamingProfileName, seen: ProfileVariables | undefined): Record<string, unknown> {
  return settingsOf(naming)?.startingFields(seen?.[naming as keyof Settings]) ?? {};
}

function settingsOf(naming: NamingProfileName | undefined): AnySettings | undefined {
  return settingsEntries.find(([name]) => name === naming)?.[1];
}

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
export function targetProfile(naming: NamingProfileName | undefined, settings: ProfileSettingsInForce | undefined): TargetProfile | undefined {
  const names = renaming(naming);
  if (!names) return undefined;
  const hooks = settingsOf(naming);
  const options = hooks && settings ? hooks.seriesOptions(settings[naming as keyof Settings]) : undefined;
  return {
    names,
    loadBalanced: options?.loadBalanced ?? false,
    excluded: (metrics) => options?.excluded(metrics) ?? new Set(),
  };
}
