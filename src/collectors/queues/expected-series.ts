import type { CollectContext } from '../kit/collector.js';
import { wantsRate, rateSelection } from '../kit/rates-option.js';
import { queueMetrics as M } from './metrics.js';
import type { QueueOptions } from './options.js';
import { planQueueQuery } from './plan.js';

/** Per queue besides its tables: running, and a quorum queue's or stream's members and members online. */
const STATE_SERIES = 3;
/** The signals' per-queue families (signals.ts, dead-letters.ts): counted once a queue each. */
const SIGNAL_DEFS = [M.estimatedWait, M.withoutProgress, M.unackedStalled, M.consumersStuck, M.deadLetterTarget, M.lengthLimitRatio, M.lengthLimitTimeToFull, M.bytesLimitRatio, M.bytesLimitTimeToFull];

/**
 * About how many series a statistics poll of the queue collector serves, rather more than fewer,
 * from the broker's queue count (object_totals) before any poll: per queue, every family its plan
 * may write (the field tables and their rates, state, info, limits, signals), for at most
 * max_queues queues; none per queue when families roll every queue up. The per-vhost and
 * per-family series are few beside them.
 */
export function expectedQueueSeries(ctx: Pick<CollectContext<QueueOptions>, 'broker' | 'options' | 'log' | 'carryOver'>): number | undefined {
  const queues = ctx.broker.objectTotals?.queues;
  if (queues === undefined) return undefined;
  const { options } = ctx;
  const plan = planQueueQuery(ctx);
  if (plan.rollUpOnly) return 0;
  const rates = rateSelection(options.rates);
  let perQueue = STATE_SERIES + (options.info ? 1 : 0) + (options.limits ? 2 : 0) + (options.signals ? SIGNAL_DEFS.length : 0);
  for (const table of plan.tables) for (const row of table.rows) perQueue += row.metric.rate && wantsRate(rates, row.field) ? 2 : 1;
  const served = options.max_queues > 0 ? Math.min(queues, options.max_queues) : queues;
  return served * perQueue;
}
