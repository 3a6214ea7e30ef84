import { z } from 'zod';
import { channelMessageStats, channelMetrics as M } from './metrics.js';
import { apiPath, columnsParam } from '../../broker/api-path.js';
import type { CollectContext, Collector, RequestLimits } from '../kit/collector.js';
import { emitRecord, fieldOf, fieldsRead, fieldTable } from '../kit/field-table.js';
import { scalarLabel } from '../kit/label-text.js';
import { type Aggregation, aggregate, sumColumns, uniqueRecordsInTurns } from '../kit/records.js';
import { eachInTurns } from '../kit/in-turns.js';
import { logOnce } from '../kit/log-once.js';
import { NameFilter, nameFilterSchema } from '../kit/name-filter.js';
import { fetchList, fetchPerVhost } from '../kit/paging.js';
import { VhostReader, vhostTimeoutSchema } from '../kit/vhost-lists.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const options = z.strictObject({
  /**
   * Also serve series per channel (labels channel, vhost, user): unacked, unconfirmed, prefetch,
   * consumers and message counters. ~17 series per open channel: mind the cardinality.
   */
  per_channel: z.boolean().default(false),
  /**
   * Which vhosts' channels (see NameFilter). A list of names is read one request each
   * (GET /api/vhosts/{vhost}/channels); patterns, or no filter, read GET /api/channels, filtered.
   */
  vhosts: nameFilterSchema,
  /** Channels per page when the list is read page by page (the API allows at most 500). */
  page_size: z.number().int().min(1).max(500).default(500),
  /** Read the list page by page once it held more than this many channels on the previous poll (0: always). */
  paging_threshold: z.number().int().min(0).default(5000),
  /** Serve the sums of message_stats rates (`_details.rate`) as _per_second gauges. */
  rates: z.boolean().default(true),
  /** With a list of vhost names: deadline of one vhost's request (default: a third of the poll's timeout). */
  vhost_timeout: vhostTimeoutSchema,
});

type Options = z.infer<typeof options>;
type ChannelRecord = Record<string, unknown>;

/** Gauges of a channel: per vhost the sum of the per-channel row's field. */
const GAUGES = ([
  [M.unacked, M.unackedPerChannel],
  [M.unconfirmed, M.unconfirmedPerChannel],
  [M.uncommitted, M.uncommittedPerChannel],
  [M.acksUncommitted, M.acksUncommittedPerChannel],
  [M.prefetch, M.prefetchPerChannel],
] as const).map(([sum, perChannel]) => ({ field: fieldOf(perChannel), sum, perChannel }));

const perChannel = fieldTable([
  ...GAUGES.map((gauge) => gauge.perChannel),
  M.consumersPerChannel,
  ...channelMessageStats.map((s) => s.counter),
]);

function aggregations(rates: boolean): Aggregation[] {
  return [
    { group: (r) => [scalarLabel(r.vhost), scalarLabel(r.state)], families: [{ metric: M.byState }] },
    {
      group: (r) => [scalarLabel(r.vhost)],
      families: [
        ...GAUGES.map(({ field, sum }) => ({ metric: sum, sum: field })),
        ...channelMessageStats.flatMap((s) => [
          { metric: s.sum, sum: `message_stats.${s.field}` },
          ...(rates ? [{ metric: s.rate, sum: `message_stats.${s.field}_details.rate` }] : []),
        ]),
      ],
    },
  ];
}

/** The label fields, and the fields the aggregations and (per_channel) the per-channel rows read. */
function columns(o: Options): string {
  return columnsParam(['name', 'vhost', 'state', ...sumColumns(aggregations(o.rates)), ...(o.per_channel ? ['user', ...fieldsRead(perChannel, false)] : [])]);
}

export const channelsCollector: Collector<Options> = {
  name: 'channels',
  description:
    'GET /api/channels (or /api/vhosts/{vhost}/channels per configured vhost) with columns=, page by page for long lists: channels counted by vhost and state, unacked/unconfirmed/uncommitted messages, prefetch and message statistics summed per vhost; per channel when enabled. Nothing when management statistics are disabled (the API answers 400).',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: options,
  metrics: [
    M.byState, M.unacked, M.unconfirmed, M.uncommitted, M.acksUncommitted, M.prefetch,
    ...channelMessageStats.flatMap((s) => [s.sum, s.rate]),
    ...perChannel.metrics,
  ],
  async collect(ctx) {
    const { sink, options: o } = ctx;
    if (ctx.broker.statisticsDisabled) {
      logOnce(ctx, 'info', 'statistics-disabled', {}, 'management statistics are disabled: /api/channels answers 400, so there are no channel series');
      return;
    }
    const reader = new VhostReader(ctx, 'channels', { what: 'channels', vhostsSetting: 'collectors.channels.vhosts', timeoutMs: o.vhost_timeout });
    const records = await fetchChannels(ctx, reader);

    await aggregate(sink, records, aggregations(o.rates));

    if (o.per_channel) {
      const labelsOf = (r: ChannelRecord) => [scalarLabel(r.name), scalarLabel(r.vhost), scalarLabel(r.user)];
      await eachInTurns(await uniqueRecordsInTurns(records, (r) => (scalarLabel(r.name) ? labelsOf(r).join('\u0000') : undefined), sink), (r) => {
        const labels = labelsOf(r);
        emitRecord(sink, perChannel, r, renderLabels(M.unackedPerChannel.labels, labels), { rates: false });
      });
    }
    reader.finish();
  },
};

async function fetchChannels(ctx: CollectContext<Options>, reader: VhostReader): Promise<ChannelRecord[]> {
  const { api, options: o, carryOver } = ctx;
  const list = (path: string, limits?: RequestLimits) =>
    fetchList<ChannelRecord>(api, path, {
      limits,
      query: { columns: columns(o) },
      pageSize: o.page_size,
      pagingThreshold: o.paging_threshold,
      carryOver,
      key: (r) => (typeof r?.name === 'string' ? r.name : undefined),
      drops: ctx.sink,
    });
  const filter = new NameFilter(o.vhosts);
  const vhosts = filter.exactNames;
  const records = !vhosts
    ? (await list('/api/channels')).filter((r) => filter.matches(scalarLabel(r?.vhost)))
    : await fetchPerVhost(reader, vhosts, (vhost, limits) => list(`${apiPath('vhosts', vhost)}/channels`, limits), (vhost) =>
          logOnce(ctx, 'warn', `missing-vhost:${vhost}`, { vhost }, 'configured vhost does not exist (404); its channels are not collected'),
        );
  return records.filter((r) => r !== null && typeof r === 'object');
}
