// Issue 14 ("Past one process"): how replicas split targets and vhosts.
import { describe, expect, it } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { familyBody, renderLabels } from '../../../src/exposition/text-format.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { fnv1a32, podOrdinal, shardOf, TargetShare } from '../../../src/model/shard-assignment.js';

describe('fnv1a32', () => {
  it('is 32-bit FNV-1a of the UTF-8 bytes (the published test vectors)', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    // "é" hashes as its two UTF-8 bytes C3 A9, not as the one UTF-16 code unit E9.
    expect(fnv1a32('é')).toBe(Math.imul((Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) >>> 0) ^ 0xa9, 0x01000193) >>> 0);
  });
});

describe('shardOf', () => {
  it('puts every name on exactly one of n shards, spread over all of them', () => {
    const names = Array.from({ length: 1000 }, (_, i) => `vhost-${i}`);
    for (const n of [1, 2, 3, 7]) {
      const counts = new Array<number>(n).fill(0);
      for (const name of names) {
        const shard = shardOf(name, n);
        expect(shard).toBeGreaterThanOrEqual(0);
        expect(shard).toBeLessThan(n);
        counts[shard]!++;
      }
      // 1000 names over n shards: none empty, none with twice its share.
      for (const count of counts) {
        expect(count).toBeGreaterThan(0);
        expect(count).toBeLessThan((2 * 1000) / n);
      }
    }
  });

  it('is stable: the same name, the same shard (values fixed here so a change of hash shows)', () => {
    expect([shardOf('a', 2), shardOf('foobar', 2), shardOf('', 3)]).toEqual([0xe40c292c % 2, 0xbf9cf968 % 2, 0x811c9dc5 % 3]);
  });
});

describe('TargetShare', () => {
  it('with one shard owns everything', () => {
    const share = new TargetShare({ shard: 0, totalShards: 1 }, 'prod');
    expect(share.whole).toBe(true);
    expect(share.ownsClusterSeries).toBe(true);
    expect(share.ownsVhost('/')).toBe(true);
    expect(share.keeps(undefined)).toBe(true);
  });

  it('splits the vhosts of a target between the shards, each vhost to one, the cluster-wide series to the owner of the name', () => {
    const shares = [0, 1, 2].map((shard) => new TargetShare({ shard, totalShards: 3 }, 'prod'));
    expect(shares.filter((s) => s.ownsClusterSeries)).toHaveLength(1);
    expect(shares.findIndex((s) => s.ownsClusterSeries)).toBe(shardOf('prod', 3));
    const vhosts = Array.from({ length: 60 }, (_, i) => `vh${i}`);
    const perShard = shares.map((s) => vhosts.filter((v) => s.ownsVhost(v)));
    expect(perShard.flat().sort()).toEqual([...vhosts].sort());
    for (const owned of perShard) expect(owned.length).toBeGreaterThan(0);
    // Series without a vhost, or with an empty one (a cluster-wide health check), go with the cluster.
    for (const s of shares) {
      expect(s.keeps(undefined)).toBe(s.ownsClusterSeries);
      expect(s.keeps('')).toBe(s.ownsClusterSeries);
    }
  });

  it('hashes the vhost together with the target name, so "/" of many targets does not pile up on one shard', () => {
    const owners = new Set(Array.from({ length: 20 }, (_, i) => [0, 1].find((shard) => new TargetShare({ shard, totalShards: 2 }, `cluster-${i}`).ownsVhost('/'))));
    expect(owners).toEqual(new Set([0, 1]));
  });

  it('decides a vhost too long for a label by its served (shortened) value, so records and series agree', () => {
    const long = 'v'.repeat(400);
    const shares = [0, 1].map((shard) => new TargetShare({ shard, totalShards: 2 }, 'prod'));
    const sink = (share: TargetShare) => {
      const s = new SampleSink(share);
      // As the queue collector writes it: labels rendered (the value shortened), the record's vhost asked for by its full name.
      s.addRendered(def, renderLabels(['vhost'], [long]), 1);
      return s.finish().reduce((n, f) => n + f.samples, 0);
    };
    expect(shares.map((s) => (s.ownsVhost(long) ? 1 : 0))).toEqual(shares.map(sink));
    expect(shares.map(sink).reduce((a, b) => a + b)).toBe(1);
  });
});

const { def, record, cluster } = defineMetrics('test', {
  def: { name: 'rabbitmq_test_vhost_thing', type: 'gauge', labels: ['vhost'], help: 'A per-vhost series.' },
  record: { name: 'rabbitmq_test_queue_thing', type: 'gauge', labels: ['vhost', 'queue'], help: 'A per-queue series.' },
  cluster: { name: 'rabbitmq_test_cluster_thing', type: 'gauge', help: 'A cluster-wide series.' },
});

describe('SampleSink with a scope', () => {
  it("leaves out other shards' series, by the vhost label whether added as values or as rendered labels", () => {
    const vhosts = ['/', 'a"b', 'back\\slash', 'new\nline', 'orders', 'billing', 'x,vhost="y"'];
    const lines = [0, 1].map((shard) => {
      const share = new TargetShare({ shard, totalShards: 2 }, 'prod');
      const sink = new SampleSink(share);
      for (const vhost of vhosts) {
        sink.add(def, [vhost], 1);
        sink.addRendered(record, `{vhost="${vhost.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}",queue="q"}`, 1);
      }
      sink.add(cluster, [], 1);
      const owned = vhosts.filter((v) => share.ownsVhost(v));
      expect(sink.outOfScope).toBe(2 * (vhosts.length - owned.length) + (share.ownsClusterSeries ? 0 : 1));
      const served = sink.finish().flatMap((f) => familyBody(f).toString().split('\n').filter(Boolean));
      expect(served).toHaveLength(2 * owned.length + (share.ownsClusterSeries ? 1 : 0));
      return served;
    });
    // Together the two shards hold every sample once.
    const unsharded = new SampleSink();
    for (const vhost of vhosts) {
      unsharded.add(def, [vhost], 1);
      unsharded.addRendered(record, `{vhost="${vhost.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}",queue="q"}`, 1);
    }
    unsharded.add(cluster, [], 1);
    const all = unsharded.finish().flatMap((f) => familyBody(f).toString().split('\n').filter(Boolean));
    expect([...lines[0]!, ...lines[1]!].sort()).toEqual(all.sort());
    expect(lines[0]!.filter((l) => lines[1]!.includes(l))).toEqual([]);
  });
});

describe('podOrdinal', () => {
  it("reads a StatefulSet pod's ordinal from the end of its name", () => {
    expect(podOrdinal('rabbitmq-exporter-0')).toBe(0);
    expect(podOrdinal('rabbitmq-exporter-sharded-12')).toBe(12);
    expect(podOrdinal('rabbitmq-exporter')).toBeUndefined();
    expect(podOrdinal('exporter-7d9f8-x2kq')).toBeUndefined();
    expect(podOrdinal('')).toBeUndefined();
  });
});
