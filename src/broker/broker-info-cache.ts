import type { ManagementClient } from '../client/management-client.js';
import { brokerInfoFromOverview, type BrokerInfo } from './broker-info.js';

/**
 * The latest BrokerInfo of a target. The overview collector refreshes it on every poll; a
 * collector that runs before the first overview poll fetches /api/overview once (shared).
 */
export class BrokerInfoCache {
  private info: BrokerInfo | undefined;
  private pending: Promise<BrokerInfo> | undefined;

  constructor(private readonly client: ManagementClient) {}

  get current(): BrokerInfo | undefined {
    return this.info;
  }

  update(overview: Record<string, unknown>): BrokerInfo {
    this.info = brokerInfoFromOverview(overview);
    return this.info;
  }

  async get(signal: AbortSignal): Promise<BrokerInfo> {
    if (this.info) return this.info;
    if (!this.pending) {
      this.pending = this.client
        .getJson<Record<string, unknown>>('/api/overview', undefined, { signal, lane: 'overview' })
        .then((overview) => this.update(overview))
        .finally(() => {
          this.pending = undefined;
        });
    }
    return this.pending;
  }
}
