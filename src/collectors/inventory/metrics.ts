import { defineMetrics } from '../../model/metric-def.js';

const g = 'gauge' as const;
const ADMIN = 'Needs the administrator tag: without it the family is absent.';
const PER_VHOST = 'Virtual hosts without any have no series. Only an administrator sees every vhost\'s; other users (monitoring ones too) see those of the vhosts they have permissions on.';

/** Counts of definitions; names and values (parameters can hold URIs with passwords) never become labels. */
export const inventoryMetrics = defineMetrics('inventory', {
  users: { name: 'rabbitmq_users', type: g, help: `Users in the internal database (/api/users). ${ADMIN}` },
  usersWithoutPermissions: {
    name: 'rabbitmq_users_without_permissions',
    type: g,
    help: `Users that have no permissions on any virtual host (/api/users/without-permissions). ${ADMIN}`,
  },
  policies: { name: 'rabbitmq_policies', type: g, labels: ['vhost'], help: `Policies per virtual host (/api/policies). ${PER_VHOST}` },
  operatorPolicies: {
    name: 'rabbitmq_operator_policies',
    type: g,
    labels: ['vhost'],
    help: `Operator policies per virtual host (/api/operator-policies). ${PER_VHOST}`,
  },
  parameters: {
    name: 'rabbitmq_runtime_parameters',
    type: g,
    labels: ['vhost', 'component'],
    help: `Vhost-scoped runtime parameters per vhost and component (shovel, federation-upstream, ...; /api/parameters). Needs the administrator or policymaker tag.`,
  },
  globalParameters: {
    name: 'rabbitmq_global_runtime_parameters',
    type: g,
    help: 'Global runtime parameters (/api/global-parameters: cluster_name, internal_cluster_id, ...). Needs the administrator or policymaker tag.',
  },
});
