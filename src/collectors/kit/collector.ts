import type { Logger } from 'pino';
import type { z } from 'zod';
import type { BrokerInfo } from '../../broker/broker-info.js';
import type { BrokerReport } from '../../broker/broker-info-reader.js';
import type { Lane } from '../../broker/management-client.js';
import type { MetricDef } from '../../model/metric-def.js';
import type { RenderedFamily, SampleSink } from '../../exposition/sample-sink.js';
import type { TargetShare } from '../../model/shard-assignment.js';
import type { LeftOutRequest } from '../../broker/failure-cause.js';

/** Limits of one request tighter than the poll's: one vhost's list, an optional part. */
export interface RequestLimits {
  /** Its own deadline, from when it is sent. */
  timeoutMs?: number;
  /** Ends it with the poll's signal or this one, whichever comes first. */
  signal?: AbortSignal;
  /** Statuses besides 2xx whose JSON body is the answer (see RequestOptions.answerStatuses). */
  answerStatuses?: readonly number[];
}

/** What a collector may ask of the broker: parsed JSON, or a ManagementError. */
export interface BrokerApi {
  get<T = unknown>(path: string, query?: Record<string, string | number | boolean>, limits?: RequestLimits): Promise<T>;
  /** Like get(), but an answer that means absent (see broker/absence.ts) resolves to undefined. */
  getOptional<T = unknown>(path: string, query?: Record<string, string | number | boolean>, limits?: RequestLimits): Promise<T | undefined>;
  /**
   * GET an absolute URL of another listener of the same broker (a node's rabbitmq_prometheus) as
   * text, with the target's credentials, TLS settings, timeouts and redaction, refused over
   * `cap.bytes` (`cap.name`: the setting, for the error). Absent where only the management API is.
   */
  getText?(url: string, cap: { bytes: number; name: string }, limits?: RequestLimits): Promise<string>;
}

/** The poll's own limits, for the parts of a poll that may fail without failing it. */
export interface PollLimits {
  /** When the poll's deadline passes, on the performance.now() clock. */
  readonly deadlineAt: number;
  /** The poll's deadline (`collectors.<name>.timeout`). */
  readonly timeoutMs: number;
  /** How long the collector's series are served after their last success (`collectors.<name>.max_age`). */
  readonly maxAgeMs: number;
}

export interface CollectContext<Options = Record<string, never>> {
  readonly api: BrokerApi;
  /** Version, variant and statistics mode, from the latest /api/overview. */
  readonly broker: BrokerInfo;
  readonly sink: SampleSink;
  readonly log: Logger;
  readonly options: Options;
  readonly signal: AbortSignal;
  /**
   * What this collector carries over from one poll to the next on this target (counter
   * offsets, which optional paths were absent, warnings already logged). Not RabbitMQ's memory.
   */
  readonly carryOver: Map<string, unknown>;
  /**
   * What of the target this replica serves when sharded (absent: everything). The sink already
   * leaves other shards' series out; a collector that can ask per vhost asks only for its own.
   */
  readonly share?: TargetShare;
  /**
   * For the collector that describesBroker: this poll's /api/overview, read once by the target
   * (src/broker/broker-info-reader.ts) and the source of `broker` too. Absent for every other collector.
   */
  readonly brokerReport?: BrokerReport;
  /** The poll's deadline and the collector's max_age (absent: no deadline, held series never age out). */
  readonly limits?: PollLimits;
  /**
   * The families of this collector's last successful poll on this target, as served: a poll that
   * could not read some vhosts serves their series from here (see vhost-lists.ts).
   */
  readonly lastServed?: readonly RenderedFamily[];
  /**
   * Told of each request whose answer a successful poll leaves out (refused to the exporter's
   * user, or one failed part of several): the landing page shows the collector as partial, and why.
   */
  readonly leftOut?: (request: LeftOutRequest) => void;
}

export interface Collector<Options = Record<string, never>> {
  readonly name: string;
  readonly description: string;
  readonly defaultEnabled: boolean;
  /** Default interval as a multiple of the base poll interval. */
  readonly defaultIntervalMultiplier: number;
  /** Every family it may emit: the catalogue is built from these. */
  readonly metrics: readonly MetricDef[];
  /**
   * Its polls read what the broker says about itself (/api/overview): they refresh the target's
   * BrokerInfo and decide rabbitmq_up and /-/ready. Exactly one collector does (the overview).
   */
  readonly describesBroker?: boolean;
  /** Which bound its requests wait behind (default `shared`): see Lane. */
  readonly lane?: Lane;
  /** Collector-specific options under `collectors.<name>` in the config file. */
  readonly optionsSchema?: z.ZodType<Options>;
  collect(ctx: CollectContext<Options>): Promise<void>;
  /**
   * About how many series its poll would serve (rather more than fewer), from what the broker
   * says of its size (BrokerInfo.objectTotals) before any poll; undefined when it cannot tell.
   * poll_thread: auto decides with it where the first poll runs (collector-runner.ts).
   */
  expectedSeries?(ctx: Pick<CollectContext<Options>, 'broker' | 'options' | 'log' | 'carryOver'>): number | undefined;
}

/** Erases the options type for lists of heterogeneous collectors. */
// biome-ignore lint/suspicious/noExplicitAny: each collector's options type differs; lists hold them all
export type AnyCollector = Collector<any>;
