import { expectList } from '../../broker/expect-list.js';
import type { BrokerApi } from '../kit/collector.js';
import { getPath } from '../kit/field-table.js';

/**
 * Consumers per queue (`vhost\0name` → count) from GET /api/consumers?columns=queue: one cheap
 * request instead of the statistics list, whose counts-only form (disable_stats=true) carries no
 * `consumers` field on 3.10 nor on 4.x. A queue absent from the list has no consumer.
 * Undefined when the path is absent (a proxy that does not pass it on, say).
 */
export async function fetchConsumerCounts(api: BrokerApi): Promise<Map<string, number> | undefined> {
  const answer = await api.getOptional<unknown>('/api/consumers', { columns: 'queue' });
  if (answer === undefined) return undefined;
  const records = expectList(answer, '/api/consumers');
  const counts = new Map<string, number>();
  for (const record of records) {
    const vhost = getPath(record, ['queue', 'vhost']);
    const name = getPath(record, ['queue', 'name']);
    if (typeof vhost !== 'string' || typeof name !== 'string') continue;
    const key = `${vhost}\u0000${name}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
