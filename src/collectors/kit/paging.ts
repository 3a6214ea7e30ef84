import { ManagementError } from '../../broker/errors.js';
import { expectList } from '../../broker/expect-list.js';
import type { DropCounter } from '../../exposition/sample-sink.js';
import type { BrokerApi, RequestLimits } from './collector.js';
import type { VhostReader } from './vhost-lists.js';
import { Turns } from '../../broker/turns.js';

/**
 * Fetching the management API's list endpoints: whole or page by page (fetchAllPages,
 * fetchList, fetchWholeOrPaged) and per vhost (fetchPerVhost).
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
  /** Told of every item left out: duplicates, and items that are not objects (the collector's sink). */
  drops?: DropCounter;
  /** Limits of each request (one vhost's list: see vhost-lists.ts). */
  limits?: RequestLimits;
}

interface Page<_T> {
  items?: unknown;
  page_count?: unknown;
}

const MAX_PAGE_SIZE = 500;

/**
 * GETs `path?page=N&page_size=S` for N = 1, 2, ... until the last page the latest answer
 * announces. A path that ignores paging (answers an array) is taken as the whole list. Items
 * are de-duplicated on `key`; items without a key (undefined) are all kept, items that are not
 * objects are dropped (counted as no_name). Not an array, nor
 * a page object: throws, which fails the poll.
 */
export async function fetchAllPages<T>(api: BrokerApi, path: string, options: PagedOptions<T>): Promise<T[]> {
  const pageSize = Math.max(1, Math.min(MAX_PAGE_SIZE, Math.floor(options.pageSize)));
  const maxPages = options.maxPages ?? 10_000;
  const dedup = new Deduplicator(options.key, options.drops);
  for (let page = 1; page <= maxPages; page++) {
    let answer: unknown;
    try {
      answer = await api.get(path, { ...options.query, page, page_size: pageSize }, options.limits);
    } catch (error) {
      // The list shrank since the previous page told how many there are: we have them all but
      // those that moved forward, which the next poll sees.
      if (page > 1 && error instanceof ManagementError && error.kind === 'http_status' && error.status === 400) break;
      throw error;
    }
    if (Array.isArray(answer)) {
      await dedup.addAll(answer as T[]);
      break;
    }
    const { items, page_count: pageCount } = (answer ?? {}) as Page<T>;
    if (!Array.isArray(items)) throw new Error(`${path} page ${page} did not answer a page of items`);
    await dedup.addAll(items as T[]);
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
  /** The collector's `ctx.carryOver`: where the previous length of each list is kept. */
  carryOver: Map<string, unknown>;
}

/**
 * The whole list behind `path`, in one request when it was short last time and page by page
 * otherwise (see fetchAllPages). De-duplicated on `key` either way.
 */
export async function fetchList<T>(api: BrokerApi, path: string, options: ListOptions<T>): Promise<T[]> {
  const carryKey = `paging:length:${path}`;
  const previous = options.carryOver.get(carryKey);
  const paged = options.pagingThreshold === 0 || typeof previous !== 'number' || previous > options.pagingThreshold;
  let items: T[];
  if (paged) {
    items = await fetchAllPages(api, path, options);
  } else {
    const answer = expectList<T>(await api.get(path, options.query, options.limits), path);
    const dedup = new Deduplicator(options.key, options.drops);
    await dedup.addAll(answer);
    items = dedup.items;
  }
  options.carryOver.set(carryKey, items.length);
  return items;
}

class Deduplicator<T> {
  readonly items: T[] = [];
  private readonly seen = new Set<string>();
  private readonly turns = new Turns();

  constructor(
    private readonly key: (item: T) => string | undefined,
    private readonly drops: DropCounter | undefined,
  ) {}

  /** A whole list of 100,000 exchanges is keyed here: the event loop gets turns (Turns). */
  async addAll(items: readonly T[]): Promise<void> {
    for (const item of items) {
      if (this.turns.due()) await this.turns.wait();
      // null, numbers, strings: nothing to key or label; a page holding one is still served.
      if (!isObject(item)) {
        this.drops?.drop('no_name');
        continue;
      }
      const k = this.key(item);
      if (k !== undefined) {
        if (this.seen.has(k)) {
          this.drops?.drop('duplicate');
          continue;
        }
        this.seen.add(k);
      }
      this.items.push(item);
    }
  }
}

/**
 * The records of several vhosts, fetched with `fetch(vhost, limits)` (in parallel; the client
 * bounds the requests in flight) and concatenated in the order asked. A vhost that does not exist
 * (absent: see broker/absence.ts) contributes nothing and is reported to `onMissing`; one that
 * fails contributes nothing this poll and is reported by `reader` (see vhost-lists.ts), whose
 * finish() the collector calls once its series are written.
 */
export async function fetchPerVhost<T>(
  reader: VhostReader,
  vhosts: readonly string[],
  fetch: (vhost: string, limits: RequestLimits) => Promise<T[]>,
  onMissing: (vhost: string) => void,
): Promise<T[]> {
  const lists = await Promise.all(reader.order(vhosts).map((vhost) => reader.read(vhost, (limits) => fetch(vhost, limits), onMissing)));
  return lists.flatMap((list) => list ?? []);
}

export interface WholeOrPagedOptions<T> {
  /** 0: one request for the whole list; otherwise pages of this size (see fetchAllPages). */
  pageSize: number;
  key: (item: T) => string | undefined;
  drops?: DropCounter;
  limits?: RequestLimits;
}

/**
 * One request for the whole list, or page by page when a page size is configured (for answers
 * too large for one response, or for the broker-side `name` filter, which the API applies only
 * to paged requests). De-duplicated on `key`; items that are not objects are dropped (counted as no_name).
 */
export async function fetchWholeOrPaged<T>(api: BrokerApi, path: string, query: Query, options: WholeOrPagedOptions<T>): Promise<T[]> {
  let items: T[];
  if (options.pageSize > 0) {
    items = await fetchAllPages(api, path, { query, pageSize: options.pageSize, key: options.key, drops: options.drops, limits: options.limits });
  } else {
    const answer = await api.get<unknown>(path, query, options.limits);
    const list = expectList<T>(Array.isArray(answer) ? answer : ((answer as { items?: unknown } | null)?.items ?? answer), path);
    const dedup = new Deduplicator(options.key, options.drops);
    await dedup.addAll(list);
    items = dedup.items;
  }
  return items;
}

function isObject(item: unknown): boolean {
  return item !== null && typeof item === 'object';
}

