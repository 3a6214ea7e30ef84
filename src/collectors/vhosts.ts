import { z } from 'zod';
import { vhostMetrics as M } from '../catalogue/vhosts.js';
import { renderLabels } from '../render/exposition.js';
import type { Collector } from './collector.js';
import { emitRecord, fieldTable } from './field-table.js';
import { MonotonicCounters } from './monotonic-counters.js';
import { NameFilter, nameFilterSchema } from './name-filter.js';

const table = fieldTable([
  { field: 'tracing', metric: M.tracing },
  { field: 'messages', metric: M.messages },
  { field: 'messages_ready', metric: M.messagesReady },
  { field: 'messages_unacknowledged', metric: M.messagesUnacked },
  { field: 'recv_oct', metric: M.received },
  { field: 'send_oct', metric: M.sent },
  { field: 'message_stats.publish', metric: M.published },
  { field: 'message_stats.confirm', metric: M.confirmed },
  { field: 'message_stats.deliver_get', metric: M.delivered },
  { field: 'message_stats.deliver', metric: M.deliveredAck },
  { field: 'message_stats.deliver_no_ack', metric: M.deliveredNoAck },
  { field: 'message_stats.get', metric: M.getAck },
  { field: 'message_stats.get_no_ack', metric: M.getNoAck },
  { field: 'message_stats.get_empty', metric: M.getEmpty },
  { field: 'message_stats.ack', metric: M.acked },
  { field: 'message_stats.redeliver', metric: M.redelivered },
  { field: 'message_stats.return_unroutable', metric: M.returnedUnroutable },
  { field: 'message_stats.drop_unroutable', metric: M.droppedUnroutable },
]);

const options = z.strictObject({
  /** `_details.rate` gauges (one series each per vhost): on by default, vhosts are few. */
  rates: z.union([z.boolean(), z.array(z.string())]).default(true),
  vhosts: nameFilterSchema,
});

type Options = z.infer<typeof options>;

export const vhostsCollector: Collector<Options> = {
  name: 'vhosts',
  description: 'GET /api/vhosts: messages, message_stats, bytes, tracing and cluster_state per vhost.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 1,
  optionsSchema: options,
  metrics: [M.info, M.running, ...table.metrics],
  async collect(ctx) {
    const vhosts = await ctx.api.get<Record<string, unknown>[]>('/api/vhosts');
    if (!Array.isArray(vhosts)) throw new Error('/api/vhosts did not answer a JSON list');
    const filter = new NameFilter(ctx.options.vhosts);
    const counters = MonotonicCounters.in(ctx.memory);
    const rates = typeof ctx.options.rates === 'boolean' ? ctx.options.rates : new Set(ctx.options.rates);
    const seen = new Set<string>();
    for (const vhost of vhosts) {
      const name = vhost?.name;
      if (typeof name !== 'string' || seen.has(name)) {
        ctx.sink.drop(typeof name === 'string' ? 'duplicate' : 'no_name');
        continue;
      }
      seen.add(name);
      if (!filter.matches(name)) continue;
      emitRecord(ctx.sink, table, vhost, renderLabels(['vhost'], [name]), { rates, counters });
      const tags = Array.isArray(vhost.tags) ? vhost.tags.join(',') : typeof vhost.tags === 'string' ? vhost.tags : '';
      const queueType = typeof vhost.default_queue_type === 'string' ? vhost.default_queue_type : '';
      ctx.sink.add(M.info, [name, queueType, tags], 1);
      const states = vhost.cluster_state;
      if (states !== null && typeof states === 'object') {
        for (const [node, state] of Object.entries(states)) ctx.sink.add(M.running, [name, node], state === 'running' ? 1 : 0);
      }
    }
    counters.commit();
  },
};
