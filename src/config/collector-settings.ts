import type { CollectorSpec } from './collector-spec.js';
import { ConfigError } from './config-error.js';
import { formatDuration } from './duration.js';
import type { CollectorConfig } from './exporter-config.js';
import { sameKey, sourceOf, type KeyName, type KeySources } from './messages.js';
import { MAX_DURATION_TEXT, MAX_TIMER_MS, type FileConfig } from './schema.js';

/** The shortest default deadline of a collector that reads lists: 10k queues take seconds to answer. */
export const MIN_DEFAULT_LIST_TIMEOUT_MS = 30_000;

/**
 * The shortest default deadline of the overview (it decides rabbitmq_up) and the health checks.
 * With their interval as deadline, `poll.interval: 1s` called a live broker whose /api/overview
 * took a second or two under load down in half the polls. 10 s is what a loaded broker needs for
 * these small answers, and the longest a hung broker then takes to show as down; longer (the
 * request timeout of 60 s) would leave a hung broker reported up for a minute.
 */
export const MIN_DEFAULT_UP_TIMEOUT_MS = 10_000;

/** Each collector's enabled flag, interval, deadline, maximum age and own options, defaults derived. */
export function resolveCollectors(
  config: FileConfig,
  specs: readonly CollectorSpec[],
  file: string | undefined,
  sources: KeySources,
  keyName: KeyName = sameKey,
): CollectorConfig[] {
  const section = config.collectors as Record<string, Record<string, unknown> | undefined>;
  for (const spec of specs) {
    if (spec.describesBroker && section[spec.name]?.enabled === false) {
      const key = `collectors.${spec.name}.enabled`;
      throw new ConfigError(`${sourceOf(key, file, sources, keyName)}: key "${keyName(key)}": the ${spec.name} collector cannot be disabled, it decides rabbitmq_up`);
    }
  }
  const base = config.poll.interval;
  const problems: string[] = [];
  const collectors = specs.map((collector): CollectorConfig => {
    const own = section[collector.name] ?? {};
    const { enabled, interval, timeout, max_age, poll_thread, ...options } = own as {
      enabled?: boolean;
      interval?: number;
      timeout?: number;
      max_age?: number;
      poll_thread?: boolean;
    } & Record<string, unknown>;
    const key = `collectors.${collector.name}`;
    if (poll_thread && collector.describesBroker) {
      problems.push(
        `${sourceOf(`${key}.poll_thread`, file, sources, keyName)}: key "${keyName(`${key}.poll_thread`)}": the ${collector.name} collector polls on the main thread (it decides rabbitmq_up and tells the others which API they talk to); remove the key`,
      );
    }
    // Each value set in the file was checked by the schema; a derived one is checked here, naming
    // the key it was derived from, since Node would fire an overlong timer after 1 ms.
    let reported = false;
    const derived = (name: string, ms: number, how: string, from: string): number => {
      // One line per collector: a max_age derived from a bad interval says nothing new.
      if (ms > MAX_TIMER_MS && !reported) {
        reported = true;
        problems.push(
          `${sourceOf(from, file, sources, keyName)}: key "${keyName(from)}": makes ${keyName(`${key}.${name}`)} ${formatDuration(ms)} (${how}), over the longest allowed ${MAX_DURATION_TEXT}; ` +
            `set a shorter ${keyName(from)} or set ${keyName(`${key}.${name}`)}`,
        );
      }
      return ms;
    };
    const intervalMs = interval ?? derived('interval', base * collector.defaultIntervalMultiplier, `${collector.defaultIntervalMultiplier} × poll.interval`, 'poll.interval');
    const intervalFrom = interval === undefined ? 'poll.interval' : `${key}.interval`;
    const timeoutMs = timeout ?? defaultTimeout(collector, intervalMs);
    // Data stay served while the next poll may still be running within its deadline.
    const maxAgeMs = max_age ?? config.poll.max_age ?? derived('max_age', Math.max(3 * intervalMs, intervalMs + timeoutMs), `3 × ${key}.interval`, intervalFrom);
    return {
      name: collector.name,
      enabled: enabled ?? collector.defaultEnabled,
      intervalMs,
      timeoutMs,
      maxAgeMs,
      ...(poll_thread ? { pollThread: true } : {}),
      options,
    };
  });
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return collectors;
}

/**
 * A poll's deadline when none is configured. The overview and health checks keep their interval,
 * at least MIN_DEFAULT_UP_TIMEOUT_MS: they are small, and how soon a hung broker shows as down
 * depends on it, but a short interval must not make a slow broker read as down. Every other collector
 * gets at least MIN_DEFAULT_LIST_TIMEOUT_MS, so a short interval on a big broker does not make a
 * deadline no poll can meet; such a poll then runs past its interval (polls never overlap), and
 * its data are as old as the poll is long.
 */
function defaultTimeout(collector: CollectorSpec, intervalMs: number): number {
  const floor = collector.lane === 'overview' || collector.lane === 'health' ? MIN_DEFAULT_UP_TIMEOUT_MS : MIN_DEFAULT_LIST_TIMEOUT_MS;
  return Math.max(intervalMs, floor);
}
