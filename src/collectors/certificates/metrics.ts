import { defineMetrics } from '../../model/metric-def.js';

/** Issue 26, signal 6: when the TLS listeners' certificates expire. */
export const certificateMetrics = defineMetrics('certificates', {
  expiry: {
    name: 'rabbitmq_certificate_expiry_timestamp_seconds',
    type: 'gauge',
    labels: ['node', 'protocol', 'interface', 'port', 'file'],
    help:
      'When the first certificate of a TLS listener\'s file expires (Unix time; the earliest notAfter of the PEM file), file certfile (the listener\'s own certificate and chain) or cacertfile (its CA bundle). ' +
      'Read from GET /api/health/checks/certificate-expiration/{within}/years with a window longer than any certificate lives, so the broker lists every listener with a certificate (its 503 answer); ' +
      'node-local: only the listeners of the node that answered (scrape each node for all). A file the broker could not read or that holds no certificate has no series (the exporter logs it). ' +
      'Independent of management statistics.',
  },
  listeners: {
    name: 'rabbitmq_certificate_listeners',
    type: 'gauge',
    labels: ['node'],
    help: 'TLS listeners with a certificate file on the node that answered the certificate-expiration check (the listeners rabbitmq_certificate_expiry_timestamp_seconds describes); 0 when it has none.',
  },
});
