import type { MetricDef } from '../metrics/metric-def.js';
import type { DropCounter } from '../render/sample-sink.js';
import type { CollectContext } from './collector.js';
import { getRemembered, jsonList, type OptionalEndpoint, type Part, part } from './optional-requests.js';
import { Tally } from './tally.js';

export type ApiRecord = Record<string, unknown>;

/** A family counted over a list: one sample per group of records, its value the group's size. */
export interface Count {
  readonly metric: MetricDef;
  /** The record's label values for `metric`, or undefined when it is not counted. */
  readonly group: (record: ApiRecord) => readonly string[] | undefined;
}

/**
 * One request of a poll whose answer is a JSON list, as data: what is asked, what an absent or
 * refused answer means, which records are one object, and which samples each record and each
 * group of records gives. Run with collectLists; parts of a poll fail or succeed on their own.
 */
export interface ListRequest {
  /** Names the request in the log when it fails (default: its path). */
  readonly name?: string;
  readonly path: string;
  readonly query?: Record<string, string | number | boolean>;
  /** Set when the path may be absent (plugin off, older broker) or refused; unset, it must answer. */
  readonly optional?: Omit<OptionalEndpoint, 'path' | 'query'>;
  /** What makes two records one object; undefined: the record has no name and is dropped (`no_name`). */
  readonly identity: (record: ApiRecord) => string | undefined;
  /**
   * Which of two records of one object is kept, when several nodes may report it (true: `candidate`
   * replaces `kept`); nothing is dropped then. Unset: the first is kept, repeats are dropped (`duplicate`).
   */
  readonly prefer?: (candidate: ApiRecord, kept: ApiRecord) => boolean;
  /** Writes the samples of one record (each object once). */
  readonly each?: (record: ApiRecord) => void;
  /** Families counted per group, written after every record's samples. A count without labels is served even when 0. */
  readonly counts?: readonly Count[];
}

/** The request as a part of a poll (see collectParts): its records become samples once every part has answered. */
export function listPart(ctx: CollectContext<unknown>, request: ListRequest): Part {
  return part(
    request.name ?? request.path,
    async () => {
      const { path, query, optional } = request;
      const answer = optional ? await getRemembered(ctx, { path, ...(query ? { query } : {}), ...optional }) : { ok: true, body: await ctx.api.get(path, query) };
      return answer.ok ? jsonList<ApiRecord>(answer.body, path) : undefined;
    },
    (records) => {
      if (records !== undefined) emitList(ctx, request, records);
    },
  );
}

function emitList(ctx: CollectContext<unknown>, request: ListRequest, records: readonly ApiRecord[]): void {
  const { sink } = ctx;
  const tallies = (request.counts ?? []).map(() => new Tally());
  for (const record of uniqueRecords(records, request.identity, sink, request.prefer)) {
    request.each?.(record);
    request.counts?.forEach((count, i) => {
      const labels = count.group(record);
      if (labels) tallies[i]?.add(labels);
    });
  }
  request.counts?.forEach(({ metric }, i) => {
    const tally = tallies[i] as Tally;
    if (metric.labels.length === 0 && tally.size === 0) sink.add(metric, [], 0);
    for (const group of tally) sink.add(metric, group.labels, group.count);
  });
}

/** Each object of a list once, in the order first listed: see ListRequest's identity and prefer. */
export function uniqueRecords<R>(
  records: Iterable<R>,
  identity: (record: R) => string | undefined,
  drops: DropCounter,
  prefer?: (candidate: R, kept: R) => boolean,
): IterableIterator<R> {
  const unique = new Map<string, R>();
  for (const record of records) {
    const id = identity(record);
    if (id === undefined) {
      drops.drop('no_name');
      continue;
    }
    const kept = unique.get(id);
    if (kept === undefined || prefer?.(record, kept)) unique.set(id, record);
    else if (!prefer) drops.drop('duplicate');
  }
  return unique.values();
}

/** The states of a state set (one series each, 1 for the current one): the known ones, and the current one if it is not. */
export function statesWith(known: readonly string[], current: string): readonly string[] {
  return known.includes(current) ? known : [...known, current];
}
