import { z } from 'zod';
import { healthMetrics as M } from './metrics.js';
import { apiPath } from '../../broker/api-path.js';
import { metricsOf } from '../../model/metric-def.js';
import type { CollectContext, Collector } from '../kit/collector.js';
import { collectParts, getRemembered, httpStatus, majorVersion, part } from '../kit/optional-requests.js';
import { renderLabels } from '../../exposition/sample-sink.js';

export const CHECK_NAMES = [
  'alarms',
  'local-alarms',
  'virtual-hosts',
  'node-is-quorum-critical',
  'node-is-mirror-sync-critical',
  'certificate-expiration',
  'port-listener',
  'protocol-listener',
  'aliveness-test',
  'quorum-queues-without-elected-leaders/all-vhosts',
  'below-node-connection-limit',
  'ready-to-serve-clients',
  'is-in-service',
  'metadata-store/initialized',
  'reached-target-cluster-size',
] as const;

type CheckName = (typeof CHECK_NAMES)[number];

/** Checks without parameters, and when a broker has them. */
const SIMPLE_CHECKS: { check: CheckName; path: string; when: 'all' | 'v3' | 'variantB' }[] = [
  { check: 'alarms', path: '/api/health/checks/alarms', when: 'all' },
  { check: 'local-alarms', path: '/api/health/checks/local-alarms', when: 'all' },
  { check: 'virtual-hosts', path: '/api/health/checks/virtual-hosts', when: 'all' },
  { check: 'node-is-quorum-critical', path: '/api/health/checks/node-is-quorum-critical', when: 'all' },
  // Classic mirrored queues, and this check, are gone in 4.0.
  { check: 'node-is-mirror-sync-critical', path: '/api/health/checks/node-is-mirror-sync-critical', when: 'v3' },
  // From 3.13 on (variant B); each appeared in a later release (4.0.6, 4.1.0, 4.1.1, 4.2.4): older ones answer 404.
  {
    check: 'quorum-queues-without-elected-leaders/all-vhosts',
    path: '/api/health/checks/quorum-queues-without-elected-leaders/all-vhosts/',
    when: 'variantB',
  },
  { check: 'below-node-connection-limit', path: '/api/health/checks/below-node-connection-limit', when: 'variantB' },
  { check: 'ready-to-serve-clients', path: '/api/health/checks/ready-to-serve-clients', when: 'variantB' },
  { check: 'is-in-service', path: '/api/health/checks/is-in-service', when: 'variantB' },
  { check: 'metadata-store/initialized', path: '/api/health/checks/metadata-store/initialized', when: 'variantB' },
  { check: 'reached-target-cluster-size', path: '/api/health/checks/reached-target-cluster-size', when: 'variantB' },
];

/** Listener protocols that carry AMQP clients, as /api/overview names them. */
const AMQP_PROTOCOLS = new Set(['amqp', 'amqp/ssl']);
const FALLBACK_PORTS = [5672];
const FALLBACK_PROTOCOLS = ['amqp'];

const options = z.strictObject({
  /** Checks to leave out, by their `check` label, e.g. ["aliveness-test", "node-is-quorum-critical"]. */
  skip: z.array(z.enum(CHECK_NAMES)).default([]),
  /**
   * port-listener: the ports to check. Default: the AMQP ports (protocols amqp and amqp/ssl) of the
   * node that answered /api/overview at the first poll, or 5672 when that request fails.
   */
  ports: z.array(z.number().int().min(1).max(65535)).optional(),
  /**
   * protocol-listener: the protocols to check, as /api/overview names them (amqp, amqp/ssl, mqtt,
   * stomp, http, ...) or by the aliases RabbitMQ accepts (amqp091, amqps, ...). Default: the AMQP
   * protocols found like the ports above, or amqp.
   */
  protocols: z.array(z.string().min(1)).optional(),
  /**
   * aliveness-test (RabbitMQ 3.x; a no-op from 4.0.6): the vhosts to test, none by default. Each
   * test CHANGES THE BROKER: it declares a durable queue named aliveness-test in the vhost (left
   * there), publishes one message to it and gets it back, on every poll. Opt-in for that reason.
   */
  aliveness_vhosts: z.array(z.string().min(1)).default([]),
  /** certificate-expiration: fails when a TLS listener's certificate expires within this many days. */
  certificate_expiration_days: z.number().int().min(1).default(30),
});

