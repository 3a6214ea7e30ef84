import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { CliFlags } from './config/args.js';
import { ConfigError } from './config/config-error.js';
import { COLLECTORS } from './collectors/registry.js';
import type { ExporterConfig, TargetSetup } from './config/exporter-config.js';
import { loadConfig, loadConfigFromDisk } from './config/load-config.js';
import { targetCredentials } from './config/redacted-config.js';
import { runInSlices } from './config/run-in-slices.js';
import { Redactor } from './broker/redactor.js';
import type { ProcessMetrics } from './pipeline/process-metrics.js';
import { ReloadStatus } from './pipeline/reload-status.js';
import { shardFamilies } from './pipeline/shard-metrics.js';
import { newHttpCounters, processWideFamilies, type HttpCounters } from './pipeline/own-series.js';
import { Exposition } from './exposition/exposition.js';
import type { ProcessFamilies } from './pipeline/snapshot-store.js';
import { SharedRedactors, Target, type TargetOptions } from './target.js';
import { makeTargets, namesForLog, startTargets } from './target-fleet.js';
import { PollThread } from './pipeline/poll-thread/poll-thread.js';
import { POLL_THREAD_SEMI_SPACE_MB, startWithSemiSpaces } from './heap-size.js';

/** The configuration in force for these flags and environment, with every collector the exporter has (read synchronously: tests). */
export function readConfig(flags: CliFlags, env: Record<string, string | undefined>): ExporterConfig {
  return loadConfig(flags, env, COLLECTORS);
}

/**
 * readConfig as the running exporter reads it: its files asynchronously, under deadlines, its
 * targets in slices. `previous`: what this function read last; returned as it is when nothing it
 * was read from changed.
 */
export function readConfigFromDisk(flags: CliFlags, env: Record<string, string | undefined>, previous?: ExporterConfig): Promise<ExporterConfig> {
  return loadConfigFromDisk(flags, env, COLLECTORS, previous);
}

/** `restartRequired`: the settings read that only a restart applies, by their config key. */
export type ReloadOutcome = { ok: true; changed: boolean; restartRequired: string[] } | { ok: false; error: string };

