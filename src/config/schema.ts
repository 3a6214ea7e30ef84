import { z } from 'zod';
import { DEFAULT_LIST_CAP_BYTES } from '../broker/answer-caps.js';
import type { CollectorSpec } from './collector-spec.js';
import { duration } from '../model/duration.js';
import { NAMING_PROFILES, profileSections } from '../profiles/profiles.js';

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
export const LOG_FORMATS = ['json', 'logfmt'] as const;
/** Paths the exporter serves besides the metrics. */
const RESERVED_PATHS = new Set(['/', '/-/healthy', '/-/ready', '/-/reload', '/probe']);

export function parseListenAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`"${text}" is not HOST:PORT or :PORT`);
  return { host: match[1] ?? match[2] ?? '', port };
}

/** One address (`":9419"`) or a list of them, each served alike (the exporter-toolkit's repeated --web.listen-address); a list once parsed. */
const listenAddresses = z
  .union([z.string(), z.array(z.string())], { error: 'must be HOST:PORT or :PORT, e.g. :9419, or a list of them, e.g. [":9419", "127.0.0.1:9420"]' })
  .superRefine((value, ctx) => {
    const list = typeof value === 'string' ? [value] : value;
    if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'lists no address: give at least one, e.g. :9419' });
    for (const [i, text] of list.entries()) {
      const path = typeof value === 'string' ? [] : [i];
      try {
        parseListenAddress(text);
      } catch {
        ctx.addIssue({ code: 'custom', path, message: `must be HOST:PORT or :PORT, e.g. :9419 (not ${JSON.stringify(text)})` });
        continue;
      }
      // The second listen of an address would fail; on port 0 each listen gets a port of its own.
      const portZero = parseListenAddress(text).port === 0;
      if (!portZero && list.indexOf(text) !== i) ctx.addIssue({ code: 'custom', path, message: `${JSON.stringify(text)} is listed twice` });
    }
  })
  .transform((value) => (typeof value === 'string' ? [value] : value));

/**
 * What is wrong with a broker URL, or undefined when it parses cleanly. The URL may hold a
 * password, so no message repeats any part of it. A password with an unencoded "/", "?" or "#"
 * makes the parser take the user name for the host and the rest for a path or query, with the
 * secret in it: an "@" after the host is refused for that reason.
 */
export function brokerUrlProblem(text: string): string | undefined {
  const scheme = 'must be an http:// or https:// URL, e.g. http://localhost:15672';
  if (!/^https?:\/\//i.test(text)) return scheme;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${scheme} (it does not parse as a URL; a user name or password holding ":", "/", "?", "#" or "@" must be percent-encoded)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return scheme;
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) {
    return 'has an "@" after the host, so part of a user name or password would be taken for the path: percent-encode "/", "?", "#" and "@" in them (%2F, %3F, %23, %40), or set target.username and target.password instead';
  }
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
    return 'must not have a query (?...) or fragment (#...): the API paths are appended to it';
  }
  for (const [part, value] of [['user name or password', `${url.username}:${url.password}`], ['path', url.pathname]] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      return `the ${part} in it is not valid percent-encoding: "%" must be followed by two hex digits (a literal "%" is %25)`;
    }
  }
  return undefined;
}

