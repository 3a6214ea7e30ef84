import { defineMetrics } from '../../model/metric-def.js';

const NO_LIMIT =
  'Value as configured; 0 means none allowed. A negative value, RabbitMQ\'s encoding of "no limit" (usually -1), is left out, ' +
  'so every series is a limit in force and `used / limit` needs no filtering; no series means no limit.';

export const limitsMetrics = defineMetrics('limits', {
  vhostLimit: {
    name: 'rabbitmq_vhost_limit',
    type: 'gauge',
    labels: ['vhost', 'limit'],
    help: `A limit set on a virtual host (/api/vhost-limits): limit is max-connections, max-queues, or whatever else the broker reports. ${NO_LIMIT}`,
  },
  userLimit: {
    name: 'rabbitmq_user_limit',
    type: 'gauge',
    labels: ['user', 'limit'],
    help: `A limit set on a user (/api/user-limits): limit is max-connections, max-channels, or whatever else the broker reports. ${NO_LIMIT}`,
  },
});
