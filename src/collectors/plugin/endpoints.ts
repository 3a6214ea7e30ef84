import type { CollectContext } from '../kit/collector.js';
import { columnsParam } from '../../broker/api-path.js';

/** One node's rabbitmq_prometheus listener. */
export interface PluginEndpoint {
  /** The node's name from /api/nodes, or host:port of a configured URL (until its answer names the node). */
  readonly node: string;
  /** Scheme, host, port and any path prefix, without a trailing slash. */
  readonly base: string;
}

export interface EndpointSettings {
  readonly urls: readonly string[];
  readonly port: number;
  readonly scheme: 'http' | 'https';
}

/**
 * The listeners to scrape: the configured URLs (brokers behind a load balancer, hosted ones), else
 * one per running node of /api/nodes, at the host of its name (`rabbit@host`) and the plugin's port.
 */
export async function pluginEndpoints(ctx: Pick<CollectContext, 'api'>, settings: EndpointSettings): Promise<PluginEndpoint[]> {
  if (settings.urls.length > 0) {
    return settings.urls.map((url) => {
      const parsed = new URL(url);
      return { node: parsed.host, base: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}` };
    });
  }
  const nodes = await ctx.api.get<{ name?: unknown; running?: unknown }[]>('/api/nodes', { columns: columnsParam(['name', 'running']) });
  const endpoints: PluginEndpoint[] = [];
  for (const node of nodes) {
    if (typeof node.name !== 'string' || node.running === false) continue;
    const host = node.name.slice(node.name.indexOf('@') + 1);
    if (!host) continue;
    endpoints.push({ node: node.name, base: `${settings.scheme}://${hostForUrl(host)}:${settings.port}` });
  }
  return endpoints;
}

/** An IPv6 literal goes in brackets in a URL. */
function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
