import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { CliFlags } from './cli/args.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, targetCredentials, type ExporterConfig } from './config/load-config.js';
import { Redactor } from './redaction/redactor.js';
import type { ProcessMetrics } from './self/process-metrics.js';
import { ReloadStatus } from './self/reload-status.js';
import { newHttpCounters, type HttpCounters } from './self/exporter-metrics.js';
import type { ProcessFamilies } from './snapshot/snapshot-store.js';
import { Target } from './target.js';

export type ReloadOutcome = { ok: true; changed: boolean } | { ok: false; error: string };

/** Settings only a restart applies: the listener and the log's format. */
const RESTART_ONLY: readonly (keyof ExporterConfig)[] = ['listenAddress', 'telemetryPath', 'logFormat', 'web'];

/**
 * The running exporter: the configuration in force and the target it polls. reload() reads the
 * configuration again (flags, environment, files); a configuration that cannot be used leaves
 * the running one as it is. A changed target is replaced whole: the new one starts, the old one
 * stops (its polls cancelled, its connection pool closed), so nothing of it is left behind.
 */
export class Exporter {
  readonly reloadStatus = new ReloadStatus();
  private readonly processFamilies: ProcessFamilies;
  private running: Target;
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
      families: async () => [...(await processMetrics.families()), ...this.reloadStatus.families()],
    };
    this.running = new Target(config, this.processFamilies, log, http);
  }

  get targets(): readonly Target[] {
    return [this.running];
  }

  /** Removes the credentials of the configuration in force (the running target's). */
  get redactor(): Redactor {
    return this.running.redactor;
  }

  start(): void {
    this.running.start();
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
    await this.running.stop();
  }

  private async reloadOnce(): Promise<ReloadOutcome> {
    let next: ExporterConfig;
    try {
      next = loadConfig(this.flags, this.env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.reloadStatus.failed();
      // Scrapes after the reload answer see its outcome.
      await this.running.store.refresh();
      this.log.error({ reason: error.message }, 'configuration not reloaded: the new one cannot be used; the running one stays in force');
      return { ok: false, error: error.message };
    }
    for (const key of RESTART_ONLY) {
      if (!isDeepStrictEqual(next[key], this.config[key])) this.log.warn({ key, running: this.config[key], configured: next[key] }, 'this setting changes only with a restart');
    }
    // Child loggers keep the level they were made with: a new level takes a new target.
    const changed = next.logLevel !== this.config.logLevel || !isDeepStrictEqual(targetSettings(next), targetSettings(this.config));
    this.log.level = next.logLevel;
    if (changed) {
      const previous = this.running;
      this.running = new Target(next, this.processFamilies, this.log, this.http);
      this.running.start();
      await previous.stop();
    }
    this.config = { ...next, listenAddress: this.config.listenAddress, telemetryPath: this.config.telemetryPath, logFormat: this.config.logFormat, web: this.config.web };
    this.reloadStatus.succeeded();
    await this.running.store.refresh();
    this.log.info({ target_restarted: changed }, 'configuration reloaded');
    return { ok: true, changed };
  }
}

/** What a Target is made from: a difference in any of it restarts the target. */
function targetSettings(config: ExporterConfig) {
  return { target: config.target, poll: config.poll, collectors: config.collectors };
}