/** Settings only a restart applies: the listener and the log's format; each with the key an operator sets. */
const RESTART_ONLY: readonly [keyof ExporterConfig, string][] = [
  ['listenAddresses', 'web.listen_address'],
  ['telemetryPath', 'web.telemetry_path'],
  ['perNodeScrapes', 'web.per_node_scrapes'],
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
 * Targets are made and started in slices (target-fleet.ts), so the server answers meanwhile.
 */
export class Exporter {
  readonly reloadStatus = new ReloadStatus();
  private readonly processFamilies: ProcessFamilies;
  private running: Target[];
  /** The configuration as last read (before the settings only a restart applies were put back): a reload that reads the same is a no-op for the targets. */
  private lastRead: ExporterConfig;
  private credentials: Redactor;
  private reloading: Promise<ReloadOutcome> | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  /** Started at the first poll of a collector set to poll there (collectors.<name>.poll_thread). */
  private readonly pollThread: PollThread;

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
      // One target: /metrics is its snapshot, as it always was. Several, or scraped per node: see ownMetrics().
      inTargetSnapshots: () => this.running.length === 1 && !this.config.perNodeScrapes,
    };
    // Made by start(); the log's guard knows their credentials from now on.
    this.running = [];
    const startThread = (entry: URL) => startWithSemiSpaces(POLL_THREAD_SEMI_SPACE_MB, () => new Worker(entry));
    this.pollThread = new PollThread(new URL('./poll-thread-worker.js', import.meta.url), config.logFormat, startThread);
    this.lastRead = config;
    this.credentials = new Redactor(config.targets.map((setup) => targetCredentials(setup.target)));
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

  /**
   * Makes the targets (each served as soon as it is made), then starts them; resolves when all
   * are started. The first slice runs before this returns: a few targets are made at once.
   */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const redactors = new SharedRedactors();
      const { all } = await runInSlices(makeTargets(this.config.targets, () => undefined, (setup) => this.newTarget(setup, redactors), () => this.stopping, (t) => this.running.push(t)));
      await runInSlices(startTargets(all, () => this.stopping));
    })();
    return this.starting;
  }

  /** Re-reads the configuration (after start-up has made the targets); concurrent calls share one reload. */
  reload(): Promise<ReloadOutcome> {
    this.reloading ??= (async () => {
      await this.starting;
      return this.reloadOnce();
    })().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  /** Stops making targets, then stops every target made. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.reloading;
    await Promise.all(this.running.map((t) => t.stop()));
    await this.pollThread.stop();
  }

  /** `redactors`: shared by the targets made together; `replacing`: the running target of the same name a reload replaces. */
  private newTarget(setup: TargetSetup, redactors: SharedRedactors, replacing?: Target): Target {
    return new Target(setup, this.processFamilies, this.log, this.http, { ...this.targetOptions(replacing), redactors });
  }

  private async reloadOnce(): Promise<ReloadOutcome> {
    let next: ExporterConfig;
    try {
      next = await readConfigFromDisk(this.flags, this.env, this.lastRead);
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
    // Nothing it was read from changed: every target stays, without comparing 10,000 setups.
    const nothingChanged = next === this.lastRead;
    this.lastRead = next;
    const previous = new Map(this.running.map((t) => [t.setup.target.name, t]));
    // An unchanged target is kept as it is: its runners, pool and snapshot go on untouched.
    const unchanged = (setup: TargetSetup) => {
      const old = previous.get(setup.target.name);
      return old && !levelChanged && sameSetup(old.setup, setup) ? old : undefined;
    };
    // A replaced target's last data are served until the new one's polls replace them.
    const redactors = new SharedRedactors();
    const { all, made: started } = nothingChanged
      ? { all: this.running, made: [] }
      : await runInSlices(makeTargets(next.targets, unchanged, (setup) => this.newTarget(setup, redactors, previous.get(setup.target.name)), () => false));
    const made = new Set(started);
    const keptSet = new Set(all.filter((t) => !made.has(t)));
    const kept = [...keptSet];
    const stopped = [...previous.values()].filter((t) => !keptSet.has(t));
    this.running = all;
    // The new credentials join the log's guard before their target's first request; the old ones
    // leave after their target stopped. Every target kept: the guard stays (10,000 targets' credentials are not read again).
    const sameTargets = started.length === 0 && stopped.length === 0;
    if (!sameTargets) this.credentials = redactorOf([...this.running, ...stopped]);
    await runInSlices(startTargets(started, () => this.stopping));
    await Promise.all(stopped.map((t) => t.stop()));
    if (!sameTargets) this.credentials = redactorOf(this.running);
    this.config = { ...next, listenAddresses: this.config.listenAddresses, telemetryPath: this.config.telemetryPath, logFormat: this.config.logFormat, web: this.config.web };
    this.reloadStatus.succeeded(Date.now(), restartRequired);
    await this.refreshAll();
    const changed = started.length > 0 || stopped.length > 0;
    const [s, x, k] = [namesForLog(started), namesForLog(stopped), namesForLog(kept)];
    this.log.info(
      {
        restart_required: restartRequired,
        targets_started: s.names,
        targets_stopped: x.names,
        targets_kept: k.names,
        ...(s.more + x.more + k.more > 0 ? { targets_not_named: { started: s.more, stopped: x.more, kept: k.more } } : {}),
        target_restarted: changed,
      },
      'configuration reloaded',
    );
    return { ok: true, changed, restartRequired };
  }

  /** `replacing`: the running target a reload replaces with the new one. */
  private targetOptions(replacing?: Target): TargetOptions {
    return { replacing, failureReminderMs: () => this.config.logFailureReminderMs, pollThread: this.pollThread };
  }

  /** With one target, its snapshot holds the reload's outcome; with several it is on /metrics, made per scrape. */
  private async refreshAll(): Promise<void> {
    if (this.processFamilies.inTargetSnapshots?.()) await Promise.all(this.running.map((t) => t.store.refresh()));
  }
}

function sameSetup(a: TargetSetup, b: TargetSetup): boolean {
  return isDeepStrictEqual(a, b);
}

function redactorOf(targets: readonly Target[]): Redactor {
  return new Redactor(targets.map((t) => targetCredentials(t.setup.target)));
}
