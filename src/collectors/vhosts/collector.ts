import { z } from 'zod';
import { vhostMetrics as M } from './metrics.js';
import { expectList } from '../../broker/expect-list.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { emitRecord, fieldTableOf } from '../kit/field-table.js';
import { uniqueRecordsInTurns } from '../kit/records.js';
import { eachInTurns } from '../kit/in-turns.js';
import { MonotonicCounters } from '../kit/monotonic-counters.js';
import { NameFilter, nameFilterSchema } from '../kit/name-filter.js';
import { rateSelection, ratesOptionSchema } from '../kit/rates-option.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const table = fieldTableOf(M);

const options = z.strictObject({
  /** `_details.rate` gauges (one series each per vhost): on by default, vhosts are few. */
  rates: ratesOptionSchema(true),
  vhosts: nameFilterSchema,
});

type Options = z.infer<typeof options>;

export const vhostsCollector: Collector<Options> = {
  name: 'vhosts',
  description: 'GET /api/vhosts: messages, message_stats, bytes, tracing and cluster_state per vhost.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    const vhosts = expectList<Record<string, unknown>>(await ctx.api.get('/api/vhosts'), '/api/vhosts');
    const filter = new NameFilter(ctx.options.vhosts);
    const counters = MonotonicCounters.in(ctx.carryOver);
    const rates = rateSelection(ctx.options.rates);
    await eachInTurns(await uniqueRecordsInTurns(vhosts, (v) => (typeof v?.name === 'string' ? v.name : undefined), ctx.sink), (vhost) => {
      const name = vhost.name as string;
      if (!filter.matches(name)) return;
      emitRecord(ctx.sink, table, vhost, renderLabels(['vhost'], [name]), { rates, counters });
      const tags = Array.isArray(vhost.tags) ? vhost.tags.join(',') : typeof vhost.tags === 'string' ? vhost.tags : '';
      const queueType = typeof vhost.default_queue_type === 'string' ? vhost.default_queue_type : '';
      ctx.sink.add(M.info, { vhost: name, default_queue_type: queueType, tags }, 1);
      const states = vhost.cluster_state;
      if (states !== null && typeof states === 'object') {
        for (const [node, state] of Object.entries(states)) ctx.sink.add(M.running, [name, node], state === 'running' ? 1 : 0);
      }
    });
    counters.commit();
  },
};
