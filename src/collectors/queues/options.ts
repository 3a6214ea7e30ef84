import { z } from 'zod';
import { nameFilterSchema } from '../kit/name-filter.js';
import { ratesOptionSchema } from '../kit/rates-option.js';
import { vhostTimeoutSchema } from '../kit/vhost-lists.js';
import { familiesOptionSchema } from './family-rules.js';

/** How `max_queues` chooses the queues with per-queue series when there are more. */
export const RANKINGS = ['backlog', 'growth', 'publish_rate', 'none'] as const;
export type Ranking = (typeof RANKINGS)[number];

/** `collectors.queues` in the config file. */
export const queueOptionsSchema = z.strictObject({
  /**
   * How to ask: auto (the cheapest that yields the enabled metrics: totals when the broker has
   * statistics off or only counts are wanted, else columns), columns (only the fields needed),
   * totals (disable_stats=true&enable_queue_totals=true: counts and metadata only), full
   * (everything), detailed (/api/queues/detailed, 3.13+).
   */
  mode: z.enum(['auto', 'columns', 'totals', 'full', 'detailed']).default('auto'),
  /**
   * Per-queue statistics (details, message_stats, rates) every this many polls, from the list
   * with statistics (several times the broker's cost of the counts-only list); the polls between
   * ask for counts only, take consumers from /api/consumers, and serve the statistics of the
   * last poll that fetched them (their age: rabbitmq_queue_statistics_age_seconds). 1: every
   * poll; 0: never (counts, consumers and metadata only).
   */
  stats_every: z.number().int().min(0).default(4),
  /** Bytes, RAM/persistent splits, consumers, utilisation, memory, head timestamp, idle since, members. */
  details: z.boolean().default(true),
  /** message_stats counters (publish, deliver, ack, ...). */
  message_stats: z.boolean().default(true),
  /** `_details.rate` gauges: false, true, or a list of fields such as ["messages", "message_stats.publish"]. */
  rates: ratesOptionSchema(false),
  /** One request per vhost (auto: when there is more than one vhost to watch). */
  per_vhost: z.union([z.boolean(), z.literal('auto')]).default('auto'),
  /** With more vhosts than this to watch, one request for the whole list instead of one per vhost. */
  per_vhost_max: z.number().int().min(1).default(100),
  /** Asked per vhost: deadline of one vhost's request, from when it is sent (default: a third of the poll's timeout). */
  vhost_timeout: vhostTimeoutSchema,
  /** 0: whole lists. Else page size (at most 500): each page costs the broker about one whole list. */
  page_size: z.number().int().min(0).max(500).default(0),
  vhosts: nameFilterSchema,
  queues: nameFilterSchema,
  /** Send queues.include to the broker (name + use_regex; forces paging). Aggregates then cover only matching queues. */
  filter_on_broker: z.boolean().default(false),
  skip_exclusive: z.boolean().default(false),
  skip_auto_delete: z.boolean().default(false),
  /** Most queues with per-queue series on this target; 0 is no cap. Aggregates always cover all. */
  max_queues: z.number().int().min(0).default(0),
  /**
   * Which queues the cap keeps: the highest backlog (messages), the fastest growth of the backlog
   * since the last poll, the highest publish rate (from the last statistics poll), or none (the
   * first listed).
   */
  rank_by: z.enum(RANKINGS).default('backlog'),
  /** Queues served whatever the cap, not counted in it ([] or {}: none). */
  always_serve: nameFilterSchema,
  /** Serve rabbitmq_queue_info. */
  info: z.boolean().default(true),
  /**
   * Serve each queue's effective length limits (rabbitmq_queue_max_length_messages, _bytes): the
   * smaller of its argument and its policies' limit, for queues that have one. Asks for the
   * queues' arguments and effective_policy_definition.
   */
  limits: z.boolean().default(false),
  /**
   * Serve the signals computed from the last polls (docs/signals.md): estimated wait, seconds
   * without progress, stuck consumers, dead-letter targets, fill of the length limits and time
   * to full. Asks for the queues' arguments and effective_policy_definition, and the bindings of
   * the exchanges that are some queue's dead-letter exchange every stats_every polls.
   */
  signals: z.boolean().default(false),
  /** How many polls (statistics polls for counter-based signals) the rates of the signals span. */
  signals_window: z.number().int().min(2).default(5),
  /** Statistics polls in a row with unacknowledged messages and no ack before a queue's consumers count as stuck. */
  stuck_after: z.number().int().min(1).default(3),
  /**
   * Serve quorum queue placement and health (queues/quorum-placement.ts): leaders and replicas
   * per node, queues below quorum, queues below their target size. Asks for the queues' leader,
   * members, online and arguments, and GET /api/nodes?columns=name once a poll.
   */
  quorum_placement: z.boolean().default(false),
  /** quorum_placement: the target size of a quorum queue declared without x-quorum-initial-group-size (the broker's quorum_cluster_size, not shown by the API). */
  quorum_target_size: z.number().int().min(1).default(3),
  /**
   * Roll-ups by family (docs/queues.md, "Families"): named regular expressions and a suffix rule
   * put queues in families, served per vhost and family; queues counted by depth per vhost; a
   * family's per-queue series may be left out. Absent: none.
   */
  families: familiesOptionSchema,
});

export type QueueOptions = z.infer<typeof queueOptionsSchema>;
/** One queue as the API lists it. */
export type QueueRecord = Record<string, unknown>;
/** How the list is asked for (auto resolved). */
export type Mode = 'columns' | 'totals' | 'full' | 'detailed';

/** A queue state in which it serves its clients. */
export const RUNNING_STATES: ReadonlySet<string> = new Set(['running', 'live', 'idle', 'flow']);
