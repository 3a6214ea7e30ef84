// Issue 14 ("Past one process"): what a shard polls and serves of a target it does not own.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFlags } from '../../../src/config/args.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { exporterFamilies, newHttpCounters } from '../../../src/pipeline/own-series.js';
import { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { shardOf } from '../../../src/model/shard-assignment.js';
import { Target } from '../../../src/target.js';

const targets: Target[] = [];
afterEach(async () => {
  await Promise.all(targets.splice(0).map((t) => t.stop()));
});

function targetOnShard(shard: number): Target {
  const config = loadConfig(parseFlags([`--shard=${shard}`, '--total-shards=2']), {}, COLLECTORS);
  const target = new Target(config.targets[0]!, new ProcessMetrics(), pino({ level: 'silent' }));
  targets.push(target);
  return target;
}

describe('a target on a shard', () => {
  const owner = shardOf('default', 2);

  it("on the shard owning the target's name: every collector, and rabbitmq_up", () => {
    const target = targetOnShard(owner);
    expect(target.share.ownsClusterSeries).toBe(true);
    expect([...target.state.collectors.keys()]).toEqual(expect.arrayContaining(['overview', 'nodes', 'feature_flags', 'queues']));
    const names = exporterFamilies(target.state, { requests: 0, bytesRead: 0 }, newHttpCounters(), Date.now()).map((f) => f.header.name);
    expect(names).toContain('rabbitmq_up');
  });

  it('on another shard: no collector whose series are all cluster-wide (the overview stays), no rabbitmq_up', () => {
    const target = targetOnShard(1 - owner);
    expect(target.share.ownsClusterSeries).toBe(false);
    const collectors = [...target.state.collectors.keys()];
    expect(collectors).toContain('overview');
    expect(collectors).toEqual(expect.arrayContaining(['queues', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers']));
    expect(collectors).not.toContain('nodes');
    expect(collectors).not.toContain('feature_flags');
    const names = exporterFamilies(target.state, { requests: 0, bytesRead: 0 }, newHttpCounters(), Date.now()).map((f) => f.header.name);
    expect(names).not.toContain('rabbitmq_up');
  });
});
