import type { z } from 'zod';
import type { MetricDef } from '../model/metric-def.js';

/**
 * What a naming profile brings to the configuration besides its names: its section of the config
 * file, the environment variables it reads (another exporter's, for a migration) and how they map
 * onto the configuration tree, its part of the start-up log and its warnings, and what its settings
 * make of a target's series. The configuration asks these of the profiles listed in profiles.ts and
 * never names a profile; a profile without settings has none.
 */
export interface ProfileSettings<Section extends z.ZodType, Settings> {
  /** The file's `<profile name>:` section, defaults included (validated with the rest of the file). */
  readonly section: Section;
  /** The validated section made into the settings in force. */
  resolve(section: z.output<Section>): Settings;
  /** The environment variables the profile reads when chosen (set but not read otherwise: reported). */
  readonly variables: readonly string[];
  /** Variables naming secret files the environment step reads (read ahead with the config file). */
  readonly secretFileVariables: readonly string[];
  /** Writes the variables, or their defaults, into the tree: chosen profile, no config file. */
  putEnvironment(context: EnvironmentContext): void;
  /** Warnings for the start-up log about its variables (names only, never values). */
  startupWarnings(seen: VariablesSeen, configFile: string | undefined): StartupWarning[];
  /** Its part of the configuration in force as logged at debug, when chosen (no secret). */
  redactedView(settings: Settings, seen: VariablesSeen | undefined): Record<string, unknown>;
  /** Its fields on the short start-up line, when chosen. */
  startingFields(seen: VariablesSeen | undefined): Record<string, unknown>;
  /** What the settings make of a target's series. */
  seriesOptions(settings: Settings): SeriesOptions;
}

export type Env = Record<string, string | undefined>;

/** Writes one value into the configuration tree; `source` names where it came from in messages. */
export type PutKey = (path: string[], value: unknown, source: string) => void;

export interface EnvironmentContext {
  readonly env: Env;
  readonly put: PutKey;
  /** Every collector the exporter has, by name. */
  readonly collectors: readonly string[];
  /** A secret file's content as text; `source` names the variable for messages. */
  readSecret(path: string, source: string): string;
}

/** A profile's variables read (chosen, no config file), set but ignored (a config file wins), or set while the profile is off. */
export interface VariablesSeen {
  read: string[];
  ignored: string[];
  profileOff: string[];
}

export interface StartupWarning {
  fields: Record<string, unknown>;
  message: string;
}

export interface SeriesOptions {
  /** `self` is "lb" on every series (behind a load balancer the node answering changes from request to request). */
  readonly loadBalanced: boolean;
  /** The families of `metrics` the settings leave out although the profile serves them. */
  excluded(metrics: readonly MetricDef[]): ReadonlySet<MetricDef>;
}

/** A variable's value the profile refuses; the configuration reports it as a configuration error. */
export class SettingError extends Error {}
