import { FEDERATION_LINK_STATES, federationMetrics as M } from './metrics.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { stringLabel } from '../kit/label-text.js';
import { listPart, statesWith } from '../kit/records.js';
import { collectParts } from '../kit/optional-requests.js';

const PATH = '/api/federation-links';
/** Identity, state and metadata only: a running link's answer also carries its whole local channel. */
const COLUMNS = 'vhost,upstream,type,exchange,queue,upstream_exchange,upstream_queue,node,status';

export const federationCollector: Collector = {
  name: 'federation',
  description: `GET ${PATH} (federation management plugin; absent plugin: no series): state of every federation link.`,
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink } = ctx;
    const status = (link: Record<string, unknown>) => stringLabel(link.status) || 'unknown';
    await collectParts(ctx, federationCollector.name, [
      listPart(ctx, {
        path: PATH,
        query: { columns: COLUMNS },
        optional: { absentMeans: 'the federation management plugin is not enabled' },
        identity: (link) => JSON.stringify([link.vhost, link.upstream, link.type, link.exchange, link.queue]),
        // Each link runs on one node; should two nodes report the same link, the running one wins.
        prefer: (link, kept) => kept.status !== 'running' && link.status === 'running',
        each: (link) => {
          const current = status(link);
          const id = { vhost: stringLabel(link.vhost), upstream: stringLabel(link.upstream), exchange: stringLabel(link.exchange), queue: stringLabel(link.queue) };
          sink.add(M.linkUp, id, current === 'running' ? 1 : 0);
          for (const state of statesWith(FEDERATION_LINK_STATES, current)) sink.add(M.linkState, { ...id, state }, state === current ? 1 : 0);
          sink.add(M.linkInfo, { ...id, type: stringLabel(link.type), upstream_exchange: stringLabel(link.upstream_exchange), upstream_queue: stringLabel(link.upstream_queue), node: stringLabel(link.node) }, 1, link);
        },
        aggregations: [{ group: (link) => [status(link)], families: [{ metric: M.links }] }],
      }),
    ]);
  },
};
