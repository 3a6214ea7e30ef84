import { z } from 'zod';
import { exchangeMetrics as M } from './metrics.js';
import { expectList } from '../../broker/expect-list.js';
import { columnsParam } from '../../broker/api-path.js';
import { metricsOf } from '../../model/metric-def.js';
import type { BrokerApi, Collector } from '../kit/collector.js';
import { emitRecord, fieldsRead, fieldTableOf } from '../kit/field-table.js';
import { HeldPart, type HeldPartWriter } from '../kit/held-part.js';
import { printedLabel } from '../kit/label-text.js';
import { fetchWholeOrPaged } from '../kit/paging.js';
import { MonotonicCounters } from '../kit/monotonic-counters.js';
import { NameFilter, nameFilterSchema } from '../kit/name-filter.js';
import { rateSelection, ratesOptionSchema } from '../kit/rates-option.js';
import { Tally } from '../kit/tally.js';
import { eachInTurns } from '../kit/in-turns.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const table = fieldTableOf(M);

const options = z.strictObject({
  /** `_details.rate` gauges: false, true, or a list of fields such as ["message_stats.publish_in"]. */
  rates: ratesOptionSchema(false),
  vhosts: nameFilterSchema,
  exchanges: nameFilterSchema,
  /** Count bindings per vhost (one more request, /api/bindings with two columns). */
  bindings: z.boolean().default(true),
  /** Fetch /api/bindings every this many polls (its cost grows with the bindings); the counts are held between. */
  bindings_every: z.number().int().min(1).default(4),
  /** Serve rabbitmq_exchange_info. */
  info: z.boolean().default(true),
  /** 0: whole lists; else page size (at most 500). */
  page_size: z.number().int().min(0).max(500).default(0),
});

type Options = z.infer<typeof options>;
type ExchangeRecord = Record<string, unknown>;

export const exchangesCollector: Collector<Options> = {
  name: 'exchanges',
  description: 'GET /api/exchanges (columns: name, vhost, type, flags, message_stats), and every bindings_every polls /api/bindings (columns: vhost, destination_type) for counts per vhost.',
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
    const byType = new Tally();
    let filtered = 0;
    await eachInTurns(exchanges, (exchange) => {
      if (typeof exchange.vhost !== 'string' || typeof exchange.name !== 'string') {
        sink.drop('no_name');
        return;
      }
      if (!vhostFilter.matches(exchange.vhost)) return;
      byType.add([exchange.vhost, printedLabel(exchange.type)]);
      if (!exchangeFilter.matches(exchange.name)) {
        filtered++;
        return;
      }
      const labels = renderLabels(['vhost', 'exchange'], [exchange.vhost, exchange.name]);
      emitRecord(sink, table, exchange, labels, { rates: rateFields, counters });
      if (o.info) {
        const { vhost, name: exchangeName, type, durable, auto_delete, internal } = exchange;
        sink.add(M.info, { vhost, exchange: exchangeName, type: printedLabel(type), durable: printedLabel(durable), auto_delete: printedLabel(auto_delete), internal: printedLabel(internal) }, 1);
      }
    });
    counters.commit();
    for (const group of byType) sink.add(M.vhostExchanges, group.labels, group.count);
    sink.add(M.seriesFiltered, [], filtered);
    if (o.bindings) {
      const held = HeldPart.in(ctx.carryOver, 'bindings');
      if (held.due(o.bindings_every)) await countBindings(ctx.api, held.recorder(sink), vhostFilter);
      else held.replay(sink);
      const now = performance.now();
      held.commit(now);
      const age = held.ageSeconds(now);
      if (age !== undefined) sink.add(M.bindingsAge, [], age);
    }
  },
};

/** rabbitmq_vhost_bindings from /api/bindings (two columns). */
async function countBindings(api: BrokerApi, writer: HeldPartWriter, vhostFilter: NameFilter): Promise<void> {
  const bindings = expectList<{ vhost?: unknown; destination_type?: unknown } | null>(await api.get('/api/bindings', { columns: 'vhost,destination_type' }), '/api/bindings');
  const byDestination = new Tally();
  await eachInTurns(bindings, (b) => {
    if (typeof b?.vhost !== 'string' || !vhostFilter.matches(b.vhost)) return;
    byDestination.add([b.vhost, printedLabel(b.destination_type)]);
  });
  for (const group of byDestination) writer.add(M.vhostBindings, group.labels, group.count);
}
