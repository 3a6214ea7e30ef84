import type { Logger } from 'pino';
import { isNotFound, ManagementError } from '../client/errors.js';
import type { MetricDef } from '../metrics/metric-def.js';
import { toSampleValue, type SampleSink } from '../render/sample-sink.js';
import type { BrokerApi } from './collector.js';

/**
 * Helpers for the management API's list endpoints: fetching a list whole or page by page
 * (fetchList, fetchAllPages), and counting its records into groups (Tally).
 *
 * Fetching list endpoints (`/api/connections`, `/api/channels`, `/api/queues`, ...) whole or
 * page by page.
 *
 * What the management API does (measured on 3.10.8):
 * - `?page=N&page_size=S` (S at most 500) answers `{items, page, page_count, total_count,
 *   filtered_count, item_count, page_size}`; `page_count` is 0 for an empty list. A page past the
 *   end answers HTTP 400 `page_out_of_range`.
 * - Some paths ignore the paging parameters and answer the plain array: `/api/consumers`,
 *   `/api/vhosts/{vhost}/connections`, `/api/vhosts/{vhost}/channels`, `/api/stream/publishers`.
 * - Every page request makes the broker build, sort and filter the whole list: paging a long list
 *   costs about pages × one full request. Paging bounds the size of each answer (and the
 *   exporter's memory), not the broker's work; use it for long lists only.
 * - Between two page requests objects come and go, so an item can move from one page to the
 *   next (seen twice: de-duplicated here on `key`) or to the previous one (missed in this poll;
 *   the next poll sees it again).
 */

export type Query = Record<string, string | number | boolean>;

export interface PagedOptions<T> {
  /** Extra query parameters sent with every page, e.g. `columns`. */
  query?: Query;
  /** Items per page, 1..500 (the API's maximum). */
  pageSize: number;
  /** Identity of an item; items answering the same key are kept once (the first seen). */
  key: (item: T) => string | undefined;
  /** Stop after this many pages whatever `page_count` says (a guard; default 10,000). */
  maxPages?: number;
}

interface Page<T> {
  items?: unknown;
  page_count?: unknown;
}

const MAX_PAGE_SIZE = 500;

/**
 * GETs `path?page=N&page_size=S` for N = 1, 2, ... until the last page the latest answer
 * announces. A path that ignores paging (answers an array) is taken as the whole list. Items
 * are de-duplicated on `key`; items without a key (undefined) are all kept. Not an array, nor
 * a page object: throws, which fails the poll.
 */
export async function fetchAllPages<T>(api: BrokerApi, path: string, options: PagedOptions<T>): Promise<T[]> {
  const pageSize = Math.max(1, Math.min(MAX_PAGE_SIZE, Math.floor(options.pageSize)));
  const maxPages = options.maxPages ?? 10_000;
  const dedup = new Deduplicator(options.key);
  for (let page = 1; page <= maxPages; page++) {
    let answer: unknown;
    try {
      answer = await api.get(path, { ...options.query, page, page_size: pageSize });
    } catch (error) {
      // The list shrank since the previous page told how many there are: we have them all but
      // those that moved forward, which the next poll sees.
      if (page > 1 && error instanceof ManagementError && error.kind === 'http_status' && error.status === 400) break;
      throw error;
    }
    if (Array.isArray(answer)) {
      dedup.addAll(answer as T[]);
      break;
    }
    const { items, page_count: pageCount } = (answer ?? {}) as Page<T>;
    if (!Array.isArray(items)) throw new Error(`${path} answered neither a list nor a page of one`);
    dedup.addAll(items as T[]);
    if (typeof pageCount !== 'number' || page >= pageCount || items.length === 0) break;
  }
  return dedup.items;
}

export interface ListOptions<T> extends PagedOptions<T> {
  /**
   * Lists longer than this (as seen on the previous poll) are fetched page by page; shorter ones
   * in one request. 0: always page. The first poll, knowing nothing, pages (for a short list
   * that is one request anyway).
   */
  pagingThreshold: number;
  /** The collector's `ctx.memory`: where the previous length of each list is kept. */
  memory: Map<string, unknown>;
}

/**
 * The whole list behind `path`, in one request when it was short last time and page by page
 * otherwise (see fetchAllPages). De-duplicated on `key` either way.
 */
