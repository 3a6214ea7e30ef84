/**
 * A target's collector runners built as src/target.ts builds them, but without jitter and never
 * started: tests poll them by hand (`await runner.pollOnce()`) against a simulated or reflecting
 * upstream. Each finished poll schedules the target's next exposition, as in the exporter.
 */
import type { Logger } from 'pino';
import { collectorByName } from '../../src/collectors/registry.js';
import type { CollectorConfig } from '../../src/config/exporter-config.js';
import { CollectorRunner } from '../../src/pipeline/collector-runner.js';
import { PollFailureLog } from '../../src/pipeline/failure-log.js';
import type { Target } from '../../src/target.js';

export function handRunners(target: Target, collectors: readonly CollectorConfig[], log: Logger): CollectorRunner[] {
  const failures = new PollFailureLog(log);
  return collectors.map(
    (config) =>
      new CollectorRunner(collectorByName(config.name), config, {
        client: target.client,
        brokerSelf: target.brokerSelf,
        state: target.state,
        log,
        jitter: 0,
        backoffMaxMs: 1000,
        onPollFinished: () => target.store.schedule(),
        failures,
      }),
  );
}
