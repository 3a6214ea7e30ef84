import type { AnyCollector } from './collector.js';
import { channelsCollector } from './channels.js';
import { connectionsCollector } from './connections.js';
import { consumersCollector } from './consumers.js';
import { streamsCollector } from './streams.js';
import { featureFlagsCollector } from './feature-flags.js';
import { federationCollector } from './federation.js';
import { healthChecksCollector } from './health-checks.js';
import { inventoryCollector } from './inventory.js';
import { limitsCollector } from './limits.js';
import { shovelsCollector } from './shovels.js';
import { exchangesCollector } from './exchanges.js';
import { nodesCollector } from './nodes.js';
import { overviewCollector } from './overview.js';
import { queuesCollector } from './queues.js';
import { vhostsCollector } from './vhosts.js';

/**
 * Every collector the exporter knows, in the order their series appear. Adding a collector
 * is one line here; its options and interval come from `collectors.<name>` in the config.
 */
export const COLLECTORS: readonly AnyCollector[] = [overviewCollector, nodesCollector, queuesCollector, exchangesCollector, vhostsCollector,
  connectionsCollector, channelsCollector, consumersCollector, streamsCollector,
  healthChecksCollector, limitsCollector, federationCollector, shovelsCollector, featureFlagsCollector, inventoryCollector];

/** The collector of a configured name; the configuration admits only the names listed here. */
export function collectorByName(name: string): AnyCollector {
  const collector = COLLECTORS.find((c) => c.name === name);
  if (!collector) throw new Error(`no collector is named ${JSON.stringify(name)}`);
  return collector;
}