export async function fetchList<T>(api: BrokerApi, path: string, options: ListOptions<T>): Promise<T[]> {
  const memoryKey = `paging:length:${path}`;
  const previous = options.memory.get(memoryKey);
  const paged = options.pagingThreshold === 0 || typeof previous !== 'number' || previous > options.pagingThreshold;
  let items: T[];
  if (paged) {
    items = await fetchAllPages(api, path, options);
  } else {
    const answer = await api.get(path, options.query);
    if (!Array.isArray(answer)) throw new Error(`${path} did not answer a JSON array`);
    const dedup = new Deduplicator(options.key);
    dedup.addAll(answer as T[]);
    items = dedup.items;
  }
  options.memory.set(memoryKey, items.length);
  return items;
}

class Deduplicator<T> {
  readonly items: T[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly key: (item: T) => string | undefined) {}

  addAll(items: readonly T[]): void {
    for (const item of items) {
      const k = this.key(item);
      if (k !== undefined) {
        if (this.seen.has(k)) continue;
        this.seen.add(k);
      }
      this.items.push(item);
    }
  }
}

/**
 * Counts and sums of list records per label set, for the aggregated series of the connection,
 * channel and consumer collectors. An absent value adds nothing; one that is null or not a
 * number adds nothing and is counted in `skipped` (add it to the sink's, as emitRecord would).
 * A sum of which no record had a number stays undefined: no sample, never a 0.
 */
export class Tally {
  private readonly groups = new Map<string, TallyGroup>();
  /** Values that were null or not numbers (nor numeric strings, nor booleans). */
  skipped = 0;

  /** Counts one record into the group `labels` and adds its `values` to the group's sums. */
  add(labels: readonly string[], values: Readonly<Record<string, unknown>> = {}): void {
    const key = labels.join('\u0000');
    let group = this.groups.get(key);
    if (!group) {
      group = new TallyGroup(labels);
      this.groups.set(key, group);
    }
    group.count++;
    for (const [name, raw] of Object.entries(values)) {
      if (raw === undefined) continue;
      const value = toSampleValue(raw);
      if (value === undefined) {
        this.skipped++;
        continue;
      }
      group.sums.set(name, (group.sums.get(name) ?? 0) + value);
    }
  }

  get size(): number {
    return this.groups.size;
  }

  [Symbol.iterator](): IterableIterator<TallyGroup> {
    return this.groups.values();
  }
}

export class TallyGroup {
  count = 0;
  readonly sums = new Map<string, number>();
  constructor(readonly labels: readonly string[]) {}

  /** The sum of `name` over the group's records that had a number, or undefined if none had. */
  sum(name: string): number | undefined {
    return this.sums.get(name);
  }
}

/** Adds a sample unless the value is undefined (an aggregate nobody had a number for). */
export function addDefined(sink: SampleSink, def: MetricDef, labels: readonly string[], value: number | undefined): void {
  if (value !== undefined) sink.add(def, labels, value);
}

/** A record's field as a label value: strings as they are, numbers and booleans as text, else ''. */
export function labelOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/**
 * The records of several vhosts, fetched with `fetch(vhost)` (in parallel; the client bounds
 * the requests in flight) and concatenated in the order given. A vhost that does not exist
 * (HTTP 404) contributes nothing and is reported to `onMissing`; other errors fail the poll.
 */
export async function fetchPerVhost<T>(
  vhosts: readonly string[],
  fetch: (vhost: string) => Promise<T[]>,
  onMissing: (vhost: string) => void,
): Promise<T[]> {
  const lists = await Promise.all(
    [...new Set(vhosts)].map(async (vhost) => {
      try {
        return await fetch(vhost);
      } catch (error) {
        if (isNotFound(error)) {
          onMissing(vhost);
          return [];
        }
        throw error;
      }
    }),
  );
  return lists.flat();
}

/** Logs `msg` the first time `key` is seen by this collector on this target (kept in ctx.memory). */
export function logOnce(
  ctx: { memory: Map<string, unknown>; log: Logger },
  level: 'info' | 'warn',
  key: string,
  fields: Record<string, unknown>,
  msg: string,
): void {
  const memoryKey = `logged:${key}`;
  if (ctx.memory.has(memoryKey)) return;
  ctx.memory.set(memoryKey, true);
  ctx.log[level](fields, msg);
}
