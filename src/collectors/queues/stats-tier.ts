import type { MetricDef } from '../../model/metric-def.js';
import { type BlockWriter, type LabelBlock, renderLabels, toSampleValue } from '../../exposition/sample-sink.js';
import { carried } from '../kit/carried.js';
import { PollCadence } from '../kit/poll-cadence.js';
import { HeldSamples } from './held-samples.js';

/** A queue's fields some labels are read from, as the last statistics list had them. */
type HeldFields = Record<string, unknown>;

/**
 * The counts a stream's record has only in the statistics list: the counts-only list (3.10 and
 * 4.x) leaves them out, so without them a stream's series and its share of the per-vhost sums
 * would come and go with the statistics polls.
 */
const STREAM_COUNT_FIELDS = ['messages', 'messages_ready', 'messages_unacknowledged', 'members', 'online'];
const streamKey = (record: Record<string, unknown>) => (record.type === 'stream' ? `${record.vhost as string}\u0000${record.name as string}` : undefined);

/** Sums of the per-vhost-and-type aggregates that only the statistics list carries. */
export type StatsSums = Map<string, { bytes?: number; memory?: number }>;

/**
 * The per-queue statistics tier of the queue collector. The list with statistics costs the broker
 * several times the counts-only list, so it is fetched every `stats_every` polls (poll-cadence.ts); the polls
 * between ask for counts only and serve the statistics of the last poll that fetched them, as
 * they were: counters keep their value (never 0, never a made-up increase), so rate() over a
 * window longer than the statistics interval sees each step once. Their age is served too
 * (rabbitmq_queue_statistics_age_seconds). A queue that is gone is not served again; a new one
 * has no statistics until the next statistics poll. Likewise the fields a naming profile reads
 * into labels (a queue's policy and node) where the counts-only list lacks them (a stream's node,
 * on 3.10 a quorum queue's): their values of the last statistics poll, so a series keeps its labels.
 */
export class QueueStatsTier {
  private readonly cadence = new PollCadence();
  private samples = new HeldSamples();
  /** False after a statistics poll that held no samples (stats_every 1): a counts-only poll would have none to serve. */
  private samplesHeld = true;
  private fields = new Map<string, HeldFields>();
  private streamCounts = new Map<string, HeldFields>();
  private sums: StatsSums = new Map();

  static in(carryOver: Map<string, unknown>): QueueStatsTier {
    const tier = carried(carryOver, 'stats-tier', () => new QueueStatsTier());
    return tier;
  }

  /** Whether this poll fetches the statistics: the first, and then every `every` polls (0: never). */
  due(every: number): boolean {
    return this.cadence.due(every) || (every > 0 && !this.samplesHeld);
  }

  /** Seconds between the fetch of the statistics held and `now`; undefined when none are held. */
  ageSeconds(now: number): number | undefined {
    return this.cadence.ageSeconds(now);
  }

  /** Writes the held statistics of one queue (its label block; `record`: its record of this poll) again. */
  replay(sink: BlockWriter, block: LabelBlock, record: object): void {
    this.samples.replay(block.text, (def, value) => sink.addToBlock(def, block, value, record));
  }

  /** Gives `record` the held values of the fields among `names` it lacks (rendered labels of its queue). */
  fillFields(labels: string, record: Record<string, unknown>, names: readonly string[]): void {
    const held = this.fields.get(labels);
    if (!held) return;
    for (const name of names) if (record[name] === undefined && held[name] !== undefined) record[name] = held[name];
  }

  /** A counts-only poll: gives a stream's record the counts of the last statistics list (see STREAM_COUNT_FIELDS). */
  fillStreamCounts(record: Record<string, unknown>): void {
    const key = streamKey(record);
    const held = key === undefined ? undefined : this.streamCounts.get(key);
    if (held) for (const name of STREAM_COUNT_FIELDS) if (record[name] === undefined && held[name] !== undefined) record[name] = held[name];
  }

  get heldSums(): StatsSums {
    return this.sums;
  }

