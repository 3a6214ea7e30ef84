import { z } from 'zod';
import { channelMessageStats, channelMetrics as M } from '../catalogue/channels.js';
import { apiPath, columnsParam } from '../client/management-client.js';
import { renderLabels } from '../render/text-format.js';
import type { CollectContext, Collector } from './collector.js';
import { emitRecord, fieldOf, fieldTable, getPath } from './field-table.js';
import { scalarLabel } from './label-text.js';
import { uniqueRecords } from './list-request.js';
import { logOnce } from './log-once.js';
import { NameFilter, nameFilterSchema } from './name-filter.js';
import { fetchList, fetchPerVhost } from './paging.js';
import { addDefined, Tally } from './tally.js';

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

function columns(o: Options): string {
  const cols = ['name', 'vhost', 'state', ...GAUGES.map((gauge) => gauge.field)];
  if (o.per_channel) cols.push('user', 'consumer_count');
  for (const s of channelMessageStats) {
    cols.push(`message_stats.${s.field}`);
    if (o.rates) cols.push(`message_stats.${s.field}_details`);
  }
  return columnsParam(cols);
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
    const records = await fetchChannels(ctx);

    const byState = new Tally();
    const byVhost = new Tally();
    for (const r of records) {
      const vhost = scalarLabel(r.vhost);
      byState.add([vhost, scalarLabel(r.state)]);
      const values: Record<string, unknown> = {};
      for (const { field } of GAUGES) values[field] = r[field];
      for (const s of channelMessageStats) {
        values[s.field] = getPath(r, ['message_stats', s.field]);
        if (o.rates) values[`${s.field}:rate`] = getPath(r, ['message_stats', `${s.field}_details`, 'rate']);
      }
      byVhost.add([vhost], values);
    }
    for (const group of byState) sink.add(M.byState, group.labels, group.count);
    for (const group of byVhost) {
      for (const { field, sum } of GAUGES) addDefined(sink, sum, group.labels, group.sum(field));
      for (const s of channelMessageStats) {
        addDefined(sink, s.sum, group.labels, group.sum(s.field));
        addDefined(sink, s.rate, group.labels, group.sum(`${s.field}:rate`));
      }
    }
    sink.skipped += byState.skipped + byVhost.skipped;

    if (o.per_channel) {
      const labelsOf = (r: ChannelRecord) => [scalarLabel(r.name), scalarLabel(r.vhost), scalarLabel(r.user)];
      for (const r of uniqueRecords(records, (r) => (scalarLabel(r.name) ? labelsOf(r).join('\u0000') : undefined), sink)) {
        const labels = labelsOf(r);
        emitRecord(sink, perChannel, r, renderLabels(M.unackedPerChannel.labels, labels), { rates: false });
      }
    }
  },
};

async function fetchChannels(ctx: CollectContext<Options>): Promise<ChannelRecord[]> {
  const { api, options: o, carryOver } = ctx;
  const list = (path: string) =>
    fetchList<ChannelRecord>(api, path, {
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
    : await fetchPerVhost(vhosts, (vhost) => list(`${apiPath('vhosts', vhost)}/channels`), (vhost) =>
          logOnce(ctx, 'warn', `missing-vhost:${vhost}`, { vhost }, 'configured vhost does not exist (404); its channels are not collected'),
        );
  return records.filter((r) => r !== null && typeof r === 'object');
}
