import { limitsMetrics as M } from '../catalogue/limits.js';
import { metricsOf, type MetricDef } from '../metrics/metric-def.js';
import type { CollectContext, Collector } from './collector.js';
import { collectParts, jsonList, optionalBody, part } from './optional-requests.js';

/** One entry of /api/vhost-limits or /api/user-limits: `{"vhost": "/", "value": {"max-connections": 100}}`. */
type LimitEntry = Record<string, unknown>;

export const limitsCollector: Collector = {
  name: 'limits',
  description: 'GET /api/vhost-limits and /api/user-limits: the limits set on virtual hosts and users.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 4,
  metrics: metricsOf(M),
  async collect(ctx) {
    await collectParts(ctx, [
      part(
        'vhost-limits',
        async () => jsonList<LimitEntry>(await ctx.api.get('/api/vhost-limits'), '/api/vhost-limits'),
        (entries) => emitLimits(ctx, M.vhostLimit, 'vhost', entries),
      ),
      // User limits appeared in 3.8.10: older brokers answer 404.
      part(
        'user-limits',
        async () => {
          const body = await optionalBody(ctx, { path: '/api/user-limits', absentMeans: 'the broker has no user limits (before 3.8.10)' });
          return body === undefined ? body : jsonList<LimitEntry>(body, '/api/user-limits');
        },
        (entries) => emitLimits(ctx, M.userLimit, 'user', entries),
      ),
    ]);
  },
};

function emitLimits(ctx: CollectContext, def: MetricDef, owner: 'vhost' | 'user', entries: LimitEntry[] | undefined): void {
  if (entries === undefined) return;
  const seen = new Set<string>();
  for (const entry of entries) {
    const name = entry[owner];
    const value = entry.value;
    if (typeof name !== 'string' || seen.has(name)) {
      ctx.sink.drop(typeof name === 'string' ? 'duplicate' : 'no_name');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    seen.add(name);
    for (const [limit, raw] of Object.entries(value as Record<string, unknown>)) {
      // Negative is how RabbitMQ says "no limit": left out (see the family's HELP).
      if (typeof raw === 'number' && raw < 0) continue;
      ctx.sink.add(def, [name, limit], raw);
    }
  }
}
