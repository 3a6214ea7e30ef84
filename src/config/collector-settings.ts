import type { CollectorSpec } from './collector-spec.js';
import { ConfigError } from './config-error.js';
import { formatDuration } from '../model/duration.js';
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
    const { enabled, interval, timeout, max_age, poll_thread, poll_thread_from_series, ...options } = own as {
      enabled?: boolean;
      interval?: number;
      timeout?: number;
      max_age?: number;
      poll_thread?: boolean | 'auto';
      poll_thread_from_series?: number;
    } & Record<string, unknown>;
    const key = `collectors.${collector.name}`;
    const threadSetting = poll_thread_from_series !== undefined ? 'poll_thread_from_series' : 'poll_thread';
    if ((poll_thread === true || poll_thread === 'auto' || poll_thread_from_series !== undefined) && collector.describesBroker) {
      problems.push(
        `${sourceOf(`${key}.${threadSetting}`, file, sources, keyName)}: key "${keyName(`${key}.${threadSetting}`)}": the ${collector.name} collector polls on the main thread (it decides rabbitmq_up and tells the others which API they talk to); remove the key`,
      );
    } else if (poll_thread_from_series !== undefined && poll_thread !== undefined && poll_thread !== 'auto') {
      problems.push(
        `${sourceOf(`${key}.poll_thread_from_series`, file, sources, keyName)}: key "${keyName(`${key}.poll_thread_from_series`)}": applies only with ${keyName(`${key}.poll_thread`)}: auto (the default; it is ${String(poll_thread)}); set that key to auto or remove this one`,
      );
    }
    const pollThreadFromSeries = collector.describesBroker ? undefined : pollThreadThreshold(poll_thread ?? 'auto', poll_thread_from_series);
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
      ...(pollThreadFromSeries === undefined ? {} : { pollThreadFromSeries }),
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

/**
 * With poll_thread: auto (the default), a collector polls in the poll thread once its polls serve
 * this many series (~23,000 queues served, ~13,000 by the queue collector's estimate before its
 * first poll). Below it a poll is short and the thread's heap is memory for nothing: bench:scale at
 * 10,000 queues (~220,000 series), RSS max 139.2 MB on the main thread (f6bad78) and 179.6 MB with
 * the thread (d238fae); at 100,000 (2.2 million series), /metrics p99 during polls 40.9 ms on the
 * main thread and 15.1 ms with the thread. docs/performance.md.
 */
export const POLL_THREAD_FROM_SERIES = 500_000;

function pollThreadThreshold(pollThread: boolean | 'auto', fromSeries: number | undefined): number | undefined {
  if (pollThread === true) return 0;
  if (pollThread === false) return undefined;
  return fromSeries ?? POLL_THREAD_FROM_SERIES;
}
