import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { BrokerInfoReader } from './broker/broker-info-reader.js';
import type { ManagementClient } from './broker/management-client.js';
import type { AnyCollector } from './collectors/kit/collector.js';
import { collectorByName } from './collectors/registry.js';
import type { TargetSetup } from './config/exporter-config.js';
import { targetCredentials } from './config/redacted-config.js';
import { credentialsKey, Redactor, type Credentials } from './broker/redactor.js';
import { ONE_SHARD, TargetShare } from './model/shard-assignment.js';
import { CollectorRunner, type RunnerDeps } from './pipeline/collector-runner.js';
import { targetClient } from './pipeline/target-client.js';
import type { PollThread } from './pipeline/poll-thread/poll-thread.js';
import { targetProfile } from './profiles/profiles.js';
import { PollFailureLog } from './pipeline/failure-log.js';
import { newHttpCounters, type HttpCounters } from './pipeline/own-series.js';
import { SnapshotStore, type ProcessFamilies } from './pipeline/snapshot-store.js';
import type { ServedTarget } from './server/served-target.js';
import type { Format } from './exposition/exposition.js';
import { TargetState } from './pipeline/target-state.js';
import { targetStatus, targetVerdict, type TargetStatus, type Verdict } from './pipeline/target-status.js';

/**
 * One Redactor per set of credentials among the targets made together: a fleet's targets mostly
 * log in alike, and each Redactor is a regular expression over a score of encoded forms (kilobytes
 * to build and to hold; 10,000 copies of the same one).
 */
export class SharedRedactors {
  private readonly made = new Map<string, Redactor>();

  of(credentials: Credentials): Redactor {
    const key = credentialsKey(credentials);
    let redactor = this.made.get(key);
    if (!redactor) {
      redactor = new Redactor(credentials);
      this.made.set(key, redactor);
    }
    return redactor;
  }
}

export interface TargetOptions {
  /** The running target of the same name a reload replaces: what it served is served until this one's polls replace it. */
  replacing?: Target;
  /** How often a lasting poll failure is logged again (log.failure_reminder; read at each failure). */
  failureReminderMs?: () => number;
  /** Where the targets made together share one Redactor per set of credentials. */
  redactors?: SharedRedactors;
  /** Where the collectors set to poll in the poll thread (collectors.<name>.poll_thread) poll. */
  pollThread?: PollThread;
}

/** How many targets were made in this process (see Target.threadKey). */
let targetsMade = 0;

/** One watched broker: its client, its collectors' runners, its state and its snapshot. */
export class Target implements ServedTarget {
  readonly state: TargetState;
  readonly store: SnapshotStore;
  readonly client: ManagementClient;
  /** What the broker says about itself (/api/overview), read by the polls of the collector describing it. */
  readonly brokerInfoReader: BrokerInfoReader;
  /** Removes this target's credentials from texts made of the broker's answers. */
  readonly redactor: Redactor;
  /** What of this target this replica serves (all of it unless sharded). */
  readonly share: TargetShare;
  private readonly runners: CollectorRunner[] = [];
  /**
   * The runners started when the broker first answers (start() holds them while only the collector
   * describing the broker polls): a broker nothing answers for costs one poll per interval, not one
   * per collector, and its other collectors show as not polled yet, not as failing on their own.
   */
  private waiting: CollectorRunner[] = [];
  private readonly pollThread: PollThread | undefined;
  /** This target among those the poll thread polls: a reload's replacement of the same name is another. */
  private readonly threadKey = `target-${++targetsMade}`;

