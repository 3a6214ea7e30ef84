import { queueMetrics as M } from './metrics.js';
import { metricsOf } from '../../model/metric-def.js';
import type { BlockWriter } from '../../exposition/sample-sink.js';
import type { Collector, CollectContext } from '../kit/collector.js';
import { emitRecordToBlock } from '../kit/field-table.js';
import { logOnce } from '../kit/log-once.js';
import { MonotonicCounters } from '../kit/monotonic-counters.js';
import { NameFilter } from '../kit/name-filter.js';
import { QueueAggregates } from './aggregates.js';
import { quorumMetrics } from './quorum-metrics.js';
import { emitQuorumPlacement, QuorumPlacement } from './quorum-placement.js';
import { fetchConsumerCounts } from './consumer-counts.js';
import { openQueueList } from './fetch.js';
import { QueueLabelBlocks } from './label-blocks.js';
import { queueOptionsSchema, type QueueOptions, type QueueRecord } from './options.js';
import { QueueSelection, RankingMemory } from './selection.js';
import { planQueueQuery } from './plan.js';
import { expectedQueueSeries } from './expected-series.js';
import { eachInTurns } from '../kit/in-turns.js';
import { emitQueueInfo, emitQueueLimits, emitQueueState } from './series.js';
import { QueueStatsTier, vhostLabelPrefixes } from './stats-tier.js';
import { STATS_DEFS } from './tables.js';
import { DeadLetterTargets } from './dead-letters.js';
import { QueueSignals } from './signals.js';
import { QueueFamilies } from './families.js';
import { familyMetrics } from './family-metrics.js';
import { rateSelection } from '../kit/rates-option.js';
import { VhostReader } from '../kit/vhost-lists.js';

export { queueOptionsSchema, type QueueOptions } from './options.js';
export { planQueueQuery, type QueuePlan } from './plan.js';
export { parseTimestamp } from './series.js';

/**
 * The queue collector: plans the request (queues/plan.ts), fetches the list one vhost at a
 * time (queues/fetch.ts), writes per-queue series from the field tables (queues/tables.ts,
 * queues/series.ts) and the per-vhost aggregates (queues/aggregates.ts); the statistics of the
 * polls that fetch them are served again by the counts-only polls between (queues/stats-tier.ts).
 */
