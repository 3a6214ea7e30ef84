import { ManagementError } from '../../broker/errors.js';
import type { CollectContext, RequestLimits } from '../kit/collector.js';
import { failureReason } from '../kit/optional-part.js';
import type { PluginEndpoint } from './endpoints.js';
import { parsePluginText, PluginTextError, type PluginExposition } from './text-parser.js';

/** What one node's listener gave in a poll: its answers parsed, or why it failed. */
export type NodeScrape =
  | { readonly endpoint: PluginEndpoint; readonly node: string; readonly detailed?: PluginExposition; readonly global?: PluginExposition }
  | { readonly endpoint: PluginEndpoint; readonly node: string; readonly failure: { readonly reason: string; readonly detail: string } };

export interface ScrapePlan {
  /** Families asked of `/metrics/detailed` (none: that request is not made). */
  readonly families: readonly string[];
  /** Also read the node's global counters from `/metrics`. */
  readonly global: boolean;
  readonly cap: { bytes: number; name: string };
  /** The node's requests' own deadline, and the cut-off that ends them before the poll's. */
  readonly limits?: RequestLimits;
}

/**
 * Reads one node's rabbitmq_prometheus. A failure is this node's alone: it is reported, never
 * thrown, unless the poll itself was cancelled.
 */
export async function scrapeNode(ctx: Pick<CollectContext, 'api' | 'signal'>, endpoint: PluginEndpoint, plan: ScrapePlan): Promise<NodeScrape> {
  const getText = ctx.api.getText;
  if (!getText) throw new Error('this target reads only the management API: rabbitmq_prometheus cannot be read');
  try {
    const read = async (path: string) => {
      const parsed = await parsePluginText(await getText(`${endpoint.base}${path}`, plan.cap, plan.limits));
      // Every answer of the plugin carries rabbitmq_identity_info: an empty one is not a node that is up.
      if (parsed.samples.size === 0) throw new PluginTextError(1, `${path} answered no sample at all`);
      return parsed;
    };
    const query = plan.families.map((family) => `family=${encodeURIComponent(family)}`).join('&');
    const [detailed, global] = await Promise.all([
      plan.families.length > 0 ? read(`/metrics/detailed?${query}`) : undefined,
      plan.global ? read('/metrics') : undefined,
    ]);
    const node = identityNode(detailed) ?? identityNode(global) ?? endpoint.node;
    return { endpoint, node, detailed, global };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof ManagementError) return { endpoint, node: endpoint.node, failure: { reason: failureReason(error, plan.limits?.signal), detail: error.message } };
    if (error instanceof PluginTextError) return { endpoint, node: endpoint.node, failure: { reason: 'malformed_text', detail: `${endpoint.base}: ${error.message}` } };
    throw error;
  }
}

/** The node that answered, as rabbitmq_identity_info says (every answer of the plugin carries it). */
function identityNode(exposition: PluginExposition | undefined): string | undefined {
  return exposition?.samples.get('rabbitmq_identity_info')?.[0]?.labels.rabbitmq_node;
}
