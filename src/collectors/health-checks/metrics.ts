import { defineMetrics } from '../../model/metric-def.js';

/**
 * The management API's health checks (GET /api/health/checks/*, /api/aliveness-test/{vhost}).
 * One family: the check's name is a label, and only the checks that take a parameter carry
 * one more label (port, protocol or vhost), so the declared label list is the union.
 */
export const healthMetrics = defineMetrics('health_checks', {
  checkUp: {
    name: 'rabbitmq_health_check_up',
    type: 'gauge',
    labels: ['check', 'port', 'protocol', 'vhost'],
    // kbudde's aliveness module: the aliveness test's series alone, its answer's status as a label
    // (error and reason stay empty: a failure's reason goes to the log, never to a label).
    names: {
      kbudde: {
        labels: ['status', 'error', 'reason'],
        familyPerValue: { label: 'check', names: { 'aliveness-test': 'rabbitmq_aliveness_info' } },
        fields: { status: 'status', error: 'error', reason: 'reason' },
      },
    },
    help:
      '1 when the health check answered 200 (passed), 0 when it answered 503 (failed; the reason is in the exporter\'s log, never in a label). ' +
      '`check` is the path under /api/health/checks/ without its parameters (aliveness-test: /api/aliveness-test/{vhost}); ' +
      'only port-listener has `port`, protocol-listener `protocol`, aliveness-test `vhost`. A check the broker does not have (404) has no series; ' +
      'one that could not be asked (timeout, 500) is left out of that poll. Node-local checks (local-alarms, listeners, certificate-expiration, ' +
      'node-is-quorum-critical, ...) describe the node that answered the request. `alarms` sees a resource alarm at once, ' +
      'while rabbitmq_alarms_* from /api/nodes lag by seconds.',
  },
});
