import { z } from 'zod';
import { brokerReport } from '../../broker/broker-info-reader.js';
import { overviewMetrics as M } from './metrics.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { emitRecord, fieldTableOf } from '../kit/field-table.js';

const table = fieldTableOf(M);

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
    emitRecord(sink, table, overview, '', { rates: ctx.options.rates });
    const listeners = Array.isArray(overview.listeners) ? (overview.listeners as Listener[]) : [];
    for (const l of listeners) {
      sink.add(M.listener, { node: String(l.node ?? ''), protocol: String(l.protocol ?? ''), ip_address: String(l.ip_address ?? ''), port: String(l.port ?? '') }, 1);
    }
  },
};