type Options = z.infer<typeof options>;
type Ctx = CollectContext<Options>;

interface Check {
  check: CheckName;
  path: string;
  /** Labels besides `check`: only the parameter of the checks that take one. */
  extra: { name: 'port' | 'protocol' | 'vhost'; value: string } | undefined;
}

interface Listeners {
  ports: number[];
  protocols: string[];
}

export const healthChecksCollector: Collector<Options> = {
  name: 'health_checks',
  description:
    'GET /api/health/checks/{alarms, local-alarms, virtual-hosts, node-is-quorum-critical, certificate-expiration/{days}/days, ' +
    'port-listener/{port}, protocol-listener/{protocol}}; before 4.0 also node-is-mirror-sync-critical and /api/aliveness-test/{vhost}; ' +
    'from 3.13 also quorum-queues-without-elected-leaders/all-vhosts/, below-node-connection-limit, ready-to-serve-clients, is-in-service, ' +
    'metadata-store/initialized, reached-target-cluster-size where the broker has them. At its first poll: /api/whoami (warns when the ' +
    'user lacks the monitoring tag) and /api/overview?columns=node,listeners (the default ports and protocols).',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  lane: 'health',
  optionsSchema: options,
  metrics: metricsOf(M),
  async collect(ctx) {
    await checkWhoami(ctx);
    const checks = await checksFor(ctx);
    await collectParts(ctx, healthChecksCollector.name,
      checks.map((c) =>
        part(
          c.extra ? `${c.check} ${c.extra.value}` : c.check,
          () => runCheck(ctx, c),
          (result) => {
            if (result === undefined) return;
            const names = c.extra ? ['check', c.extra.name] : ['check'];
            const values = c.extra ? [c.check, c.extra.value] : [c.check];
            ctx.sink.addRendered(M.checkUp, renderLabels(names, values), result.value, result.answer);
          },
        ),
      ),
    );
  },
};

