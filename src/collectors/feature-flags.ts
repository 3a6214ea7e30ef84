import { featureFlagMetrics as M } from '../catalogue/feature-flags.js';
import { metricsOf } from '../metrics/metric-def.js';
import type { Collector } from './collector.js';
import { stringLabel } from './label-text.js';
import { collectParts, jsonList, optionalBody, part } from './optional-requests.js';

type Flag = Record<string, unknown>;

export const featureFlagsCollector: Collector = {
  name: 'feature_flags',
  description:
    'GET /api/feature-flags (before 3.13 it needs the administrator tag: without it no series and one warning; from 3.13 any management user may read it) and, from 3.13, /api/deprecated-features/used.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 4,
  metrics: metricsOf(M),
  async collect(ctx) {
    const parts = [
      part(
        'feature-flags',
        async () => {
          const body = await optionalBody(ctx, {
            path: '/api/feature-flags',
            query: { columns: 'name,state,stability' },
            refusedBecause: 'before RabbitMQ 3.13 it needs the administrator tag',
            absentMeans: 'the broker has no feature flags (before 3.8)',
          });
          return body === undefined ? body : jsonList<Flag>(body, '/api/feature-flags');
        },
        (flags) => {
          const seen = new Set<string>();
          for (const flag of flags ?? []) {
            const name = stringLabel(flag.name);
            if (!name || seen.has(name)) {
              ctx.sink.drop(name ? 'duplicate' : 'no_name');
              continue;
            }
            seen.add(name);
            ctx.sink.add(M.enabled, [name, stringLabel(flag.stability)], flag.state === 'enabled' ? 1 : 0);
          }
        },
      ),
    ];
    if (ctx.broker.variant === 'B') {
      parts.push(
        part(
          'deprecated-features',
          async () => {
            const body = await optionalBody(ctx, {
              path: '/api/deprecated-features/used',
              query: { columns: 'name,deprecation_phase' },
              absentMeans: 'the broker does not list deprecated features',
            });
            return body === undefined ? body : jsonList<Flag>(body, '/api/deprecated-features/used');
          },
          (features) => {
            const seen = new Set<string>();
            for (const feature of features ?? []) {
              const name = stringLabel(feature.name);
              if (!name || seen.has(name)) {
                ctx.sink.drop(name ? 'duplicate' : 'no_name');
                continue;
              }
              seen.add(name);
              ctx.sink.add(M.deprecatedInUse, [name, stringLabel(feature.deprecation_phase)], 1);
            }
          },
        ),
      );
    }
    await collectParts(ctx, parts);
  },
};