export const brokerUrl = z.string().superRefine((text, ctx) => {
  const problem = brokerUrlProblem(text);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

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

/** The HTTP side: deadlines for clients and a bound on scrapes, so slow or stuck clients cannot pin memory. */
const webSchema = z.strictObject({
  listen_address: listenAddresses.default([':9419']),
  telemetry_path: z.string().regex(/^\/[^?#\s]*$/, 'must be a path starting with /, e.g. /metrics').refine((p) => !RESERVED_PATHS.has(p), `must not be one of ${[...RESERVED_PATHS].join(', ')}`).default('/metrics'),
  /** A client has this long to send its whole request (headers included); then it gets 408 and is disconnected. */
  read_timeout: positiveDuration.default(10_000),
  /** From a request to the last byte of its answer handed to the network; a connection still writing then is closed. */
  write_timeout: positiveDuration.default(60_000),
  /** A keep-alive connection with no request in progress is closed after this. */
  idle_timeout: positiveDuration.default(5_000),
  /** Scrapes of /metrics answered at once; one more is refused with 503 and Retry-After. */
  max_concurrent_scrapes: z.number().int().min(1).max(1000).default(10),
  /** Connections open at once; one more is closed as soon as it is accepted. Below the descriptor limit (often 1,024). */
  max_connections: z.number().int().min(1).max(100_000).default(512),
  /**
   * Prometheus scrapes each node through /discovery/nodes, as the plugin is scraped: the
   * telemetry path then serves the exporter's own series only, even with one target.
   */
  per_node_scrapes: z.boolean().default(false),
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
  /** Its polls run in the poll thread (a worker thread), off the thread that serves scrapes: always, never, or once they are big. */
  poll_thread: z.union([z.boolean(), z.literal('auto')]).optional(),
  /** With poll_thread: auto, how many series a poll serves before the collector moves there. */
  poll_thread_from_series: z.number().int().positive().optional(),
};

function collectorsSchema(collectors: readonly CollectorSpec[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const collector of collectors) {
    const own = collector.optionsSchema as z.ZodObject | undefined;
    const schema = own ? own.extend(commonCollectorFields) : z.strictObject(commonCollectorFields);
    shape[collector.name] = schema.prefault({});
  }
  return z.strictObject(shape);
}

/** A target's name: in /probe?target=NAME, in log lines and on the landing page. */
export const TARGET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/**
 * One entry of `targets:`. Its keys are those of `target:` plus its own `poll:` and `collectors:`;
 * what it leaves out falls back to the top level. Its values are checked once merged with the top
 * level (see target-entries.ts), so here only the keys and the name are.
 */
function targetEntrySchema() {
  const inherited = Object.fromEntries(Object.keys(targetSchema.shape).map((key) => [key, z.unknown().optional()]));
  return z.strictObject({
    name: z.string().regex(TARGET_NAME_PATTERN, 'must be 1 to 63 letters, digits, "_", "." or "-", starting with a letter or digit'),
    ...inherited,
    poll: z.record(z.string(), z.unknown()).optional(),
    collectors: z.record(z.string(), z.unknown()).optional(),
  });
}

/** `sharding.shard`: an ordinal, or `auto` (resolved in sharding.ts). */
const shardOrdinal = z.unknown().optional().transform((value, ctx): number | 'auto' => {
  if (value === undefined || value === null) return 0;
  if (value === 'auto' || (Number.isInteger(value) && (value as number) >= 0)) return value as number | 'auto';
  ctx.addIssue({ code: 'custom', message: `must be an integer of at least 0, or auto; got ${JSON.stringify(value)}` });
  return z.NEVER;
});

const totalShards = z.unknown().optional().transform((value, ctx): number => {
  if (value === undefined || value === null) return 1;
  if (Number.isInteger(value) && (value as number) >= 1) return value as number;
  ctx.addIssue({ code: 'custom', message: `must be an integer of at least 1; got ${JSON.stringify(value)}` });
  return z.NEVER;
});

/** Replicas splitting the work: see src/model/shard-assignment.ts. */
const shardingSchema = z.strictObject({ shard: shardOrdinal, total_shards: totalShards });

/** `collectors`: every collector the exporter has; each gets its section under `collectors:`. */
export function configSchema(collectors: readonly CollectorSpec[]) {
  return z.strictObject({
    web: webSchema.prefault({}),
    log: z
      .strictObject({
        level: z.enum(LOG_LEVELS).default('info'),
        format: z.enum(LOG_FORMATS).default('json'),
        /** A poll failure that lasts is logged again this often (at most once per cause and target). */
        failure_reminder: positiveDuration.default(300_000),
      })
      .prefault({}),
    poll: pollSchema.prefault({}),
    sharding: shardingSchema.prefault({ shard: undefined, total_shards: undefined }),
    /** Which names the families are served under: see src/exposition/naming-profile.ts. */
    naming: z.enum(NAMING_PROFILES).default('native'),
    /** What only one naming profile reads: a section per profile with settings (src/profiles/profile-settings.ts). */
    ...profileSections(),
    target: targetSchema.prefault({}),
    collectors: collectorsSchema(collectors).prefault({}),
    /** Several brokers: each entry falls back to target, poll and collectors above. */
    targets: z
      .array(targetEntrySchema())
      .min(1, 'must list at least one target, or be left out')
      .superRefine((entries, ctx) => {
        const seen = new Map<string, number>();
        entries.forEach((entry, i) => {
          const first = seen.get(entry.name);
          if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${entry.name}" is also the name of targets[${first}]: names must be unique` });
          else seen.set(entry.name, i);
        });
      })
      .optional(),
  });
}

export type FileConfig = z.infer<ReturnType<typeof configSchema>>;
