// Issue 15: label sources and settings of the kbudde profile beyond cluster and self: the answering
// node on families without a node label, a native label under another name, RABBIT_CONNECTION=loadbalancer
// (self="lb") and EXCLUDE_METRICS (families left out).
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { defineMetrics } from '../../../../src/model/metric-def.js';
import { isPerValue, type ProfiledFamily } from '../../../../src/exposition/naming-profile.js';
import type { MetricDef } from '../../../../src/model/metric-def.js';
import { kbuddeNames } from '../../../../src/profiles/kbudde/names.js';

/** The family a row is served as (these rows are served as one family, not one per label value). */
function profiledFamily(def: MetricDef): ProfiledFamily | undefined {
  const row = kbuddeNames.served(def);
  if (row && isPerValue(row)) throw new Error(`${def.name} is served as one family per label value`);
  return row;
}
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { chunkText, concatFamilies } from '../../../../src/exposition/text-format.js';

const all = catalogue(COLLECTORS);
const byName = (name: string) => all.find((d) => d.name === name)!;
const text = (sink: SampleSink) => Buffer.concat(concatFamilies(sink.finish(), false).map(chunkText)).toString('utf8');

const defs = defineMetrics('overview', {
  versions: {
    name: 'test_build_info',
    type: 'gauge',
    labels: ['rabbitmq_version', 'erlang_version'],
    names: { kbudde: { name: 'test_version_info', labels: ['rabbitmq', 'erlang', 'node', 'cluster'], labelFrom: { rabbitmq: 'rabbitmq_version', erlang: 'erlang_version' } } },
    help: 'A test family.',
  },
});

describe('kbudde profile label sources', () => {
  it('takes a label from a native label of another name (labelFrom), and node from the node that answered /api/overview', () => {
    expect(profiledFamily(defs.versions)?.labels).toEqual([
      { from: 'label', name: 'rabbitmq_version' },
      { from: 'label', name: 'erlang_version' },
      { from: 'node' },
      { from: 'cluster' },
    ]);
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c1', node: 'rabbit@a' });
    sink.add(defs.versions, { rabbitmq_version: '3.10.8', erlang_version: '25.1' }, 1);
    expect(text(sink)).toContain('test_version_info{rabbitmq="3.10.8",erlang="25.1",node="rabbit@a",cluster="c1"} 1\n');
  });

  it('serves self="lb" on every series behind a load balancer', () => {
    const fdUsed = byName('rabbitmq_process_open_fds');
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'rabbit@x', loadBalanced: true });
    sink.add(fdUsed, { node: 'rabbit@x' }, 10);
    sink.add(fdUsed, { node: 'rabbit@y' }, 20);
    const out = text(sink);
    expect(out).toContain('rabbitmq_fd_used{cluster="c",node="rabbit@x",self="lb"} 10\n');
    expect(out).toContain('rabbitmq_fd_used{cluster="c",node="rabbit@y",self="lb"} 20\n');
  });

  it('leaves out the families it is told to exclude (EXCLUDE_METRICS)', () => {
    const queues = byName('rabbitmq_queues');
    const channels = byName('rabbitmq_channels');
    const sink = new SampleSink(undefined, { names: kbuddeNames, clusterName: 'c', node: 'n', excluded: new Set([queues]) });
    expect(sink.add(queues, [], 3)).toBe(false);
    expect(sink.add(channels, [], 4)).toBe(true);
    const out = text(sink);
    expect(out).toContain('rabbitmq_channels{cluster="c"} 4\n');
    expect(out).not.toContain('rabbitmq_queues');
  });
});
