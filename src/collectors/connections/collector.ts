import { z } from 'zod';
import { connectionMetrics as M } from './metrics.js';
import { apiPath, columnsParam } from '../../broker/api-path.js';
import { type MetricDef, metricsOf } from '../../model/metric-def.js';
import type { CollectContext, Collector, RequestLimits } from '../kit/collector.js';
import { emitRecord, fieldsRead, fieldTableOf, getPath } from '../kit/field-table.js';
import { scalarLabel } from '../kit/label-text.js';
import { type Aggregation, aggregate, sumColumns } from '../kit/records.js';
import { logOnce } from '../kit/log-once.js';
import { NameFilter, nameFilterSchema } from '../kit/name-filter.js';
import { fetchList, fetchPerVhost } from '../kit/paging.js';
import { VhostReader, vhostTimeoutSchema } from '../kit/vhost-lists.js';
import { carried } from '../kit/carried.js';
import { eachInTurns } from '../kit/in-turns.js';
import { byClientAggregation, ClientValueCap } from './client-properties.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const options = z.strictObject({
  /**
   * Also serve series per connection (labels connection, vhost, user): true byte and packet
   * counters, state, and rabbitmq_connection_info. One set of ~10 series per open connection:
   * mind the cardinality with many or short-lived connections.
   */
  per_connection: z.boolean().default(false),
  /**
   * Which vhosts' connections (see NameFilter). A list of names is read one request each
   * (GET /api/vhosts/{vhost}/connections); patterns, or no filter, read one list
   * (GET /api/connections), filtered. With management statistics disabled the per-vhost path
   * answers nothing, so the whole list is read and filtered instead.
   */
  vhosts: nameFilterSchema,
  /** Connections per page when the list is read page by page (the API allows at most 500). */
  page_size: z.number().int().min(1).max(500).default(500),
  /**
   * Read the list page by page once it held more than this many connections on the previous
   * poll (0: always). Each page costs the broker about as much as the whole list, so paging
   * only bounds the size of each answer.
   */
  paging_threshold: z.number().int().min(0).default(5000),
  /** Serve the management API's byte rates (recv_oct_details.rate, send_oct_details.rate) as _per_second gauges. */
  rates: z.boolean().default(true),
  /**
   * Also count and sum the connections by client host (peer_host) per vhost, user and node: which
   * hosts hold the connections. One set of series per client host: off by default (a naming
   * profile's environment variables may turn it on).
   */
  by_peer_host: z.boolean().default(false),
  /**
   * Count the open connections by client product, version and platform (their client_properties)
   * per vhost and user: which applications run which client library. Adds client_properties to
   * the list's columns: off by default, as it makes the answer larger.
   */
  by_client: z.boolean().default(false),
  /** by_client: distinct values served per client property; the connections with any further value are counted under "other". */
  client_values_max: z.number().int().min(0).default(20),
  /** With a list of vhost names: deadline of one vhost's request (default: a third of the poll's timeout). */
  vhost_timeout: vhostTimeoutSchema,
});

type Options = z.infer<typeof options>;
type ConnectionRecord = Record<string, unknown>;

const perConnection = fieldTableOf(M);
/** Fields of the aggregates' labels. */
const GROUP_COLUMNS = ['name', 'vhost', 'user', 'protocol', 'node', 'state'];
/** Fields of rabbitmq_connection_info. `client_properties` cannot be narrowed by columns: asking for client_properties.product returns all of it. */
const INFO_COLUMNS = ['type', 'peer_host', 'auth_mechanism', 'ssl', 'user_provided_name', 'client_properties'];

const groupOf = (r: ConnectionRecord) => [scalarLabel(r.vhost), scalarLabel(r.user), scalarLabel(r.protocol), scalarLabel(r.node)];
const peerGroupOf = (r: ConnectionRecord) => [scalarLabel(r.vhost), scalarLabel(r.user), scalarLabel(r.node), scalarLabel(r.peer_host)];

/** The byte, packet and pending sums of one grouping: the same fields for both. */
const trafficSums = (m: Record<'incomingBytes' | 'outgoingBytes' | 'incomingPackets' | 'outgoingPackets' | 'sendPending', MetricDef>) => [
  { metric: m.incomingBytes, sum: 'recv_oct' },
  { metric: m.outgoingBytes, sum: 'send_oct' },
  { metric: m.incomingPackets, sum: 'recv_cnt' },
  { metric: m.outgoingPackets, sum: 'send_cnt' },
  { metric: m.sendPending, sum: 'send_pend' },
];

const BY_PEER_HOST: Aggregation[] = [
  { group: (r) => [...peerGroupOf(r), scalarLabel(r.state)], families: [{ metric: M.byPeerHost }] },
  {
    group: peerGroupOf,
    families: [
      { metric: M.peerChannels, sum: 'channels' },
      ...trafficSums({ incomingBytes: M.peerIncomingBytes, outgoingBytes: M.peerOutgoingBytes, incomingPackets: M.peerIncomingPackets, outgoingPackets: M.peerOutgoingPackets, sendPending: M.peerSendPending }),
    ],
  },
];

