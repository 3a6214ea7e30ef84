import type { CollectorSpec } from './collector-spec.js';
import { ConfigError } from './config-error.js';
import type { ExporterConfig } from './exporter-config.js';
import { formatIssues, sourceOf } from './messages.js';
import { resolve } from './resolve-config.js';
import { configSchema } from './schema.js';
import { resolveSharding } from './sharding.js';
import { readConfigTree, type ConfigFlags, type Env } from './sources.js';
import { resolveEntry } from './target-entries.js';

/**
 * Flags over environment over file over defaults. Throws ConfigError naming the key and its source.
 * `collectors`: every collector the exporter has (their names, defaults and option schemas).
 */
export function loadConfig(flags: ConfigFlags, env: Env, collectors: readonly CollectorSpec[]): ExporterConfig {
  const file = flags.config;
  const { raw, sources, shardingInFile, kbuddeVariables } = readConfigTree(flags, env, collectors.map((c) => c.name));
  const schema = configSchema(collectors);

  // Entries of `targets:` are merged with the top level before the top level's defaults apply.
  const pristine = structuredClone(raw);
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(formatIssues(result.error.issues, file, sources, collectors.map((c) => c.name), undefined, schema));
  }
  const sharding = resolveSharding(result.data.sharding, env, (key) =>
    sources.has(key) || shardingInFile.has(key) ? `${sourceOf(key, file, sources)}: key "${key}"` : `the default of key "${key}"`,
  );
  const top = resolve(result.data, collectors, file, sources);
  const entries = result.data.targets;
  const targets = entries === undefined ? top.targets : entries.map((_, i) => resolveEntry(pristine, i, schema, collectors, file, sources));
  return { ...top, sharding, kbuddeVariables, targets: targets.map((setup) => ({ ...setup, sharding, naming: top.naming, kbudde: top.kbudde })) };
}
