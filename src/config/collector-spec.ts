import type { z } from 'zod';
import type { Lane } from '../broker/management-client.js';

/**
 * What configuration needs to know of a collector. The collectors themselves (src/collectors)
 * are handed in by whoever loads the configuration (src/exporter.ts): config sits below them.
 */
export interface CollectorSpec {
  readonly name: string;
  readonly defaultEnabled: boolean;
  /** Default interval as a multiple of poll.interval. */
  readonly defaultIntervalMultiplier: number;
  readonly lane?: Lane;
  /** Its own keys under `collectors.<name>`. */
  // biome-ignore lint/suspicious/noExplicitAny: each collector's options type differs
  readonly optionsSchema?: z.ZodType<any>;
  /** Its polls read what the broker says about itself, which decides rabbitmq_up: it cannot be disabled. */
  readonly describesBroker?: boolean;
}
