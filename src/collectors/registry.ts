import type { AnyCollector } from './kit/collector.js';
import { certificatesCollector } from './certificates/collector.js';
import { channelsCollector } from './channels/collector.js';
import { connectionsCollector } from './connections/collector.js';
import { consumersCollector } from './consumers/collector.js';
import { streamsCollector } from './streams/collector.js';
import { featureFlagsCollector } from './feature-flags/collector.js';
import { federationCollector } from './federation/collector.js';
import { healthChecksCollector } from './health-checks/collector.js';
import { inventoryCollector } from './inventory/collector.js';
import { limitsCollector } from './limits/collector.js';
import { shovelsCollector } from './shovels/collector.js';
import { exchangesCollector } from './exchanges/collector.js';
import { nodesCollector } from './nodes/collector.js';
import { overviewCollector } from './overview/collector.js';
import { pluginCollector } from './plugin/collector.js';
import { queuesCollector } from './queues/collector.js';
import { vhostsCollector } from './vhosts/collector.js';

/**
 * Every collector the exporter knows, in the order their series appear. Adding a collector
 * is one line here; its options and interval come from `collectors.<name>` in the config.
 */
export const COLLECTORS: readonly AnyCollector[] = [overviewCollector, nodesCollector, queuesCollector, exchangesCollector, vhostsCollector,
  connectionsCollector, channelsCollector, consumersCollector, streamsCollector,
  healthChecksCollector, certificatesCollector, limitsCollector, federationCollector, shovelsCollector, featureFlagsCollector, inventoryCollector, pluginCollector];

/** The collector of a configured name; the configuration admits only the names listed here. */
export function collectorByName(name: string): AnyCollector {
  const collector = COLLECTORS.find((c) => c.name === name);
  if (!collector) throw new Error(`no collector is named ${JSON.stringify(name)}`);
  return collector;
}
