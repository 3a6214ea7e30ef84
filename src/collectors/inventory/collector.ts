import { inventoryMetrics as M } from './metrics.js';
import { metricsOf, type MetricDef } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { stringLabel } from '../kit/label-text.js';
import { listPart } from '../kit/records.js';
import { collectParts } from '../kit/optional-requests.js';

interface CountSpec {
  path: string;
  /** Fields that identify an item (to drop duplicates); the first `labels.length` of them are the labels. */
  identity: string[];
  metric: MetricDef;
  /** The tag a 401 means the user lacks (no series, one warning); undefined: a 401 is a failure. */
  needsTag: string | undefined;
}

const COUNTS: CountSpec[] = [
  { path: '/api/users', identity: ['name'], metric: M.users, needsTag: 'administrator' },
  { path: '/api/users/without-permissions', identity: ['name'], metric: M.usersWithoutPermissions, needsTag: 'administrator' },
  { path: '/api/policies', identity: ['vhost', 'name'], metric: M.policies, needsTag: undefined },
  { path: '/api/operator-policies', identity: ['vhost', 'name'], metric: M.operatorPolicies, needsTag: undefined },
  { path: '/api/parameters', identity: ['vhost', 'component', 'name'], metric: M.parameters, needsTag: 'administrator or policymaker' },
  { path: '/api/global-parameters', identity: ['name'], metric: M.globalParameters, needsTag: 'administrator or policymaker' },
];

export const inventoryCollector: Collector = {
  name: 'inventory',
  description:
    'Counts of definitions: GET /api/users, /api/users/without-permissions, /api/policies, /api/operator-policies, /api/parameters, ' +
    '/api/global-parameters, each with columns= of names only. Users and parameters need the administrator (or policymaker) tag.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 4,
  metrics: metricsOf(M),
  async collect(ctx) {
    await collectParts(ctx, inventoryCollector.name,
      COUNTS.map((spec) =>
        listPart(ctx, {
          path: spec.path,
          // Only the identity is requested: values (parameters may hold URIs with passwords) never leave the broker.
          query: { columns: spec.identity.join(',') },
          optional: {
            ...(spec.needsTag ? { refusedBecause: `it needs the ${spec.needsTag} tag` } : {}),
            absentMeans: `the broker has no ${spec.path}`,
          },
          identity: (item) => JSON.stringify(spec.identity.map((field) => stringLabel(item[field]))),
          // A total is served even when it is 0; per-vhost counts exist only for vhosts that have some.
          aggregations: [{ group: (item) => spec.identity.slice(0, spec.metric.labels.length).map((field) => stringLabel(item[field])), families: [{ metric: spec.metric }] }],
        }),
      ),
    );
  },
};
