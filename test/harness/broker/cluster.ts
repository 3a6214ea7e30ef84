import type { BrokerHandle, BrokerInfo } from './broker.js';
import { waitFor } from './node-process.js';

/**
 * Make `node` (started with `peerOf: seed`) a member of `seed`'s cluster: stop_app,
 * join_cluster, start_app, then wait until the seed's GET /api/nodes lists both nodes running.
 */
export async function joinCluster(node: BrokerHandle, seed: BrokerInfo): Promise<void> {
  if (node.epmdPort !== seed.epmdPort) throw new Error(`${node.nodeName} was not started with peerOf ${seed.nodeName}: they share no epmd`);
  await node.stopApp();
  await node.ctl(['join_cluster', seed.nodeName]);
  await node.startApp();
  const auth = `Basic ${Buffer.from(`${seed.username}:${seed.password}`).toString('base64')}`;
  let last = '';
  const joined = await waitFor(async () => {
    try {
      const res = await fetch(`${seed.managementUrl}/api/nodes`, { headers: { authorization: auth }, signal: AbortSignal.timeout(3000) });
      const nodes = (await res.json()) as { name?: string; running?: boolean }[];
      last = JSON.stringify(nodes.map((n) => [n.name, n.running]));
      return [seed.nodeName, node.nodeName].every((name) => nodes.some((n) => n.name === name && n.running === true));
    } catch (e) {
      last = (e as Error).message;
      return false;
    }
  }, 60_000, 250);
  if (!joined) throw new Error(`${node.nodeName} joined ${seed.nodeName} but GET /api/nodes does not list both running within 60 s (last: ${last})`);
}
