import { ManagementClient } from '../broker/management-client.js';
import type { Redactor } from '../broker/redactor.js';
import type { BrokerConnectionConfig } from '../config/exporter-config.js';

/** The management client of a target's connection settings (one per target on each thread that polls it). */
export function targetClient(t: BrokerConnectionConfig, redactor: Redactor): ManagementClient {
  return new ManagementClient({
    url: t.url,
    username: t.username,
    password: t.password,
    tls: t.tls,
    timeouts: t.timeouts,
    maxResponseBytes: t.maxResponseBytes,
    maxConcurrentRequests: t.maxConcurrentRequests,
    redactor,
  });
}
