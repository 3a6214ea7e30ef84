import { z } from 'zod';
import { consumerMetrics as M } from './metrics.js';
import { expectList } from '../../broker/expect-list.js';
import { apiPath, columnsParam } from '../../broker/api-path.js';
import { metricsOf } from '../../model/metric-def.js';
import type { CollectContext, Collector, RequestLimits } from '../kit/collector.js';
import { getPath } from '../kit/field-table.js';
import { scalarLabel } from '../kit/label-text.js';
import { aggregate } from '../kit/records.js';
import { logOnce } from '../kit/log-once.js';
import { NameFilter, nameFilterSchema } from '../kit/name-filter.js';
import { fetchPerVhost } from '../kit/paging.js';
import { VhostReader, vhostTimeoutSchema } from '../kit/vhost-lists.js';
import { Tally } from '../kit/tally.js';
import { eachInTurns } from '../kit/in-turns.js';

const options = z.strictObject({
  /**
   * Which vhosts' consumers (see NameFilter). A list of names is read one request each
   * (GET /api/consumers/{vhost}); patterns, or no filter, read GET /api/consumers, filtered.
   */
  vhosts: nameFilterSchema,
  /** Serve consumer counts per queue and ack mode (rabbitmq_queue_consumers_by_ack_mode). */
  per_queue: z.boolean().default(true),
  /**
   * When more queues than this have consumers, the per-queue series are left out altogether
   * (and a warning is logged once) rather than served in part. 0: no limit.
   */
  per_queue_limit: z.number().int().min(0).default(1000),
  /** With a list of vhost names: deadline of one vhost's request (default: a third of the poll's timeout). */
  vhost_timeout: vhostTimeoutSchema,
});

type Options = z.infer<typeof options>;
type ConsumerRecord = Record<string, unknown>;

/** The API answers /api/consumers whole (it ignores paging); columns= narrows each record. */
const COLUMNS = columnsParam(['queue', 'ack_required', 'prefetch_count', 'activity_status', 'consumer_tag', 'channel_details.name']);

export const consumersCollector: Collector<Options> = {
  name: 'consumers',
  description:
    'GET /api/consumers (or /api/consumers/{vhost} per configured vhost) with columns=: consumers counted by vhost and ack mode, prefetch range and activity status, and per queue. Nothing when management statistics are disabled (the API answers 400).',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink, options: o } = ctx;
    if (ctx.broker.statisticsDisabled) {
      logOnce(ctx, 'info', 'statistics-disabled', {}, 'management statistics are disabled: /api/consumers answers 400, so there are no consumer series');
      return;
    }
    const reader = new VhostReader(ctx, 'consumers', { what: 'consumers', vhostsSetting: 'collectors.consumers.vhosts', timeoutMs: o.vhost_timeout });
    const records = await fetchConsumers(ctx, reader);

    const vhostOf = (r: ConsumerRecord) => scalarLabel(getPath(r, ['queue', 'vhost']));
    const prefetchOf = (r: ConsumerRecord) => (ackMode(r.ack_required) === 'manual' ? prefetchRange(r.prefetch_count) : undefined);
    await aggregate(sink, records, [
      { group: (r) => [vhostOf(r), ackMode(r.ack_required)], families: [{ metric: M.byAckMode }] },
      { group: (r) => (prefetchOf(r) === undefined ? undefined : [vhostOf(r), prefetchOf(r) as string]), families: [{ metric: M.byPrefetch }] },
      { group: (r) => (typeof r.activity_status === 'string' ? [vhostOf(r), r.activity_status] : undefined), families: [{ metric: M.byActivity }] },
    ]);
    // A manual-ack consumer's prefetch_count that is there but not a number is skipped, like any such field.
    sink.skipped += records.filter((r) => r.prefetch_count !== undefined && ackMode(r.ack_required) === 'manual' && prefetchOf(r) === undefined).length;

    if (o.per_queue) {
      const perQueue = new Tally();
      await eachInTurns(records, (r) => {
        const queue = getPath(r, ['queue', 'name']);
        if (typeof queue === 'string') perQueue.add([vhostOf(r), queue, ackMode(r.ack_required)]);
      });
      const queues = new Set<string>();
      for (const group of perQueue) queues.add(`${group.labels[0]}\u0000${group.labels[1]}`);
      if (o.per_queue_limit > 0 && queues.size > o.per_queue_limit) {
        logOnce(ctx, 'warn', 'per-queue-limit', { queues: queues.size, per_queue_limit: o.per_queue_limit },
          'more queues have consumers than per_queue_limit: rabbitmq_queue_consumers_by_ack_mode is left out');
      } else {
        for (const group of perQueue) sink.add(M.perQueue, group.labels, group.count);
      }
    }
    reader.finish();
  },
};

function ackMode(ackRequired: unknown): string {
  if (ackRequired === true) return 'manual';
  if (ackRequired === false) return 'auto';
  return '';
}

/** The prefetch range of a manual-ack consumer, or undefined when prefetch_count is not a number. */
export function prefetchRange(raw: unknown): string | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n === 0) return 'unlimited';
  if (n === 1) return '1';
  if (n <= 10) return '2-10';
  if (n <= 100) return '11-100';
  if (n <= 1000) return '101-1000';
  return 'over_1000';
}

async function fetchConsumers(ctx: CollectContext<Options>, reader: VhostReader): Promise<ConsumerRecord[]> {
  const { api, options: o } = ctx;
  const list = async (path: string, limits?: RequestLimits): Promise<ConsumerRecord[]> => {
    return expectList<ConsumerRecord>(await api.get(path, { columns: COLUMNS }, limits), path);
  };
  const filter = new NameFilter(o.vhosts);
  const vhosts = filter.exactNames;
  const records = !vhosts
    ? await list('/api/consumers')
    : await fetchPerVhost(reader, vhosts, (vhost, limits) => list(apiPath('consumers', vhost), limits), (vhost) =>
          logOnce(ctx, 'warn', `missing-vhost:${vhost}`, { vhost }, 'configured vhost does not exist (404); its consumers are not collected'),
        );
  // An AMQP consumer is its channel and tag: the same one listed twice is counted once. Stream
  // protocol consumers are listed with an empty channel name (tag stream.subid-N, measured on
  // 3.10.8), so they cannot be told apart: all are kept.
  const seen = new Set<string>();
  const kept: ConsumerRecord[] = [];
  await eachInTurns(records, (r) => {
    if (r === null || typeof r !== 'object') {
      ctx.sink.drop('no_name');
      return;
    }
    // The whole list is filtered here; one read per vhost holds only that vhost's consumers.
    if (!vhosts && !filter.matches(scalarLabel(getPath(r, ['queue', 'vhost'])))) return;
    const channel = getPath(r, ['channel_details', 'name']);
    if (typeof channel !== 'string' || channel === '' || typeof r.consumer_tag !== 'string') {
      kept.push(r);
      return;
    }
    const id = `${channel}\u0000${r.consumer_tag}`;
    if (seen.has(id)) {
      ctx.sink.drop('duplicate');
      return;
    }
    seen.add(id);
    kept.push(r);
  });
  return kept;
}