export const queuesCollector: Collector<QueueOptions> = {
  name: 'queues',
  description:
    'GET /api/queues, or /api/queues/{vhost} per vhost (with /api/vhosts?columns=name to list them): with statistics (only the needed columns; /api/queues/detailed on 3.13+ when configured) every stats_every polls, and counts only (disable_stats=true&enable_queue_totals=true) with GET /api/consumers?columns=queue for the consumer counts on the polls between, or always when only counts are available or wanted.',
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  optionsSchema: queueOptionsSchema,
  metrics: metricsOf(M, quorumMetrics, familyMetrics),
  expectedSeries: expectedQueueSeries,
  async collect(ctx) {
    const { options, sink } = ctx;
    const tier = QueueStatsTier.in(ctx.carryOver);
    // Fields the naming profile reads into labels (none under the native names).
    const labelFields = sink.labelFields(queuesCollector.metrics);
    const plan = planQueueQuery(ctx, tier.due(options.stats_every), labelFields);
    // Fields a counts-only list may lack (3.10's has no policy, node or effective_policy_definition):
    // those of the last statistics poll stand in, so labels and limits do not change from poll to poll.
    const heldFields = options.limits || options.signals ? [...labelFields, 'effective_policy_definition'] : labelFields;
    const signals = options.signals ? QueueSignals.in(ctx.carryOver) : undefined;
    const deadLetters = options.signals ? DeadLetterTargets.in(ctx.carryOver) : undefined;
    const signalSettings = { window: options.signals_window, stuckAfter: options.stuck_after };
    // Statistics switched off on the broker since they were fetched: none will come to refresh them.
    if (ctx.broker.statisticsDisabled) {
      tier.clear();
      signals?.forgetStats();
      QueueFamilies.forgetStats(ctx.carryOver);
    }
    // A poll that fetches the statistics records them for the counts-only polls that follow.
    const recorder = plan.mode === 'totals' ? undefined : tier.recorder(sink, STATS_DEFS, options.stats_every);
    const writer: BlockWriter = recorder ?? sink;
    const consumerCounts = plan.consumerCounts ? await fetchConsumerCounts(ctx.api) : undefined;
    if (plan.consumerCounts && !consumerCounts) {
      const served = options.mode === 'totals' ? 'are not served (mode totals fetches no statistics)' : 'are served only by the polls that fetch statistics';
      warnOnce(ctx, 'no-consumers', {}, `/api/consumers answered 404: per-queue consumer counts ${served}`);
    }
    const vhostFilter = new NameFilter(options.vhosts);
    // A sharded replica asks only for its own vhosts' queues (when it asks per vhost).
    const watched = (vhost: string) => vhostFilter.matches(vhost) && (ctx.share?.ownsVhost(vhost) ?? true);
    const selection = new QueueSelection(options, RankingMemory.in(ctx.carryOver), plan.mode !== 'totals');
    const counters = MonotonicCounters.in(ctx.carryOver);
    const blocks = QueueLabelBlocks.in(ctx.carryOver);
    const rates = rateSelection(options.rates);
    const withDetails = plan.mode !== 'totals' && options.details;
    // Each shard counts its own vhosts' queues: together they count every queue.
    const aggregates = new QueueAggregates(vhostFilter.matchesEvery && !options.filter_on_broker);
    const placement = options.quorum_placement ? new QuorumPlacement() : undefined;
    const families = options.families ? QueueFamilies.in(ctx.carryOver, options.families, recorder !== undefined) : undefined;
    const reader = new VhostReader(ctx, 'queues', { what: 'queues', vhostsSetting: 'collectors.queues.vhosts', timeoutMs: options.vhost_timeout });
    const list = await openQueueList(ctx.api, plan, watched, options, sink, reader);
    // One time for the poll: the signals' points of one poll share it, as the statistics tier's age does.
    const pollTime = performance.now();
    const serve = (queue: QueueRecord) => {
      // Rendered when the queue was first seen; its series are written from it (SampleSink.addToBlock).
      const queueBlocks = blocks.of(queue);
      if (!queueBlocks) {
        sink.drop('duplicate');
        return;
      }
      const block = queueBlocks.series;
      if (heldFields.length > 0) {
        if (recorder) recorder.keepFields(block.text, queue, heldFields);
        else tier.fillFields(block.text, queue, heldFields);
      }
      for (const table of plan.tables) emitRecordToBlock(writer, table, queue, block, { rates, counters });
      emitQueueState(writer, queue, block, withDetails);
      if (!recorder) tier.replay(sink, block, queue);
      if (options.info) emitQueueInfo(sink, queue, queueBlocks);
      if (options.limits) emitQueueLimits(sink, queue, block);
      signals?.observe(sink, writer, block, queue, pollTime, recorder !== undefined, signalSettings);
    };
    // One vhost's answer at a time, in vhost order: only the answers in flight are held in memory.
    // Taken a whole answer at a time: a step of an async iterator per queue cost ~1 µs (~100 ms a poll at 100,000).
    for await (const answer of list.records) {
      await eachInTurns(answer, (queue) => {
        const vhost = queue.vhost as string;
        if (!list.perVhost && !watched(vhost)) return;
        if (consumerCounts) queue.consumers = consumerCounts.get(`${vhost}\u0000${queue.name as string}`) ?? 0;
        if (recorder) recorder.keepStreamCounts(queue);
        else tier.fillStreamCounts(queue);
        aggregates.add(queue);
        deadLetters?.note(queue);
        placement?.add(queue);
        // A family with per_queue off is served by its roll-ups only.
        if (families?.add(queue)?.perQueue === false) return;
        if (selection.offer(queue)) serve(queue);
      });
    }
    // The cap's choice by rank is known only now that every queue was seen.
    await eachInTurns(selection.chosen(), serve);
    selection.commit();
    if (signals) {
      signals.commit(vhostLabelPrefixes(reader.unread));
      signals.emitPerVhost(sink);
    }
    if (deadLetters) await refreshDeadLetters(ctx, deadLetters, pollTime);
    // Counters are read only from the statistics list: between its polls they keep their state.
    if (recorder) counters.commit(vhostLabelPrefixes(reader.unread));
    await blocks.commit(reader.unread);
    await aggregates.emit(sink, recorder ? undefined : tier.heldSums);
    families?.emit(sink, reader.unread);
    if (placement) await emitQuorumPlacement(ctx, placement);
    // The age served is measured on the monotonic clock: a wall-clock step does not make it jump.
    const now = performance.now();
    tier.commit(now, recorder ? { recorder, sums: aggregates.statsSums(), unread: reader.unread } : undefined);
    const age = tier.ageSeconds(now);
    if (age !== undefined) sink.add(M.statisticsAge, [], age);
    sink.add(M.seriesFiltered, [], selection.filtered);
    sink.add(M.seriesCapped, [], selection.capped);
    sink.add(M.query, { mode: plan.mode, per_vhost: String(list.perVhost), paged: String(plan.pageSize > 0) }, 1);
    sink.add(M.degraded, [], plan.degraded ? 1 : 0);
    if (selection.capped > 0) warnOnce(ctx, 'capped', { capped: selection.capped, max_queues: options.max_queues, rank_by: options.rank_by }, 'per-queue series capped by collectors.queues.max_queues');
    if (plan.degraded) warnOnce(ctx, 'degraded', {}, 'the broker has statistics disabled: queue series are limited to message counts');
    // Last: the series of vhosts that could not be read are served from the last poll where this one did not write.
    reader.finish();
  },
};

/** A failed read of the bindings keeps the targets found last: it does not fail the queue poll. */
async function refreshDeadLetters(ctx: CollectContext<QueueOptions>, deadLetters: DeadLetterTargets, now: number): Promise<void> {
  try {
    await deadLetters.refresh(ctx.api, ctx.options.stats_every || 4, now);
  } catch (error) {
    warnOnce(ctx, 'dead-letter-bindings', { err: error instanceof Error ? error.message : String(error) }, 'could not read the bindings of the dead-letter exchanges: serving the dead-letter targets found last');
  }
  deadLetters.emit(ctx.sink);
}

function warnOnce(ctx: Pick<CollectContext<QueueOptions>, 'log' | 'carryOver'>, key: string, fields: Record<string, unknown>, message: string): void {
  logOnce(ctx, 'warn', key, fields, message);
}
