import { z } from 'zod';
import { streamMetrics as M } from './metrics.js';
import { expectList } from '../../broker/expect-list.js';
import { metricsOf } from '../../model/metric-def.js';
import type { CollectContext, Collector } from '../kit/collector.js';
import { emitRecord, fieldTable, getPath } from '../kit/field-table.js';
import { scalarLabel } from '../kit/label-text.js';
import { aggregate, uniqueRecordsInTurns } from '../kit/records.js';
import { eachInTurns } from '../kit/in-turns.js';
import { logOnce } from '../kit/log-once.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const options = z.strictObject({
  /**
   * Also serve per-stream publisher and consumer counts, and series per publisher (published,
   * confirmed, errored counters) and per consumer (credits, consumed, offset, offset_lag),
   * labelled by vhost, stream, connection and id: mind the cardinality.
   */
  per_stream: z.boolean().default(false),
});

type Options = z.infer<typeof options>;
type StreamRecord = Record<string, unknown>;

const publisherTable = fieldTable([M.published, M.confirmed, M.errored]);
const consumerTable = fieldTable([M.credits, M.consumed, M.offset, M.offsetLag]);

const PLUGIN_STATE = 'stream-plugin';

export const streamsCollector: Collector<Options> = {
  name: 'streams',
  description:
    'GET /api/stream/connections, /api/stream/publishers and /api/stream/consumers (rabbitmq_stream_management plugin, RabbitMQ 3.9+): stream connections, publishers and consumers per vhost; per stream, publisher and consumer when enabled. A 404 (or 406, what 3.10 answers for an unrouted path) means the plugin is off: no series, no error.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const connections = await getList(ctx, '/api/stream/connections', { columns: 'name,vhost' });
    if (connections === undefined) {
      if (ctx.carryOver.get(PLUGIN_STATE) !== 'absent') {
        ctx.carryOver.set(PLUGIN_STATE, 'absent');
        ctx.log.info('the stream management plugin is not enabled (GET /api/stream/connections is absent): no stream series');
      }
      return;
    }
    ctx.carryOver.set(PLUGIN_STATE, 'present');
    const { sink } = ctx;

    // A connection listed twice is counted once; nameless ones cannot be told apart: all are counted.
    const seenConnections = new Set<string>();
    const unique = connections.filter((r) => {
      const name = scalarLabel(r.name);
      if (!name) return true;
      if (seenConnections.has(name)) {
        sink.drop('duplicate');
        return false;
      }
      seenConnections.add(name);
      return true;
    });
    await aggregate(sink, unique, [{ group: (r) => [scalarLabel(r.vhost)], families: [{ metric: M.connections }] }]);

    // With statistics disabled 3.10 answers 400 for publishers and consumers, later versions [].
    if (ctx.broker.statisticsDisabled) {
      logOnce(ctx, 'info', 'statistics-disabled', {}, 'management statistics are disabled: only stream connections are counted, not publishers and consumers');
      return;
    }
    const [publishers, consumers] = await Promise.all([
      getList(ctx, '/api/stream/publishers'),
      getList(ctx, '/api/stream/consumers'),
    ]);
    if (publishers) await emitEntities(ctx, publishers, 'publisher_id', M.publishers, M.publishersByStream, (labels, r) =>
      emitRecord(sink, publisherTable, r, renderLabels(M.published.labels, labels), { rates: false }),
    );
    if (consumers) await emitEntities(ctx, consumers, 'subscription_id', M.consumers, M.consumersByStream, (labels, r) =>
      emitRecord(sink, consumerTable, r, renderLabels(M.credits.labels, labels), { rates: false }),
    );
  },
};

/**
 * The list at `path`, or undefined when the path is absent (broker/absence.ts): the plugin is
 * off, or (consumers) the feature flag stream_queue is.
 */
async function getList(ctx: CollectContext<Options>, path: string, query?: Record<string, string>): Promise<StreamRecord[] | undefined> {
  const answer = await ctx.api.getOptional(path, query);
  if (answer === undefined) return undefined;
  return expectList(answer, path).filter((r): r is StreamRecord => r !== null && typeof r === 'object');
}

/**
 * Publishers or consumers: counted per vhost, and with per_stream per stream and one series set
 * each. One is identified by its stream, its connection and its id (publisher_id, subscription_id).
 */
async function emitEntities(
  ctx: CollectContext<Options>,
  records: StreamRecord[],
  idField: string,
  perVhost: typeof M.publishers,
  perStream: typeof M.publishersByStream,
  emitOne: (labels: string[], record: StreamRecord) => void,
): Promise<void> {
  const vhostOf = (r: StreamRecord) => scalarLabel(getPath(r, ['queue', 'vhost']));
  const streamOf = (r: StreamRecord) => scalarLabel(getPath(r, ['queue', 'name']));
  const labelsOf = (r: StreamRecord) => [vhostOf(r), streamOf(r), scalarLabel(getPath(r, ['connection_details', 'name'])), scalarLabel(r[idField])];
  const entities = await uniqueRecordsInTurns(records, (r) => labelsOf(r).join('\u0000'), ctx.sink);
  await aggregate(ctx.sink, entities, [
    { group: (r) => [vhostOf(r)], families: [{ metric: perVhost }] },
    ...(ctx.options.per_stream ? [{ group: (r: StreamRecord) => [vhostOf(r), streamOf(r)], families: [{ metric: perStream }] }] : []),
  ]);
  if (!ctx.options.per_stream) return;
  await eachInTurns(entities, (r) => emitOne(labelsOf(r), r));
}
