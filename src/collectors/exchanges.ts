import { z } from 'zod';
import { exchangeMetrics as M } from '../catalogue/exchanges.js';
import { expectList } from '../client/expect-list.js';
import { columnsParam } from '../client/management-client.js';
import { metricsOf } from '../metrics/metric-def.js';
import { renderLabels } from '../render/text-format.js';
import type { Collector } from './collector.js';
import { emitRecord, fieldsRead, fieldTableOf } from './field-table.js';
import { printedLabel } from './label-text.js';
import { aggregate } from './records.js';
import { fetchWholeOrPaged } from './paging.js';
import { MonotonicCounters } from './monotonic-counters.js';
import { NameFilter, nameFilterSchema } from './name-filter.js';
import { rateSelection, ratesOptionSchema } from './rates-option.js';

const table = fieldTableOf(M);

const options = z.strictObject({
  /** `_details.rate` gauges: false, true, or a list of fields such as ["message_stats.publish_in"]. */
  rates: ratesOptionSchema(false),
  vhosts: nameFilterSchema,
  exchanges: nameFilterSchema,
  /** Count bindings per vhost (one more request, /api/bindings with two columns). */
  bindings: z.boolean().default(true),
  /** Serve rabbitmq_exchange_info. */
  info: z.boolean().default(true),
  /** 0: whole lists; else page size (at most 500). */
  page_size: z.number().int().min(0).max(500).default(0),
});

type Options = z.infer<typeof options>;
type ExchangeRecord = Record<string, unknown>;

export const exchangesCollector: Collector<Options> = {
  name: 'exchanges',
  description: 'GET /api/exchanges (columns: name, vhost, type, flags, message_stats) and /api/bindings (columns: vhost, destination_type) for counts per vhost.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink, options: o } = ctx;
    const rateFields = rateSelection(o.rates);
    const statistics = ctx.broker.statisticsDisabled ? [] : fieldsRead(table, rateFields);
    const columns = columnsParam(['name', 'vhost', 'type', 'durable', 'auto_delete', 'internal', ...statistics]);
    const exchanges = await fetchWholeOrPaged<ExchangeRecord>(ctx.api, '/api/exchanges', { columns }, {
      pageSize: o.page_size,
      key: (e) => (typeof e.vhost === 'string' && typeof e.name === 'string' ? `${e.vhost}\u0000${e.name}` : undefined),
      drops: sink,
    });
    const vhostFilter = new NameFilter(o.vhosts);
    const exchangeFilter = new NameFilter(o.exchanges);
    const counters = MonotonicCounters.in(ctx.carryOver);
    const inVhosts: ExchangeRecord[] = [];
    let filtered = 0;
    for (const exchange of exchanges) {
      if (typeof exchange.vhost !== 'string' || typeof exchange.name !== 'string') {
        sink.drop('no_name');
        continue;
      }
      if (!vhostFilter.matches(exchange.vhost)) continue;
      inVhosts.push(exchange);
      if (!exchangeFilter.matches(exchange.name)) {
        filtered++;
        continue;
      }
      const labels = renderLabels(['vhost', 'exchange'], [exchange.vhost, exchange.name]);
      emitRecord(sink, table, exchange, labels, { rates: rateFields, counters });
      if (o.info) {
        const { vhost, name: exchangeName, type, durable, auto_delete, internal } = exchange;
        sink.add(M.info, { vhost, exchange: exchangeName, type: printedLabel(type), durable: printedLabel(durable), auto_delete: printedLabel(auto_delete), internal: printedLabel(internal) }, 1);
      }
    }
    counters.commit();
    aggregate(sink, inVhosts, [{ group: (e) => [e.vhost as string, printedLabel(e.type)], families: [{ metric: M.vhostExchanges }] }]);
    sink.add(M.seriesFiltered, [], filtered);
    if (o.bindings) {
      const bindings = expectList<{ vhost?: unknown; destination_type?: unknown } | null>(
        await ctx.api.get('/api/bindings', { columns: 'vhost,destination_type' }),
        '/api/bindings',
      );
      const inFilter = bindings.filter((b): b is ExchangeRecord => typeof b?.vhost === 'string' && vhostFilter.matches(b.vhost));
      aggregate(sink, inFilter, [{ group: (b) => [b.vhost as string, printedLabel(b.destination_type)], families: [{ metric: M.vhostBindings }] }]);
    }
  },
};
