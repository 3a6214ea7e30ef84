import type { Exposition, Format } from '../exposition/exposition.js';
import type { TargetStatus, Verdict } from '../pipeline/target-status.js';

/**
 * A polled broker as the HTTP side sees it: finished expositions and a status copy, never the
 * live poll state (src/target.ts provides it).
 */
export interface ServedTarget {
  readonly name: string;
  /** /-/ready: the first poll of the broker's self-description has finished, whatever its outcome. */
  readonly ready: boolean;
  /** The latest finished exposition; `gzipFormat`: the format its gzip is wanted in. */
  exposition(gzipFormat?: Format): Promise<Exposition>;
  /** The cluster's nodes its latest polls list: each is served as a target of its own (node-share.ts). */
  nodes(): readonly string[];
  /** What of the latest finished exposition no node target serves (the target's share beside its node targets). */
  restExposition(gzipFormat?: Format): Promise<Exposition>;
  /** A node's share of the latest finished exposition; undefined when the target does not list the node. */
  nodeExposition(node: string, gzipFormat?: Format): Promise<Exposition | undefined>;
  /** For the landing page: asked of every target, so cheap (no copy). */
  verdict(): Verdict;
  /** For the landing page: a full copy, asked only of the targets it shows. */
  status(): TargetStatus;
}
