import { inventoryMetrics as M } from '../catalogue/inventory.js';
import { metricsOf, type MetricDef } from '../metrics/metric-def.js';
import type { CollectContext, Collector } from './collector.js';
import { stringLabel } from './label-text.js';
import { collectParts, jsonList, optionalBody, part, type Part } from './optional-requests.js';

type Item = Record<string, unknown>;

interface CountSpec {
  path: string;
  /** Only identity columns are requested: values (parameters may hold URIs with passwords) never leave the broker. */
  columns: string;
  /** Fields that identify an item (to drop duplicates); the first `labels.length` of them are the labels. */
  identity: string[];
  metric: MetricDef;
  /** The tag a 401 means the user lacks (no series, one warning); undefined: a 401 is a failure. */
  needsTag: string | undefined;
}

const COUNTS: CountSpec[] = [
  { path: '/api/users', columns: 'name', identity: ['name'], metric: M.users, needsTag: 'administrator' },
  { path: '/api/users/without-permissions', columns: 'name', identity: ['name'], metric: M.usersWithoutPermissions, needsTag: 'administrator' },
  { path: '/api/policies', columns: 'vhost,name', identity: ['vhost', 'name'], metric: M.policies, needsTag: undefined },
  { path: '/api/operator-policies', columns: 'vhost,name', identity: ['vhost', 'name'], metric: M.operatorPolicies, needsTag: undefined },
  { path: '/api/parameters', columns: 'vhost,component,name', identity: ['vhost', 'component', 'name'], metric: M.parameters, needsTag: 'administrator or policymaker' },
  { path: '/api/global-parameters', columns: 'name', identity: ['name'], metric: M.globalParameters, needsTag: 'administrator or policymaker' },
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
    await collectParts(ctx, COUNTS.map((spec) => countPart(ctx, spec)));
  },
};

function countPart(ctx: CollectContext, spec: CountSpec): Part {
  return part(
    spec.path,
    async () => {
      const body = await optionalBody(ctx, {
        path: spec.path,
        query: { columns: spec.columns },
        ...(spec.needsTag ? { refusedBecause: `it needs the ${spec.needsTag} tag` } : {}),
        absentMeans: `the broker has no ${spec.path}`,
      });
      return body === undefined ? body : jsonList<Item>(body, spec.path);
    },
    (items) => {
      if (items === undefined) return;
      const seen = new Set<string>();
      const counts = new Map<string, { labels: string[]; count: number }>();
      for (const item of items) {
        const identity = spec.identity.map((f) => stringLabel(item[f]));
        const key = JSON.stringify(identity);
        if (seen.has(key)) {
          ctx.sink.drop('duplicate');
          continue;
        }
        seen.add(key);
        const labels = identity.slice(0, spec.metric.labels.length);
        const groupKey = JSON.stringify(labels);
        const group = counts.get(groupKey) ?? { labels, count: 0 };
        group.count++;
        counts.set(groupKey, group);
      }
      // A total is served even when it is 0; per-vhost counts exist only for vhosts that have some.
      if (spec.metric.labels.length === 0 && counts.size === 0) ctx.sink.add(spec.metric, [], 0);
      for (const group of counts.values()) ctx.sink.add(spec.metric, group.labels, group.count);
    },
  );
}
