import type { Logger } from 'pino';
import type { z } from 'zod';
import type { BrokerInfo } from '../broker/broker-info.js';
import type { BrokerReport } from '../broker/broker-self.js';
import type { Lane } from '../client/management-client.js';
import type { MetricDef } from '../metrics/metric-def.js';
import type { SampleSink } from '../render/sample-sink.js';
import type { TargetShare } from '../shard/shard-assignment.js';
import type { LeftOutRequest } from '../state/target-state.js';

/** What a collector may ask of the broker: parsed JSON, or a ManagementError. */
export interface BrokerApi {
  get<T = unknown>(path: string, query?: Record<string, string | number | boolean>): Promise<T>;
  /** Like get(), but an answer that means absent (see client/absence.ts) resolves to undefined. */
  getOptional<T = unknown>(path: string, query?: Record<string, string | number | boolean>): Promise<T | undefined>;
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
   * (src/broker/broker-self.ts) and the source of `broker` too. Absent for every other collector.
   */
  readonly selfReport?: BrokerReport;
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
}

/** Erases the options type for lists of heterogeneous collectors. */
// biome-ignore lint/suspicious/noExplicitAny: each collector's options type differs; lists hold them all
export type AnyCollector = Collector<any>;
