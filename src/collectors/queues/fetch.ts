import { expectList } from '../../broker/expect-list.js';
import { apiPath } from '../../broker/api-path.js';
import type { DropCounter } from '../../exposition/sample-sink.js';
import type { BrokerApi, RequestLimits } from '../kit/collector.js';
import type { VhostReader } from '../kit/vhost-lists.js';
import { fetchWholeOrPaged } from '../kit/paging.js';
import type { QueueOptions, QueueRecord } from './options.js';
import type { QueuePlan } from './plan.js';

/** The queue list of one poll: how it is asked for, and its records as they arrive. */
export interface QueueList {
  /** Asked per vhost (the records are then of watched vhosts only), or as one list. */
  readonly perVhost: boolean;
  /** Named records (others are counted as no_name drops), one answer (a vhost's, or the whole list) at a time, in vhost order. */
  readonly records: AsyncIterable<readonly QueueRecord[]>;
}

/**
 * Lists the vhosts when the plan may ask per vhost, decides whether it does, and starts the
 * requests. `watched`: the vhosts this poll serves.
 */
export async function openQueueList(
  api: BrokerApi,
  plan: QueuePlan,
  watched: (vhost: string) => boolean,
  options: QueueOptions,
  drops: DropCounter,
  reader: VhostReader,
): Promise<QueueList> {
  const named = (q: QueueRecord) => typeof q.name === 'string' && typeof q.vhost === 'string';
  const key = (q: QueueRecord) => (named(q) ? `${q.vhost as string}\u0000${q.name as string}` : undefined);
  const valid = (q: QueueRecord) => {
    if (named(q)) return true;
    drops.drop('no_name');
    return false;
  };
  const fetch = (path: string, limits?: RequestLimits) => fetchWholeOrPaged<QueueRecord>(api, path, plan.query, { pageSize: plan.pageSize, key, drops, limits });
  const vhosts = plan.mayAskPerVhost ? await watchedVhosts(api, watched, options) : undefined;
  if (!vhosts) return { perVhost: false, records: oneList(() => fetch(plan.path), valid) };
  const read = (vhost: string) => reader.read(vhost, (limits) => fetch(apiPath('queues', vhost), limits));
  return { perVhost: true, records: perVhostLists(reader.order(vhosts), read, valid) };
}

/** The watched vhosts, or undefined when one request for the whole list is the better choice. */
async function watchedVhosts(api: BrokerApi, watched: (vhost: string) => boolean, options: QueueOptions): Promise<string[] | undefined> {
  const listed = expectList<{ name?: unknown } | null>(await api.get('/api/vhosts', { columns: 'name' }), '/api/vhosts');
  const vhosts = [...new Set(listed.map((v) => v?.name).filter((n): n is string => typeof n === 'string' && watched(n)))];
  // auto: a single request is as cheap when there is one vhost (or none filtered out).
  if (options.per_vhost === 'auto' && vhosts.length <= 1 && listed.length <= 1) return undefined;
  // Thousands of requests cost the broker and the exporter more than one list: the vhost
  // filter is then applied to the records instead.
  if (vhosts.length > options.per_vhost_max) return undefined;
  return vhosts;
}

async function* oneList(fetch: () => Promise<QueueRecord[]>, valid: (q: QueueRecord) => boolean): AsyncGenerator<readonly QueueRecord[]> {
  yield (await fetch()).filter(valid);
}

/**
 * Answers asked for ahead of the one being consumed: enough to keep the client's requests in
 * flight (2 by default) while one is turned into samples, and no more, since every answer that
 * arrives early is held parsed (at 100,000 queues over 10 vhosts, ~7 MB of JSON each).
 */
const VHOSTS_AHEAD = 2;

async function* perVhostLists(
  vhosts: readonly string[],
  read: (vhost: string) => Promise<QueueRecord[] | undefined>,
  valid: (q: QueueRecord) => boolean,
): AsyncGenerator<readonly QueueRecord[]> {
  // Answers are consumed in vhost order. A vhost deleted after it was listed is absent and
  // contributes nothing; one that fails contributes nothing this poll (the reader holds its series).
  const pending: (Promise<QueueRecord[] | undefined> | undefined)[] = [];
  const ask = (i: number) => {
    if (i >= vhosts.length || pending[i]) return;
    const answer = read(vhosts[i]!);
    // Should the poll stop before this answer is awaited, its failure is not needed any more.
    answer.catch(() => undefined);
    pending[i] = answer;
  };
  for (let i = 0; i <= VHOSTS_AHEAD; i++) ask(i);
  for (let i = 0; i < vhosts.length; i++) {
    ask(i + VHOSTS_AHEAD);
    const list = await pending[i]!;
    pending[i] = undefined; // let the answer go once it is consumed
    if (list) yield list.filter(valid);
  }
}