  /**
   * A poll that fetched the statistics: records them as they are written, kept once it ends well.
   * With `every` 1 no counts-only poll follows to serve them, so none are held: at 100,000 queues
   * they were ~12 MB of values held, and as much again recorded during each poll.
   */
  recorder(sink: BlockWriter, statsDefs: ReadonlySet<MetricDef>, every: number): StatsRecorder {
    return new StatsRecorder(sink, statsDefs, every === 1 ? undefined : this.samples.sizes);
  }

  /**
   * Ends a successful poll; `fetched` is the recorder of a statistics poll. What is held of the
   * vhosts in `unread` (not read this poll: see vhost-lists.ts) stays held, for when they answer again.
   */
  commit(now: number, fetched?: { recorder: StatsRecorder; sums: StatsSums; unread?: ReadonlySet<string> }): void {
    if (fetched) {
      const unread = [...(fetched.unread ?? [])];
      const byLabels = vhostLabelPrefixes(unread);
      const byKey = unread.map((vhost) => `${vhost}\u0000`);
      const recorded = fetched.recorder.samples;
      recorded?.keepFrom(this.samples, byLabels);
      recorded?.trim();
      this.samples = recorded ?? new HeldSamples();
      this.samplesHeld = recorded !== undefined;
      this.fields = keepHeld(fetched.recorder.fields, this.fields, byLabels);
      this.streamCounts = keepHeld(fetched.recorder.streamCounts, this.streamCounts, byKey);
      this.sums = keepHeld(fetched.sums, this.sums, byKey);
    }
    this.cadence.commit(now, fetched !== undefined);
  }

  /** Statistics switched off: nothing is held or served any more. */
  clear(): void {
    this.cadence.reset();
    this.samples = new HeldSamples();
    this.samplesHeld = true;
    this.fields = new Map();
    this.streamCounts = new Map();
    this.sums = new Map();
  }
}

/** How the rendered labels of a queue of each vhost begin (`{vhost="x",`): what it holds of a vhost. */
export function vhostLabelPrefixes(vhosts: Iterable<string>): string[] {
  return [...vhosts].map((vhost) => `${renderLabels(['vhost'], [vhost]).slice(0, -1)},`);
}

/** `fresh`, plus the entries of `held` whose key starts with one of `prefixes` that `fresh` lacks. */
function keepHeld<V>(fresh: Map<string, V>, held: ReadonlyMap<string, V>, prefixes: readonly string[]): Map<string, V> {
  if (prefixes.length === 0) return fresh;
  for (const [key, value] of held) if (!fresh.has(key) && prefixes.some((prefix) => key.startsWith(prefix))) fresh.set(key, value);
  return fresh;
}

/** Passes samples on to the sink and keeps those of the statistics tier, per queue. */
export class StatsRecorder implements BlockWriter {
  /** Undefined when none are held (see QueueStatsTier.recorder). */
  readonly samples: HeldSamples | undefined;
  readonly fields = new Map<string, HeldFields>();
  readonly streamCounts = new Map<string, HeldFields>();
  constructor(
    private readonly sink: BlockWriter,
    private readonly statsDefs: ReadonlySet<MetricDef>,
    /** The last poll's counts of values and queues (room for as many is made at once); undefined: hold none. */
    expected: { values: number; entries: number } | undefined,
  ) {
    this.samples = expected && new HeldSamples(expected);
  }

  /** Keeps a stream's counts for the counts-only polls that follow (fillStreamCounts). */
  keepStreamCounts(record: Record<string, unknown>): void {
    const key = streamKey(record);
    if (key === undefined) return;
    const held: HeldFields = {};
    for (const name of STREAM_COUNT_FIELDS) if (record[name] !== undefined) held[name] = record[name];
    this.streamCounts.set(key, held);
  }

  /** Keeps the fields among `names` that `record` has (rendered labels of its queue), for fillFields. */
  keepFields(labels: string, record: Record<string, unknown>, names: readonly string[]): void {
    const held: HeldFields = {};
    for (const name of names) if (record[name] !== undefined) held[name] = record[name];
    this.fields.set(labels, held);
  }

  addToBlock(def: MetricDef, block: LabelBlock, raw: unknown, record?: object): boolean {
    const written = this.sink.addToBlock(def, block, raw, record);
    if (written && this.samples && this.statsDefs.has(def)) this.samples.add(block.text, def, toSampleValue(raw)!);
    return written;
  }
}
