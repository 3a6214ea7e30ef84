import { featureFlagMetrics as M } from './metrics.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { stringLabel } from '../kit/label-text.js';
import { type ApiRecord, listPart } from '../kit/records.js';
import { collectParts } from '../kit/optional-requests.js';

const byName = (record: ApiRecord) => stringLabel(record.name) || undefined;

export const featureFlagsCollector: Collector = {
  name: 'feature_flags',
  description:
    'GET /api/feature-flags (before 3.13 it needs the administrator tag: without it no series and one warning; from 3.13 any management user may read it) and, from 3.13, /api/deprecated-features/used.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 4,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink } = ctx;
    const flags = listPart(ctx, {
      name: 'feature-flags',
      path: '/api/feature-flags',
      query: { columns: 'name,state,stability' },
      optional: {
        refusedBecause: 'before RabbitMQ 3.13 it needs the administrator tag',
        absentMeans: 'the broker has no feature flags (before 3.8)',
      },
      identity: byName,
      each: (flag) => sink.add(M.enabled, [stringLabel(flag.name), stringLabel(flag.stability)], flag.state === 'enabled' ? 1 : 0),
    });
    const deprecated = listPart(ctx, {
      name: 'deprecated-features',
      path: '/api/deprecated-features/used',
      query: { columns: 'name,deprecation_phase' },
      optional: { absentMeans: 'the broker does not list deprecated features' },
      identity: byName,
      each: (feature) => sink.add(M.deprecatedInUse, [stringLabel(feature.name), stringLabel(feature.deprecation_phase)], 1),
    });
    await collectParts(ctx, featureFlagsCollector.name, ctx.broker.variant === 'B' ? [flags, deprecated] : [flags]);
  },
};
