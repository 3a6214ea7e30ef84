import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { CliFlags } from './cli/args.js';
import { ConfigError } from './config/config-error.js';
import { COLLECTORS } from './collectors/registry.js';
import type { ExporterConfig, TargetSetup } from './config/exporter-config.js';
import { loadConfig } from './config/load-config.js';
import { targetCredentials } from './config/redacted-config.js';
import { Redactor } from './redaction/redactor.js';
import type { ProcessMetrics } from './self/process-metrics.js';
import { ReloadStatus } from './self/reload-status.js';
import { shardFamilies } from './self/shard-metrics.js';
import { newHttpCounters, processWideFamilies, type HttpCounters } from './self/exporter-metrics.js';
import { Exposition } from './snapshot/exposition.js';
import type { ProcessFamilies } from './snapshot/snapshot-store.js';
import { Target, type TargetOptions } from './target.js';

/** The configuration in force for these flags and environment, with every collector the exporter has. */
export function readConfig(flags: CliFlags, env: Record<string, string | undefined>): ExporterConfig {
  return loadConfig(flags, env, COLLECTORS);
}

/** `restartRequired`: the settings read that only a restart applies, by their config key. */
export type ReloadOutcome = { ok: true; changed: boolean; restartRequired: string[] } | { ok: false; error: string };

/** Settings only a restart applies: the listener and the log's format; each with the key an operator sets. */
const RESTART_ONLY: readonly [keyof ExporterConfig, string][] = [
  ['listenAddress', 'web.listen_address'],
  ['telemetryPath', 'web.telemetry_path'],
  ['logFormat', 'log.format'],
  ['web', 'web.read_timeout, write_timeout, idle_timeout, max_concurrent_scrapes or max_connections'],
];

/**
 * The running exporter: the configuration in force and the targets it polls, each on its own
 * (its own connection pool, runners and snapshot), so a slow broker delays nobody else's polls or
 * scrapes. reload() reads the configuration again (flags, environment, files); a configuration
 * that cannot be used leaves the running one as it is. Targets are matched by name: an unchanged
 * one keeps running untouched, a changed one is replaced whole (the new one starts, the old one
 * stops: its polls cancelled, its connection pool closed; the new one serves the old one's last
 * data, rabbitmq_up and readiness until its own polls replace them), a removed one is stopped.
 */
export class Exporter {
  readonly reloadStatus = new ReloadStatus();
  private readonly processFamilies: ProcessFamilies;
  private running: Target[];
  private credentials: Redactor;
  private reloading: Promise<ReloadOutcome> | undefined;

  constructor(
    private config: ExporterConfig,
    private readonly flags: CliFlags,
    private readonly env: Record<string, string | undefined>,
    processMetrics: ProcessMetrics,
    private readonly log: Logger,
    private readonly http: HttpCounters = newHttpCounters(),
  ) {
    this.processFamilies = {
      families: async () => [...(await processMetrics.families()), ...this.reloadStatus.families(), ...shardFamilies(this.config.sharding)],
      // One target: /metrics is its snapshot, as it always was. Several: see ownMetrics().
      inTargetSnapshots: () => this.running.length === 1,
    };
    this.running = config.targets.map((setup) => new Target(setup, this.processFamilies, log, http, this.targetOptions()));
    this.credentials = redactorOf(this.running);
  }

  get targets(): readonly Target[] {
    return this.running;
  }

  /** Removes the credentials of every target in force (the log's last guard). */
  get redactor(): Redactor {
    return this.credentials;
  }

  /** With several targets, /metrics: the process's own series (build, HTTP server, reloads, Node), no target's. */
  async ownMetrics(): Promise<Exposition> {
    const now = Date.now();
    return Exposition.of([...processWideFamilies(this.http, this.config.naming), ...(await this.processFamilies.families())], Infinity, now);
  }

  start(): void {
    for (const target of this.running) target.start();
  }

  /** Re-reads the configuration; concurrent calls share one reload. */
  reload(): Promise<ReloadOutcome> {
    this.reloading ??= this.reloadOnce().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  async stop(): Promise<void> {
    await this.reloading;
    await Promise.all(this.running.map((t) => t.stop()));
  }

  private async reloadOnce(): Promise<ReloadOutcome> {
    let next: ExporterConfig;
    try {
      next = readConfig(this.flags, this.env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.reloadStatus.failed();
      // Scrapes after the reload answer see its outcome.
      await this.refreshAll();
      this.log.error({ reason: error.message }, 'configuration not reloaded: the new one cannot be used; the running one stays in force');
      return { ok: false, error: error.message };
    }
    const restartRequired: string[] = [];
    for (const [key, name] of RESTART_ONLY) {
      if (isDeepStrictEqual(next[key], this.config[key])) continue;
      restartRequired.push(name);
      this.log.warn({ key: name, running: this.config[key], configured: next[key] }, 'this setting changes only with a restart');
    }
    // Child loggers keep the level they were made with: a new level takes new targets.
    const levelChanged = next.logLevel !== this.config.logLevel;
    this.log.level = next.logLevel;
    const previous = new Map(this.running.map((t) => [t.setup.target.name, t]));
    const kept: Target[] = [];
    const started: Target[] = [];
    this.running = next.targets.map((setup) => {
      const old = previous.get(setup.target.name);
      if (old && !levelChanged && sameSetup(old.setup, setup)) {
        kept.push(old);
        return old;
      }
      // A replaced target's last data are served until the new one's polls replace them.
      const fresh = new Target(setup, this.processFamilies, this.log, this.http, this.targetOptions(old));
      started.push(fresh);
      return fresh;
    });
    const stopped = [...previous.values()].filter((t) => !kept.includes(t));
    // The new credentials join the log's guard before their target's first request; the old ones leave after their target stopped.
    this.credentials = redactorOf([...this.running, ...stopped]);
    for (const target of started) target.start();
    await Promise.all(stopped.map((t) => t.stop()));
    this.credentials = redactorOf(this.running);
    this.config = { ...next, listenAddress: this.config.listenAddress, telemetryPath: this.config.telemetryPath, logFormat: this.config.logFormat, web: this.config.web };
    this.reloadStatus.succeeded(Date.now(), restartRequired);
    await this.refreshAll();
    const changed = started.length > 0 || stopped.length > 0;
    this.log.info(
      { restart_required: restartRequired, targets_started: started.map(nameOf), targets_stopped: stopped.map(nameOf), targets_kept: kept.map(nameOf), target_restarted: changed },
      'configuration reloaded',
    );
    return { ok: true, changed, restartRequired };
  }

  /** `replacing`: the running target a reload replaces with the new one. */
  private targetOptions(replacing?: Target): TargetOptions {
    return { replacing, failureReminderMs: () => this.config.logFailureReminderMs };
  }

  private async refreshAll(): Promise<void> {
    await Promise.all(this.running.map((t) => t.store.refresh()));
  }
}

function nameOf(target: Target): string {
  return target.setup.target.name;
}

function sameSetup(a: TargetSetup, b: TargetSetup): boolean {
  return isDeepStrictEqual(a, b);
}

function redactorOf(targets: readonly Target[]): Redactor {
  return new Redactor(targets.map((t) => targetCredentials(t.setup.target)));
}
