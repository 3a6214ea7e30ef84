import { defineMetrics } from '../../model/metric-def.js';

export const featureFlagMetrics = defineMetrics('feature_flags', {
  enabled: {
    name: 'rabbitmq_feature_flag_enabled',
    type: 'gauge',
    labels: ['name', 'stability'],
    help: '1 when the feature flag is enabled, 0 when it is disabled, being enabled (state_changing) or unavailable, from /api/feature-flags (before 3.13 only an administrator may read it).',
  },
  deprecatedInUse: {
    name: 'rabbitmq_deprecated_feature_in_use',
    type: 'gauge',
    labels: ['name', 'phase'],
    help: 'A deprecated feature that is in use (/api/deprecated-features/used, RabbitMQ 3.13+); phase is its deprecation phase (permitted_by_default, denied_by_default, disconnected, removed); value 1.',
  },
});
