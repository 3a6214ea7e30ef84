import { ManagementError } from '../client/errors.js';
import type { BrokerApi } from './collector.js';

export interface ListFetchOptions<T> {
  /** 0: one request for the whole list. Otherwise pages of this size (the API allows at most 500). */
  pageSize: number;
  /** Identity of an item, to drop the duplicates that appear when items move between pages. */
  key: (item: T) => string;
}

interface Page<T> {
  items?: T[];
  page_count?: number;
}

/**
 * Fetches a list endpoint whole or page by page. Every page costs the broker about as much
 * as the whole list (it sorts and filters all of it each time), so paging is only for
 * answers too large for one response, or for the broker-side `name` filter, which the API
 * applies only to paged requests.
 */
export async function fetchList<T>(
  api: BrokerApi,
  path: string,
  query: Record<string, string | number | boolean>,
  options: ListFetchOptions<T>,
): Promise<T[]> {
  if (options.pageSize <= 0) {
    const answer = await api.get<T[] | Page<T>>(path, query);
    const items = Array.isArray(answer) ? answer : answer?.items;
    if (!Array.isArray(items)) throw new Error(`${path} did not answer a JSON list`);
    return dedupe(items, options.key);
  }
  const items: T[] = [];
  for (let page = 1, pageCount = 1; page <= pageCount; page++) {
    let answer: Page<T> | null | undefined;
    try {
      answer = await api.get<Page<T>>(path, { ...query, page, page_size: options.pageSize });
    } catch (error) {
      // HTTP 400 page_out_of_range: the list shrank since the previous page announced its page
      // count. We have every item but those that moved forward, which the next poll sees.
      if (page > 1 && error instanceof ManagementError && error.kind === 'http_status' && error.status === 400) break;
      throw error;
    }
    if (!answer || !Array.isArray(answer.items)) throw new Error(`${path} page ${page} did not answer a page of items`);
    items.push(...answer.items);
    pageCount = typeof answer.page_count === 'number' ? answer.page_count : page;
  }
  return dedupe(items, options.key);
}

function dedupe<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    if (item === null || typeof item !== 'object') return false;
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