  /** `http`: the HTTP server's counters, served among the exporter's own series. */
  constructor(
    readonly setup: TargetSetup,
    processMetrics: ProcessFamilies,
    log: Logger,
    http: HttpCounters = newHttpCounters(),
    options: TargetOptions = {},
  ) {
    const t = setup.target;
    this.pollThread = options.pollThread;
    const credentials = targetCredentials(t);
    this.redactor = options.redactors?.of(credentials) ?? new Redactor(credentials);
    this.client = targetClient(t, this.redactor);
    this.share = new TargetShare(setup.sharding ?? ONE_SHARD, t.name);
    this.state = new TargetState(t.name, t.url, this.share.ownsClusterSeries);
    const targetLog = log.child({ target: t.name });
    // Filled below with the collectors that run here: a naming profile's own series may follow them.
    const running = new Map<string, Readonly<Record<string, unknown>>>();
    this.store = new SnapshotStore(
      this.state,
      this.client,
      http,
      processMetrics,
      (error) => targetLog.error({ err: error }, 'assembling the snapshot failed'),
      setup.naming,
      { broker: () => this.brokerInfoReader.current, running },
    );
    this.brokerInfoReader = new BrokerInfoReader(this.client);
    const failures = new PollFailureLog(targetLog, {
      login: { url: t.url, username: t.username, passwordSource: t.passwordSource },
      reminderMs: options.failureReminderMs,
    });
    // One set of dependencies for all the target's runners: 10,000 targets hold one each, not fifteen.
    const deps: RunnerDeps = {
      client: this.client,
      brokerInfoReader: this.brokerInfoReader,
      state: this.state,
      log: targetLog,
      jitter: setup.poll.jitter,
      backoffMaxMs: setup.poll.backoffMaxMs,
      onPollFinished: () => this.store.schedule(),
      // The broker is back: the collectors in backoff poll now, a little apart, not minutes later.
      onBrokerBack: () => {
        this.runners.forEach((runner, i) => {
          runner.retrySoon(50 * i);
        });
      },
      onBrokerAnswered: () => this.startWaiting(),
      failures,
      share: this.share,
      profile: targetProfile(setup.naming, setup.profiles),
      ...(options.pollThread ? { thread: { pollThread: options.pollThread, key: this.threadKey, setup } } : {}),
    };
    for (const collectorConfig of setup.collectors) {
      if (!collectorConfig.enabled) continue;
      const collector = collectorByName(collectorConfig.name);
      if (!this.share.ownsClusterSeries && clusterWideOnly(collector)) continue;
      running.set(collector.name, collectorConfig.options);
      this.runners.push(new CollectorRunner(collector, collectorConfig, deps));
    }
    if (options.replacing) this.state.inherit(options.replacing.state, sameRendering(options.replacing.setup, setup));
  }

  get name(): string {
    return this.state.name;
  }

  get ready(): boolean {
    return this.state.firstPollAttempted;
  }

  exposition(gzipFormat?: Format): ReturnType<ServedTarget['exposition']> {
    return this.store.forScrape(gzipFormat);
  }

  nodes(): readonly string[] {
    return this.store.nodes();
  }

  restExposition(gzipFormat?: Format): ReturnType<ServedTarget['restExposition']> {
    return this.store.forRestScrape(gzipFormat);
  }

  nodeExposition(node: string, gzipFormat?: Format): ReturnType<ServedTarget['nodeExposition']> {
    return this.store.forNodeScrape(node, gzipFormat);
  }

  verdict(): Verdict {
    return targetVerdict(this.state, this.waiting.length);
  }

  status(): TargetStatus {
    const { username, passwordSource, maxResponseBytes } = this.setup.target;
    return targetStatus(this.state, this.brokerInfoReader.current, { username, passwordSource, maxResponseBytes }, this.waitingForBroker);
  }

  /** `offsetMs`: when its first polls start (a fleet's targets are spread over the interval). */
  start(offsetMs = 0): void {
    // The broker's self-description first: it tells the others which API variant they talk to,
    // and whether anything answers at the target's address at all. Without one, all start, a little apart.
    const describer = this.runners.find((runner) => runner.describesBroker);
    if (!describer) {
      this.startSpread(this.runners, offsetMs);
      return;
    }
    describer.start(offsetMs);
    this.waiting = this.runners.filter((runner) => runner !== describer);
  }

  /** Collectors that are not polled until the broker has answered once (see waiting). */
  get waitingForBroker(): readonly string[] {
    return this.waiting.map((runner) => runner.name);
  }

  /** The broker answered (a poll of the collector describing it reached it): the others start, a little apart. */
  private startWaiting(): void {
    if (this.waiting.length === 0) return;
    const runners = this.waiting;
    this.waiting = [];
    this.startSpread(runners, 50);
  }

  private startSpread(runners: readonly CollectorRunner[], offsetMs: number): void {
    runners.forEach((runner, i) => {
      runner.start(offsetMs + 50 * i);
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
    this.pollThread?.forget(this.threadKey);
    await this.client.close();
  }
}

/** The families of one setup are served as they are under the other: same names, same shard. */
function sameRendering(a: TargetSetup, b: TargetSetup): boolean {
  return isDeepStrictEqual([a.naming, a.profiles, a.sharding], [b.naming, b.profiles, b.sharding]);
}

/**
 * A collector none of whose series carries a vhost: on a shard that does not own the target's
 * cluster-wide series it would ask the broker only to drop every answer. The one describing the
 * broker stays: the others learn from it which API variant they talk to.
 */
function clusterWideOnly(collector: AnyCollector): boolean {
  return !collector.describesBroker && !collector.metrics.some((def) => def.labels.includes('vhost'));
}
