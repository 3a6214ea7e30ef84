import type { CliFlags } from './config/args.js';
import type { ExporterConfig } from './config/exporter-config.js';
import { BUILD_INFO, VERSION } from './pipeline/version.js';
import { chosenProfileStartingFields } from './profiles/profiles.js';

/**
 * The start-up line's fields, short as the exporter-toolkit's ("Starting node_exporter" version=...):
 * what was built, where it listens, how many targets and from which files (and what the chosen
 * naming profile adds: the names of the variables it read). Counts, names and paths only, never a target's
 * URL or user: the whole configuration (redacted) is logged at debug.
 */
export function startingFields(config: ExporterConfig, flags: Pick<CliFlags, 'webConfigFile'>): Record<string, unknown> {
  return {
    version: VERSION,
    revision: BUILD_INFO.revision,
    branch: BUILD_INFO.branch,
    node: process.version,
    listen_addresses: config.listenAddresses,
    targets: config.targets.length,
    config_file: config.configFile ?? null,
    web_config_file: flags.webConfigFile ?? null,
    ...chosenProfileStartingFields(config.naming, config.profileVariables),
  };
}
