// What the collector runner's tests (this folder) share: a collector whose collect() the test
// writes, and a runner around it with a simulated client, broker and state.
import pino from 'pino';
import type { BrokerInfo } from '../../../../src/broker/broker-info.js';
import type { BrokerReport, BrokerInfoReader } from '../../../../src/broker/broker-info-reader.js';
import type { ManagementClient } from '../../../../src/broker/management-client.js';
import type { AnyCollector, CollectContext } from '../../../../src/collectors/kit/collector.js';
import type { CollectorConfig } from '../../../../src/config/exporter-config.js';
import { defineMetrics } from '../../../../src/model/metric-def.js';
import { CollectorRunner, type RunnerDeps } from '../../../../src/pipeline/collector-runner.js';
import { PollFailureLog } from '../../../../src/pipeline/failure-log.js';
import { TargetState } from '../../../../src/pipeline/target-state.js';
import { BROKER_3_10_8 } from '../../../support/run-collector.js';

export const M = defineMetrics('test', { v: { name: 'rabbitmq_test_runner_value', type: 'gauge', help: 'A value.' } });

export const BROKER: BrokerInfo = BROKER_3_10_8;

export type Collect = (ctx: CollectContext<Record<string, unknown>>) => Promise<void>;

export function collectorWith(collect: Collect, name = 'test'): AnyCollector {
  // The harness's "overview" describes the broker, as the real one does.
  return { name, description: 'test collector', defaultEnabled: true, defaultIntervalMultiplier: 1, metrics: [M.v], collect, describesBroker: name === 'overview' };
}

export interface Harness {
  runner: CollectorRunner;
  state: TargetState;
  finished: { count: number };
  /** How often the runner read /api/overview through BrokerInfoReader, and asked for the latest BrokerInfo. */
  reads: { read: number; latest: number };
}

export function harness(
  collect: Collect,
  config: Partial<CollectorConfig> = {},
  deps: Partial<RunnerDeps> = {},
  name = 'test',
): Harness {
  const state = new TargetState('default', 'http://localhost:15672');
  const finished = { count: 0 };
  const reads = { read: 0, latest: 0 };
  const brokerInfoReader = {
    read: async (): Promise<BrokerReport> => {
      reads.read++;
      return { overview: { management_version: BROKER.managementVersion }, info: BROKER };
    },
    latest: async () => {
      reads.latest++;
      return BROKER;
    },
  } as unknown as BrokerInfoReader;
  const runner = new CollectorRunner(
    collectorWith(collect, name),
    { name, enabled: true, intervalMs: 100, timeoutMs: 60_000, maxAgeMs: 300, options: { flag: true }, ...config },
    {
      client: { getJson: async () => ({}) } as unknown as ManagementClient,
      brokerInfoReader,
      state,
      log: pino({ level: 'silent' }),
      jitter: 0,
      backoffMaxMs: 10_000,
      onPollFinished: () => finished.count++,
      failures: new PollFailureLog(pino({ level: 'silent' })),
      random: () => 0.5,
      // These tests run 100 ms schedules; the floor itself is tested with its real value below.
      minSpacingMs: 10,
      ...deps,
    },
  );
  return { runner, state, finished, reads };
}

export function diffs(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}