function aggregations({ rates, by_peer_host }: Pick<Options, 'rates' | 'by_peer_host'>): Aggregation[] {
  return [
    ...(by_peer_host ? BY_PEER_HOST : []),
    { group: (r) => [...groupOf(r), scalarLabel(r.state)], families: [{ metric: M.byState }, { metric: M.channels, sum: 'channels' }] },
    {
      group: groupOf,
      families: [
        ...trafficSums(M),
        ...(rates ? [{ metric: M.incomingBytesRate, sum: 'recv_oct_details.rate' }, { metric: M.outgoingBytesRate, sum: 'send_oct_details.rate' }] : []),
      ],
    },
  ];
}

export const connectionsCollector: Collector<Options> = {
  name: 'connections',
  description:
    'GET /api/connections (or /api/vhosts/{vhost}/connections per configured vhost) with columns=, page by page for long lists: connections counted and summed by vhost, user, protocol, node and state; per connection when enabled.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink, options: o } = ctx;
    const reader = new VhostReader(ctx, 'connections', { what: 'connections', vhostsSetting: 'collectors.connections.vhosts', timeoutMs: o.vhost_timeout });
    const records = await fetchConnections(ctx, reader);

    await aggregate(sink, records, aggregations(o));
    if (o.by_client) {
      const cap = carried(ctx.carryOver, `client-cap:${o.client_values_max}`, () => new ClientValueCap(o.client_values_max));
      await cap.admit(records);
      await aggregate(sink, records, [byClientAggregation(cap, M.byClient)]);
    }

    if (o.per_connection) await emitPerConnection(ctx, records);
    reader.finish();
  },
};

async function fetchConnections(ctx: CollectContext<Options>, reader: VhostReader): Promise<ConnectionRecord[]> {
  const { api, options: o, carryOver, broker } = ctx;
  const columns = columnsParam([...GROUP_COLUMNS, ...(o.by_peer_host ? ['peer_host'] : []), ...(o.by_client ? ['client_properties'] : []), ...sumColumns(aggregations(o)), ...(o.per_connection ? [...fieldsRead(perConnection, o.rates), ...INFO_COLUMNS] : [])]);
  const list = (path: string, limits?: RequestLimits) =>
    fetchList<ConnectionRecord>(api, path, {
      limits,
      query: { columns },
      pageSize: o.page_size,
      pagingThreshold: o.paging_threshold,
      carryOver,
      key: (r) => (typeof r?.name === 'string' ? r.name : undefined),
      drops: ctx.sink,
    });
  const valid = (records: ConnectionRecord[]) => records.filter((r) => r !== null && typeof r === 'object');

  const filter = new NameFilter(o.vhosts);
  const vhosts = filter.exactNames;
  // Measured on 3.10.8: /api/vhosts/{vhost}/connections answers [] when statistics are off,
  // while /api/connections still lists the tracked connections (name, vhost, user, node).
  if (!vhosts || broker.statisticsDisabled) return valid(await list('/api/connections')).filter((r) => filter.matches(scalarLabel(r.vhost)));
  return valid(
    await fetchPerVhost(reader, vhosts, (vhost, limits) => list(`${apiPath('vhosts', vhost)}/connections`, limits), (vhost) =>
      logOnce(ctx, 'warn', `missing-vhost:${vhost}`, { vhost }, 'configured vhost does not exist (404); its connections are not collected'),
    ),
  );
}

async function emitPerConnection(ctx: CollectContext<Options>, records: ConnectionRecord[]): Promise<void> {
  const { sink } = ctx;
  const seen = new Set<string>();
  await eachInTurns(records, (r) => {
    const name = scalarLabel(r.name);
    if (!name) {
      sink.drop('no_name');
      return;
    }
    const vhost = scalarLabel(r.vhost);
    const user = scalarLabel(r.user);
    const key = `${name}\u0000${vhost}\u0000${user}`;
    if (seen.has(key)) {
      sink.drop('duplicate');
      return;
    }
    seen.add(key);
    const id = { connection: name, vhost, user };
    sink.add(M.info, {
      ...id,
      node: scalarLabel(r.node),
      protocol: scalarLabel(r.protocol),
      type: scalarLabel(r.type),
      peer_host: scalarLabel(r.peer_host),
      client_name: scalarLabel(r.user_provided_name),
      client_product: scalarLabel(getPath(r, ['client_properties', 'product'])),
      client_version: scalarLabel(getPath(r, ['client_properties', 'version'])),
      auth_mechanism: scalarLabel(r.auth_mechanism),
      ssl: scalarLabel(r.ssl),
    }, 1);
    if (typeof r.state === 'string') sink.add(M.state, { ...id, state: r.state }, 1);
    const labels = renderLabels(M.connChannels.labels, [name, vhost, user]);
    emitRecord(sink, perConnection, r, labels, { rates: ctx.options.rates });
  });
}
