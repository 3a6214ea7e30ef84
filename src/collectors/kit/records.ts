import type { MetricDef } from '../../model/metric-def.js';
import type { DropCounter, SampleSink } from '../../exposition/sample-sink.js';
import type { CollectContext } from './collector.js';
import { getRemembered, jsonList, type OptionalEndpoint, type Part, part } from './optional-requests.js';
import { addDefined, type SummedField, Tally } from './tally.js';
import { Turns } from '../../broker/turns.js';

/**
 * Helpers for answers that are lists of records (docs/architecture.md, "How do I add a collector?"):
 * what is requested (ListRequest, or paging.ts for long lists), which records count (uniqueRecords), which rows each record gives
 * (`each`: catalogue rows, field tables via emitRecord) and which aggregations (Aggregation).
 */

export type ApiRecord = Record<string, unknown>;

/**
 * Families aggregated over records, per group: one sample per group and family, written group by
 * group in the order of `families`. A family without `sum` counts the group's records; with it,
 * it sums that field (a dot path) over the records that have a number there; one none had has no
 * sample, never a 0. A count without labels is served even when 0.
 */
export interface Aggregation {
  /** The group's label values (those of its families), or undefined: the record is left out. */
  readonly group: (record: ApiRecord) => readonly string[] | undefined;
  readonly families: readonly { readonly metric: MetricDef; readonly sum?: string }[];
}

/**
 * One request of a poll whose answer is a JSON list, as data: what is asked, what an absent or
 * refused answer means, which records are one object, and which samples each record and each
 * group of records gives. listPart makes it a part of a poll (collectParts): parts fail or succeed on their own.
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
  /** Families aggregated per group, written after every record's samples. */
  readonly aggregations?: readonly Aggregation[];
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
    async (records) => {
      if (records !== undefined) await emitList(ctx, request, records);
    },
  );
}

async function emitList(ctx: CollectContext<unknown>, request: ListRequest, records: readonly ApiRecord[]): Promise<void> {
  const unique = await uniqueRecordsInTurns(records, request.identity, ctx.sink, request.prefer);
  if (request.each) {
    const turns = new Turns();
    for (const record of unique) {
      await turns.maybeYield();
      request.each(record);
    }
  }
  if (request.aggregations) await aggregate(ctx.sink, unique, request.aggregations);
}

/** The `columns=` the sums read: each field, or for a rate (`x_details.rate`) its `x_details`. */
export function sumColumns(aggregations: readonly Aggregation[]): string[] {
  return aggregations.flatMap(({ families }) => families.flatMap(({ sum }) => (sum === undefined ? [] : [sum.replace(/(_details)\.rate$/, '$1')])));
}

/**
 * Writes the aggregations over `records` (see Aggregation). The event loop gets a turn every few
 * milliseconds (Turns): 100,000 channels held it for 0.85 s in one go.
 */
export async function aggregate(sink: SampleSink, records: Iterable<ApiRecord>, aggregations: readonly Aggregation[]): Promise<void> {
  const summed: SummedField[][] = aggregations.map(({ families }) => families.flatMap(({ sum }) => (sum === undefined ? [] : [{ name: sum, path: sum.split('.') }])));
  const tallies = aggregations.map(() => new Tally());
  const turns = new Turns();
  for (const record of records) {
    await turns.maybeYield();
    for (let i = 0; i < aggregations.length; i++) {
      const labels = aggregations[i]!.group(record);
      if (labels) tallies[i]!.addFields(labels, record, summed[i]!);
    }
  }
  for (const [i, { families }] of aggregations.entries()) {
    const tally = tallies[i] as Tally;
    for (const { metric, sum } of families) if (sum === undefined && metric.labels.length === 0 && tally.size === 0) sink.add(metric, [], 0);
    for (const group of tally) {
      await turns.maybeYield();
      for (const { metric, sum } of families) {
        if (sum === undefined) sink.add(metric, group.labels, group.count);
        else addDefined(sink, metric, group.labels, group.sum(sum));
      }
    }
    sink.skipped += tally.skipped;
  }
}

/** Which records of a list are one object each: see ListRequest's identity and prefer. */
class UniqueRecords<R> {
  private readonly unique = new Map<string, R>();

  constructor(
    private readonly identity: (record: R) => string | undefined,
    private readonly drops: DropCounter,
    private readonly prefer?: (candidate: R, kept: R) => boolean,
  ) {}

  offer(record: R): void {
    const id = this.identity(record);
    if (id === undefined) {
      this.drops.drop('no_name');
      return;
    }
    const kept = this.unique.get(id);
    if (kept === undefined || this.prefer?.(record, kept)) this.unique.set(id, record);
    else if (!this.prefer) this.drops.drop('duplicate');
  }

  values(): IterableIterator<R> {
    return this.unique.values();
  }
}

/** Each object of a list once, in the order first listed: see ListRequest's identity and prefer. */
export function uniqueRecords<R>(
  records: Iterable<R>,
  identity: (record: R) => string | undefined,
  drops: DropCounter,
  prefer?: (candidate: R, kept: R) => boolean,
): IterableIterator<R> {
  const unique = new UniqueRecords(identity, drops, prefer);
  for (const record of records) unique.offer(record);
  return unique.values();
}

/** uniqueRecords() for lists that may be long (channels, vhosts): the event loop gets a turn every few milliseconds. */
export async function uniqueRecordsInTurns<R>(
  records: Iterable<R>,
  identity: (record: R) => string | undefined,
  drops: DropCounter,
  prefer?: (candidate: R, kept: R) => boolean,
): Promise<R[]> {
  const unique = new UniqueRecords(identity, drops, prefer);
  const turns = new Turns();
  for (const record of records) {
    await turns.maybeYield();
    unique.offer(record);
  }
  return [...unique.values()];
}

/** The states of a state set (one series each, 1 for the current one): the known ones, and the current one if it is not. */
export function statesWith(known: readonly string[], current: string): readonly string[] {
  return known.includes(current) ? known : [...known, current];
}
