import { z } from 'zod';
import { DEFAULT_LIST_CAP_BYTES } from '../client/answer-caps.js';
import { COLLECTORS } from '../collectors/registry.js';
import { parseDuration } from './duration.js';

/** A duration in the file (`15s`); milliseconds once parsed. */
export const duration = z.string().transform((text, ctx) => {
  try {
    return parseDuration(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** Node's timers hold at most 2^31-1 ms; a longer delay would fire at once (after 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const MAX_DURATION_TEXT = '596h (about 24.8 days)';
/** The shortest poll interval: a collector never polls more often than once a second. */
export const MIN_INTERVAL_MS = 1000;

const positiveDuration = duration
  .refine((ms) => ms > 0, 'must be longer than 0')
  .refine((ms) => ms <= MAX_TIMER_MS, `must be at most ${MAX_DURATION_TEXT}`);

const intervalDuration = positiveDuration.refine((ms) => ms >= MIN_INTERVAL_MS, 'must be at least 1s');

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`"${text}" is not HOST:PORT or :PORT`);
  return { host: match[1] ?? match[2] ?? '', port };
}

const listenAddress = z.string().refine((text) => {
  try {
    parseListenAddress(text);
    return true;
  } catch {
    return false;
  }
}, 'must be HOST:PORT or :PORT, e.g. :9419');

export const brokerUrl = z.string().refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL, e.g. http://localhost:15672');

const tlsSchema = z.strictObject({
  ca_file: z.string().optional(),
  cert_file: z.string().optional(),
  key_file: z.string().optional(),
  /** Skip verification of the broker's certificate. Only for testing. */
  insecure_skip_verify: z.boolean().default(false),
});

const targetSchema = z.strictObject({
  url: brokerUrl.default('http://localhost:15672'),
  username: z.string().default('guest'),
  password: z.string().optional(),
  password_file: z.string().optional(),
  tls: tlsSchema.prefault({}),
  timeouts: z
    .strictObject({
      connect: positiveDuration.default(5000),
      headers: positiveDuration.default(30_000),
      body: positiveDuration.default(30_000),
      request: positiveDuration.default(60_000),
    })
    .prefault({}),
  /**
   * Larger list answers are refused while they arrive (protects the exporter's memory and event
   * loop); other answers are capped at 16 MiB. The default fits 100,000 queues with full statistics.
   */
  max_response_bytes: z.number().int().positive().default(DEFAULT_LIST_CAP_BYTES),
  /** Requests to this broker in flight at once. */
  max_concurrent_requests: z.number().int().min(1).max(64).default(2),
});

const pollSchema = z.strictObject({
  interval: intervalDuration.default(15_000),
  /** Each poll starts up to this fraction of its interval early or late, to spread load. */
  jitter: z.number().min(0).max(0.5).default(0.1),
  /** Longest wait between attempts while a collector keeps failing. */
  backoff_max: positiveDuration.default(120_000),
  /** Series of a collector whose last success is older than this are withdrawn; default 3 intervals. */
  max_age: positiveDuration.optional(),
});

const commonCollectorFields = {
  enabled: z.boolean().optional(),
  /** Overrides the collector's default (a multiple of poll.interval). */
  interval: intervalDuration.optional(),
  /** Deadline of one poll; default its interval. */
  timeout: positiveDuration.optional(),
  max_age: positiveDuration.optional(),
};

function collectorsSchema() {
  const shape: Record<string, z.ZodType> = {};
  for (const collector of COLLECTORS) {
    const own = collector.optionsSchema as z.ZodObject | undefined;
    const schema = own ? own.extend(commonCollectorFields) : z.strictObject(commonCollectorFields);
    shape[collector.name] = schema.prefault({});
  }
  return z.strictObject(shape);
}

export function configSchema() {
  return z.strictObject({
    web: z.strictObject({ listen_address: listenAddress.default(':9419') }).prefault({}),
    log: z.strictObject({ level: z.enum(LOG_LEVELS).default('info') }).prefault({}),
    poll: pollSchema.prefault({}),
    target: targetSchema.prefault({}),
    collectors: collectorsSchema().prefault({}),
  });
}

export type FileConfig = z.infer<ReturnType<typeof configSchema>>;
