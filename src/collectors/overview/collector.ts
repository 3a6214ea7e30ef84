import { z } from 'zod';
import { brokerReport } from '../../broker/broker-info-reader.js';
import { overviewMetrics as M } from './metrics.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { emitRecord, fieldTableOf } from '../kit/field-table.js';

const table = fieldTableOf(M);

/**
 * The message counters of `message_stats`: the broker lists a counter there only once it has
 * moved (a fresh broker's has no `get` or `redeliver`), so with statistics on, an absent one is 0,
 * as the plugin serves it, and sums and `== 0` checks written for the plugin hold. With statistics
 * off the broker reports none, and none is served.
 */
const MESSAGE_COUNTERS = table.rows.filter((row) => row.metric.type === 'counter' && row.path[0] === 'message_stats').map((row) => row.path[1]!);

/** The overview with its unreported message counters as 0 (see MESSAGE_COUNTERS). */
function withUnmovedCounters(overview: Record<string, unknown>): Record<string, unknown> {
  const reported = overview.message_stats;
  // Absent, or [] (how the API renders an empty list of them): nothing has moved yet.
  const empty = reported === undefined || (Array.isArray(reported) && reported.length === 0);
  // Anything else that is not an object is a bad answer, left for its rows to skip and count.
  if (!empty && (reported === null || typeof reported !== 'object' || Array.isArray(reported))) return overview;
  const filled: Record<string, unknown> = { ...(empty ? {} : (reported as Record<string, unknown>)) };
  for (const field of MESSAGE_COUNTERS) if (!(field in filled)) filled[field] = 0;
  return { ...overview, message_stats: filled };
}

const options = z.strictObject({
  /** Serve the API's `_details.rate` values as `_per_second` gauges. */
  rates: z.boolean().default(true),
});

interface Listener {
  node?: unknown;
  protocol?: unknown;
  ip_address?: unknown;
  port?: unknown;
}

export const overviewCollector: Collector<z.infer<typeof options>> = {
  name: 'overview',
  description: 'GET /api/overview: versions, cluster name, object and message totals, global message counters, churn, listeners. Also decides rabbitmq_up.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  describesBroker: true,
  lane: 'overview',
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    // The target reads /api/overview for this poll (see describesBroker); run on its own (tests), the collector reads it.
    // The broker is described as this answer does (after an upgrade, not as the previous one did).
    const { overview, info: broker } = ctx.brokerReport ?? brokerReport(await ctx.api.get('/api/overview'));
    const { sink } = ctx;
    sink.add(M.identity, [broker.clusterName], 1);
    sink.add(M.build, {
      rabbitmq_version: broker.rabbitmqVersion,
      erlang_version: broker.erlangVersion,
      management_version: broker.managementVersion,
      product_name: broker.productName,
      product_version: broker.productVersion,
    }, 1);
    if (broker.simulation) sink.add(M.simulated, [broker.simulation], 1);
    sink.add(M.statisticsEnabled, [], broker.statisticsDisabled ? 0 : 1);
    emitRecord(sink, table, broker.statisticsDisabled ? overview : withUnmovedCounters(overview), '', { rates: ctx.options.rates });
    const listeners = Array.isArray(overview.listeners) ? (overview.listeners as Listener[]) : [];
    for (const l of listeners) {
      sink.add(M.listener, { node: String(l.node ?? ''), protocol: String(l.protocol ?? ''), ip_address: String(l.ip_address ?? ''), port: String(l.port ?? '') }, 1);
    }
  },
};
