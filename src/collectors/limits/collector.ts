import { limitsMetrics as M } from './metrics.js';
import { metricsOf, type MetricDef } from '../../model/metric-def.js';
import type { CollectContext, Collector } from '../kit/collector.js';
import { type ApiRecord, type ListRequest, listPart } from '../kit/records.js';
import { collectParts } from '../kit/optional-requests.js';

export const limitsCollector: Collector = {
  name: 'limits',
  description: 'GET /api/vhost-limits and /api/user-limits: the limits set on virtual hosts and users.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 4,
  metrics: metricsOf(M),
  async collect(ctx) {
    await collectParts(ctx, limitsCollector.name, [
      listPart(ctx, { name: 'vhost-limits', path: '/api/vhost-limits', ...limitsOf(ctx, 'vhost', M.vhostLimit) }),
      // User limits appeared in 3.8.10: older brokers answer 404.
      listPart(ctx, {
        name: 'user-limits',
        path: '/api/user-limits',
        optional: { absentMeans: 'the broker has no user limits (before 3.8.10)' },
        ...limitsOf(ctx, 'user', M.userLimit),
      }),
    ]);
  },
};

/** Entries such as `{"vhost": "/", "value": {"max-connections": 100}}`: one sample per limit. */
function limitsOf(ctx: CollectContext, owner: 'vhost' | 'user', def: MetricDef): Pick<ListRequest, 'identity' | 'each'> {
  return {
    identity: (entry: ApiRecord) => (typeof entry[owner] === 'string' ? entry[owner] : undefined),
    each: (entry) => {
      const value = entry.value;
      if (value === null || typeof value !== 'object') return;
      for (const [limit, raw] of Object.entries(value as Record<string, unknown>)) {
        // Negative is how RabbitMQ says "no limit": left out (see the family's HELP).
        if (typeof raw === 'number' && raw < 0) continue;
        ctx.sink.add(def, [entry[owner] as string, limit], raw);
      }
    },
  };
}
