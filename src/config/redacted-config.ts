import { isDeepStrictEqual } from 'node:util';
import type { Credentials } from '../broker/redactor.js';
import type { ExporterConfig, BrokerConnectionConfig } from './exporter-config.js';
import { chosenProfileView } from '../profiles/profiles.js';

/** What the redactor must remove for this target (see src/broker/redactor.ts). */
export function targetCredentials(target: BrokerConnectionConfig): Credentials {
  return {
    username: target.username,
    secrets: [target.password, ...target.otherSecrets],
    // The private key never leaves the process; its lines are listed should some error quote them.
    material: target.tls.key ? pemLines(target.tls.key.toString('utf8')) : [],
  };
}

function pemLines(pem: string): string[] {
  return pem.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('-----') && !l.includes(':'));
}

/** Entries of `targets:` the start-up log shows one by one; beyond, it counts them (10,000 would make a line of megabytes). */
const TARGETS_SHOWN = 20;

/** The effective configuration for the start-up log: no secret, no key material. */
export function redactedConfig(config: ExporterConfig): Record<string, unknown> {
  const several = config.targets.length > 1 || config.targets[0]?.target !== config.target;
  return {
    configFile: config.configFile ?? null,
    listenAddresses: config.listenAddresses,
    web: config.web,
    telemetryPath: config.telemetryPath,
    perNodeScrapes: config.perNodeScrapes,
    logLevel: config.logLevel,
    logFormat: config.logFormat,
    logFailureReminderMs: config.logFailureReminderMs,
    poll: config.poll,
    sharding: config.sharding,
    naming: config.naming,
    ...chosenProfileView(config.naming, config.profiles, config.profileVariables),
    target: redactedTarget(config.target),
    collectors: config.collectors,
    // Each entry of `targets:`, its collectors shown only where they differ from the top level's.
    ...(several
      ? {
          targets: config.targets.slice(0, TARGETS_SHOWN).map((setup) => ({
            ...redactedTarget(setup.target),
            poll: setup.poll,
            ...(isDeepStrictEqual(setup.collectors, config.collectors) ? {} : { collectors: setup.collectors }),
          })),
          ...(config.targets.length > TARGETS_SHOWN ? { targetsNotShown: config.targets.length - TARGETS_SHOWN } : {}),
        }
      : {}),
  };
}

function redactedTarget(target: BrokerConnectionConfig): Record<string, unknown> {
  return {
    name: target.name,
    url: target.url,
    username: target.username,
    password: '<redacted>',
    passwordSource: target.passwordSource,
    tls: { caFile: target.tls.caFile, certFile: target.tls.certFile, keyFile: target.tls.keyFile, insecureSkipVerify: target.tls.insecureSkipVerify },
    timeouts: target.timeouts,
    maxResponseBytes: target.maxResponseBytes,
    maxConcurrentRequests: target.maxConcurrentRequests,
  };
}
