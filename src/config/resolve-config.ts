import { resolveCollectors } from './collector-settings.js';
import type { CollectorSpec } from './collector-spec.js';
import type { ExporterConfig, PollConfig } from './exporter-config.js';
import { sameKey, type KeyName, type KeySources } from './messages.js';
import type { FileConfig } from './schema.js';
import type { FileSource } from './config-files.js';
import { resolveProfileSettings } from '../profiles/profiles.js';
import { checkTlsPair, resolveLogin, resolveTarget } from './target-settings.js';

/** A validated tree made into the configuration in force: durations in ms, files read, defaults derived. */
export function resolve(config: FileConfig, specs: readonly CollectorSpec[], file: string | undefined, sources: KeySources, files: FileSource, keyName: KeyName = sameKey): ExporterConfig {
  const login = resolveLogin(config.target, file, sources, keyName, files);
  checkTlsPair(config.target, file, keyName);
  const collectors = resolveCollectors(config, specs, file, sources, keyName);
  const poll: PollConfig = { intervalMs: config.poll.interval, jitter: config.poll.jitter, backoffMaxMs: config.poll.backoff_max };
  const target = resolveTarget(config.target, login, file, keyName, sources, files);
  return {
    configFile: file,
    listenAddresses: config.web.listen_address,
    web: {
      readTimeoutMs: config.web.read_timeout,
      writeTimeoutMs: config.web.write_timeout,
      idleTimeoutMs: config.web.idle_timeout,
      maxConcurrentScrapes: config.web.max_concurrent_scrapes,
      maxConnections: config.web.max_connections,
    },
    telemetryPath: config.web.telemetry_path,
    perNodeScrapes: config.web.per_node_scrapes,
    logLevel: config.log.level,
    logFormat: config.log.format,
    logFailureReminderMs: config.log.failure_reminder,
    poll,
    target,
    collectors,
    targets: [{ target, poll, collectors }],
    sharding: { shard: 0, totalShards: 1 },
    naming: config.naming,
    profiles: resolveProfileSettings(config),
  };
}
