// Issue 14 ("Past one process"): --shard and --total-shards, from flags or the config file.
import { describe, expect, it } from 'vitest';
import { configLoader } from './load-with.js';

const { load, problem } = configLoader('rmqexp-sharding-');

describe('sharding configuration', () => {
  it('defaults to one shard doing everything', () => {
    const config = load([]);
    expect(config.sharding).toEqual({ shard: 0, totalShards: 1 });
    expect(config.targets[0]!.sharding).toEqual({ shard: 0, totalShards: 1 });
  });

  it('takes --shard and --total-shards, and hands them to every target', () => {
    const config = load(['--shard=1', '--total-shards=3'], {}, 'targets:\n  - name: a\n  - name: b\n');
    expect(config.sharding).toEqual({ shard: 1, totalShards: 3 });
    expect(config.targets.map((t) => t.sharding)).toEqual([{ shard: 1, totalShards: 3 }, { shard: 1, totalShards: 3 }]);
  });

  it('takes them from the config file too; flags win', () => {
    expect(load([], {}, 'sharding:\n  shard: 2\n  total_shards: 4\n').sharding).toEqual({ shard: 2, totalShards: 4 });
    expect(load(['--shard=0'], {}, 'sharding:\n  shard: 2\n  total_shards: 4\n').sharding).toEqual({ shard: 0, totalShards: 4 });
  });

  it('refuses what is not an integer in range, naming the flag', () => {
    expect(problem(['--shard=one', '--total-shards=2'])).toMatch(/flag --shard: key "sharding.shard": must be an integer of at least 0, or auto; got "one"/);
    expect(problem(['--shard=-1', '--total-shards=2'])).toMatch(/flag --shard: key "sharding.shard": must be an integer of at least 0/);
    expect(problem(['--shard=1.5', '--total-shards=2'])).toMatch(/flag --shard: key "sharding.shard"/);
    expect(problem(['--total-shards=0'])).toMatch(/flag --total-shards: key "sharding.total_shards": must be an integer of at least 1; got 0/);
    expect(problem(['--total-shards=two'])).toMatch(/flag --total-shards: key "sharding.total_shards": must be an integer of at least 1; got "two"/);
  });

  it('refuses a shard not below the total, naming both', () => {
    expect(problem(['--shard=2', '--total-shards=2'])).toBe(
      'flag --shard: key "sharding.shard": 2 must be below the number of shards, 2 (flag --total-shards: key "sharding.total_shards"): shards are numbered 0 to 1',
    );
    expect(problem(['--shard=1'])).toMatch(/flag --shard: key "sharding.shard": 1 must be below the number of shards, 1 \(the default of key "sharding.total_shards"\)/);
    expect(problem([], {}, 'sharding:\n  shard: 5\n  total_shards: 3\n')).toMatch(/^config file .*: key "sharding.shard": 5 must be below the number of shards, 3/);
  });

  it('refuses sharding inside an entry of targets: (every target is split the same way)', () => {
    expect(problem([], {}, 'targets:\n  - name: a\n    sharding:\n      shard: 1\n')).toMatch(/key "targets\[0\].sharding": unknown key/);
  });

  describe('--shard=auto', () => {
    it("takes the ordinal of the StatefulSet pod from POD_NAME", () => {
      expect(load(['--shard=auto', '--total-shards=2'], { POD_NAME: 'rabbitmq-exporter-1', HOSTNAME: 'other-0' }).sharding).toEqual({ shard: 1, totalShards: 2 });
    });

    it('falls back to HOSTNAME, which Kubernetes sets to the pod name', () => {
      expect(load(['--shard=auto', '--total-shards=2'], { HOSTNAME: 'rabbitmq-exporter-0' }).sharding).toEqual({ shard: 0, totalShards: 2 });
    });

    it('refuses a name without an ordinal, or an ordinal past the total', () => {
      expect(problem(['--shard=auto', '--total-shards=2'], { POD_NAME: 'exporter-7d9f8-x2kq' })).toBe(
        'flag --shard: key "sharding.shard": auto takes the shard from the pod\'s name, which must end in -N (a StatefulSet pod\'s ordinal), but POD_NAME is "exporter-7d9f8-x2kq"',
      );
      expect(problem(['--shard=auto', '--total-shards=2'], {})).toMatch(/but neither POD_NAME nor HOSTNAME is set$/);
      expect(problem(['--shard=auto', '--total-shards=2'], { POD_NAME: 'rabbitmq-exporter-2' })).toMatch(
        /flag --shard: key "sharding.shard": 2 \(the ordinal of the pod's name\) must be below the number of shards, 2/,
      );
    });
  });
});
