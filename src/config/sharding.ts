import { podOrdinal, type ShardConfig } from '../model/shard-assignment.js';
import { ConfigError } from './config-error.js';

type Env = Record<string, string | undefined>;

/**
 * The shard this replica is, checked against the total. `auto` takes the ordinal a StatefulSet
 * gives its pod, from the end of the pod's name: POD_NAME (set from metadata.name through the
 * downward API), else HOSTNAME (which Kubernetes sets to the pod's name).
 * `where(key)`: how a key's value is named in messages (its flag, variable or file).
 */
export function resolveSharding(
  configured: { shard: number | 'auto'; total_shards: number },
  env: Env,
  where: (key: 'sharding.shard' | 'sharding.total_shards') => string,
): ShardConfig {
  const totalShards = configured.total_shards;
  let shard: number;
  if (configured.shard === 'auto') {
    const [variable, podName] = env.POD_NAME !== undefined && env.POD_NAME !== '' ? ['POD_NAME', env.POD_NAME] : ['HOSTNAME', env.HOSTNAME];
    const ordinal = podName === undefined ? undefined : podOrdinal(podName);
    if (ordinal === undefined) {
      const seen = podName === undefined ? 'neither POD_NAME nor HOSTNAME is set' : `${variable} is "${podName}"`;
      throw new ConfigError(`${where('sharding.shard')}: auto takes the shard from the pod's name, which must end in -N (a StatefulSet pod's ordinal), but ${seen}`);
    }
    shard = ordinal;
  } else {
    shard = configured.shard;
  }
  if (shard >= totalShards) {
    const from = configured.shard === 'auto' ? ` (the ordinal of the pod's name)` : '';
    throw new ConfigError(
      `${where('sharding.shard')}: ${shard}${from} must be below the number of shards, ${totalShards} (${where('sharding.total_shards')}): shards are numbered 0 to ${totalShards - 1}`,
    );
  }
  return { shard, totalShards };
}