async function checksFor(ctx: Ctx): Promise<Check[]> {
  const { options } = ctx;
  const v3 = majorVersion(ctx) < 4;
  const wanted = (check: CheckName) => !options.skip.includes(check);
  const checks: Check[] = [];
  for (const s of SIMPLE_CHECKS) {
    if (!wanted(s.check)) continue;
    if (s.when === 'v3' && !v3) continue;
    if (s.when === 'variantB' && ctx.broker.variant !== 'B') continue;
    checks.push({ check: s.check, path: s.path, extra: undefined });
  }
  if (wanted('certificate-expiration')) {
    checks.push({
      check: 'certificate-expiration',
      path: `/api/health/checks/certificate-expiration/${options.certificate_expiration_days}/days`,
      extra: undefined,
    });
  }
  const needListeners =
    (wanted('port-listener') && !options.ports) || (wanted('protocol-listener') && !options.protocols);
  const listeners = needListeners ? await amqpListeners(ctx) : { ports: [], protocols: [] };
  if (wanted('port-listener')) {
    for (const port of unique(options.ports ?? listeners.ports)) {
      checks.push({ check: 'port-listener', path: apiPath('health', 'checks', 'port-listener', String(port)), extra: { name: 'port', value: String(port) } });
    }
  }
  if (wanted('protocol-listener')) {
    for (const protocol of unique(options.protocols ?? listeners.protocols)) {
      checks.push({ check: 'protocol-listener', path: apiPath('health', 'checks', 'protocol-listener', protocol), extra: { name: 'protocol', value: protocol } });
    }
  }
  if (wanted('aliveness-test') && v3) {
    for (const vhost of unique(options.aliveness_vhosts)) {
      checks.push({ check: 'aliveness-test', path: apiPath('aliveness-test', vhost), extra: { name: 'vhost', value: vhost } });
    }
  }
  return checks;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/**
 * The AMQP ports and protocols of the node that answers, read once per target: a listener that
 * later disappears must make port-listener fail, not vanish from the checks.
 */
async function amqpListeners(ctx: Ctx): Promise<Listeners> {
  const known = ctx.carryOver.get('listeners') as Listeners | undefined;
  if (known) return known;
  try {
    const overview = await ctx.api.get<{ node?: unknown; listeners?: unknown }>('/api/overview', { columns: 'node,listeners' });
    const list = Array.isArray(overview?.listeners) ? (overview.listeners as Record<string, unknown>[]) : [];
    const own = list.filter((l) => l?.node === overview.node && typeof l.protocol === 'string' && AMQP_PROTOCOLS.has(l.protocol));
    const found: Listeners = {
      ports: unique(own.map((l) => l.port).filter((p): p is number => typeof p === 'number')),
      protocols: unique(own.map((l) => l.protocol as string)),
    };
    ctx.carryOver.set('listeners', found);
    ctx.log.debug({ node: overview.node, ...found }, 'AMQP listeners to check');
    if (found.ports.length === 0) ctx.log.info({ node: overview.node }, 'the node lists no AMQP listener: no port-listener or protocol-listener checks unless configured');
    return found;
  } catch (error) {
    ctx.log.debug({ cause: (error as Error).message }, `could not read the listeners: checking port ${FALLBACK_PORTS.join(',')} and protocol ${FALLBACK_PROTOCOLS.join(',')} this poll`);
    return { ports: FALLBACK_PORTS, protocols: FALLBACK_PROTOCOLS };
  }
}

function logFields(c: Check): Record<string, string> {
  return c.extra ? { check: c.check, [c.extra.name]: c.extra.value } : { check: c.check };
}

/**
 * What a check answered: 1 (200) or 0 (503), and the answer's status (a naming profile's aliveness
 * family may label its series with it; the reason of a failure goes to the log only).
 */
interface CheckResult {
  value: number;
  answer: { status: string };
}

/** Undefined when the broker answered that it has no such check (404) or that the user may not run it; throws on any other failure. */
async function runCheck(ctx: Ctx, c: Check): Promise<CheckResult | undefined> {
  const failedKey = `failed ${c.path}`;
  try {
    const answer = await getRemembered<unknown>(ctx, {
      path: c.path,
      // The aliveness test needs permissions on the vhost, which a monitoring user often lacks.
      ...(c.check === 'aliveness-test' ? { refusedBecause: `it needs permissions on the vhost ${c.extra?.value ?? ''}` } : {}),
      absentMeans:
        c.check === 'aliveness-test'
          ? `the vhost ${c.extra?.value ?? ''} does not exist, or the broker has no aliveness test`
          : `the broker has no ${c.check} health check`,
    });
    if (!answer.ok) return undefined;
    if (ctx.carryOver.delete(failedKey)) ctx.log.info(logFields(c), 'health check passes again');
    const status = (answer.body as { status?: unknown } | null)?.status;
    return { value: 1, answer: { status: typeof status === 'string' ? status : 'ok' } };
  } catch (error) {
    if (httpStatus(error) !== 503) throw error;
    // The reason (alarms in effect, missing listener, queues at risk) goes to the log, at each change.
    const cause = (error as Error).message;
    if (ctx.carryOver.get(failedKey) !== cause) {
      ctx.log.warn({ ...logFields(c), cause }, 'health check failed');
      ctx.carryOver.set(failedKey, cause);
    }
    return { value: 0, answer: { status: 'failed' } };
  }
}

/**
 * Once per target: which tags the exporter's user has. Without monitoring (or administrator)
 * the API shows it only the vhosts it has permissions for, so totals silently shrink.
 */
async function checkWhoami(ctx: Ctx): Promise<void> {
  if (ctx.carryOver.get('whoami checked')) return;
  let whoami: { name?: unknown; tags?: unknown };
  try {
    whoami = await ctx.api.get('/api/whoami');
  } catch (error) {
    ctx.log.debug({ cause: (error as Error).message }, 'could not read /api/whoami; asking again next poll');
    return;
  }
  ctx.carryOver.set('whoami checked', true);
  const tags = userTags(whoami?.tags);
  if (!tags.includes('monitoring') && !tags.includes('administrator')) {
    ctx.log.warn(
      { user: whoami?.name, tags },
      'the exporter\'s user has neither the monitoring nor the administrator tag: it sees only its own vhosts, so counts and lists are incomplete',
    );
  }
}

/** 3.10+ answer a list of tags; older versions a comma-separated string. */
export function userTags(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
  return list.filter((t): t is string => typeof t === 'string').map((t) => t.trim()).filter((t) => t !== '');
}
