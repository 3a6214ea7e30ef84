import { FEDERATION_LINK_STATES, federationMetrics as M } from '../catalogue/federation.js';
import { metricsOf } from '../metrics/metric-def.js';
import type { Collector } from './collector.js';
import { stringLabel } from './label-text.js';
import { getRemembered, jsonList } from './optional-requests.js';

const PATH = '/api/federation-links';
/** Identity, state and metadata only: a running link's answer also carries its whole local channel. */
const COLUMNS = 'vhost,upstream,type,exchange,queue,upstream_exchange,upstream_queue,node,status';

type Link = Record<string, unknown>;

export const federationCollector: Collector = {
  name: 'federation',
  description: `GET ${PATH} (federation management plugin; absent plugin: no series): state of every federation link.`,
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  metrics: metricsOf(M),
  async collect(ctx) {
    const answer = await getRemembered<unknown>(ctx, {
      path: PATH,
      query: { columns: COLUMNS },
      absentMeans: 'the federation management plugin is not enabled',
    });
    if (!answer.ok) return;
    // Each link runs on one node; should two nodes report the same link, the running one wins.
    const links = new Map<string, Link>();
    for (const link of jsonList<Link>(answer.body, PATH)) {
      const key = JSON.stringify([link.vhost, link.upstream, link.type, link.exchange, link.queue]);
      const seen = links.get(key);
      if (!seen || (seen.status !== 'running' && link.status === 'running')) links.set(key, link);
    }
    const byStatus = new Map<string, number>();
    const { sink } = ctx;
    for (const link of links.values()) {
      const status = stringLabel(link.status) || 'unknown';
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      const id = { vhost: stringLabel(link.vhost), upstream: stringLabel(link.upstream), exchange: stringLabel(link.exchange), queue: stringLabel(link.queue) };
      sink.add(M.linkUp, id, status === 'running' ? 1 : 0);
      const states: readonly string[] = FEDERATION_LINK_STATES.includes(status as never) ? FEDERATION_LINK_STATES : [...FEDERATION_LINK_STATES, status];
      for (const state of states) sink.add(M.linkState, { ...id, state }, state === status ? 1 : 0);
      sink.add(M.linkInfo, { ...id, type: stringLabel(link.type), upstream_exchange: stringLabel(link.upstream_exchange), upstream_queue: stringLabel(link.upstream_queue), node: stringLabel(link.node) }, 1);
    }
    for (const [status, count] of byStatus) sink.add(M.links, [status], count);
  },
};
