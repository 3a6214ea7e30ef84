import { CHUNK_SAMPLES, chunkLines } from './block-chunks.js';
import type { LabelBlock } from './label-block.js';
import type { MetricDef } from '../model/metric-def.js';
import { isPerValue, labelFieldsRead, type ProfiledFamily } from './naming-profile.js';
import { Relabeling, scaledValue, type SinkProfile } from './relabeling.js';
import { type BodyChunk, chunkText, escapeLabelValue, type FamilyHeader, formatValue, renderLabels, type RenderedFamily } from './text-format.js';
import { ownedCopy } from './owned-bytes.js';

export type { SinkProfile } from './relabeling.js';
// What a collector needs of the byte path besides the sink, handed on so that the sink is its one door.
export { LabelBlock } from './label-block.js';
export { renderLabels, type RenderedFamily } from './text-format.js';

/**
 * Lines of one family, written as bytes straight into FLUSH_BYTES-sized buffers as they come
 * (joining line strings first and encoding the join cost more than the rest of the sink (docs/development.md, "The byte path, measured")). Samples
 * of label blocks (a queue's) come in chunks of CHUNK_SAMPLES, each kept deflated on its own: the previous
 * poll's when none of the chunk's samples changed (see block-chunks.ts).
 */
class FamilyLines {
  readonly chunks: BodyChunk[] = [];
  private buffer: Buffer | undefined;
  private used = 0;
  count = 0;
  /** The block samples of the chunk being gathered, in order. */
  private readonly blocks: LabelBlock[] = [];
  private readonly values: number[] = [];

  constructor(readonly def: MetricDef) {}

  push(line: string): void {
    this.closeChunk();
    // A UTF-16 code unit takes at most 3 bytes in UTF-8: room for that, or a fresh buffer.
    this.makeRoom(line.length * 3);
    this.used += this.buffer!.write(line, this.used, 'utf8');
    this.count++;
  }

  /** A sample of a label block: rendered with the rest of its chunk. */
  pushBlock(block: LabelBlock, value: number): void {
    this.blocks.push(block);
    this.values.push(value);
    this.count++;
    if (this.blocks.length === CHUNK_SAMPLES) this.closeChunk();
  }

  private closeChunk(): void {
    if (this.blocks.length === 0) return;
    const lines = chunkLines(this.def, this.blocks, this.values);
    // The same two arrays for every chunk of the family (chunkLines keeps copies): a new pair per
    // chunk, alive while 256 queues were read, outlived the young generation at 100,000 queues.
    this.blocks.length = 0;
    this.values.length = 0;
    // Served as they are: an unchanged chunk is one copy shared by this exposition, the previous one and the next poll.
    this.flushBuffer();
    this.chunks.push(lines);
  }

  private makeRoom(bytes: number): void {
    if (this.buffer === undefined || this.buffer.length - this.used < bytes) {
      this.flushBuffer();
      this.buffer = Buffer.allocUnsafe(Math.max(FLUSH_BYTES, bytes));
    }
  }

  flush(): void {
    this.closeChunk();
    this.flushBuffer();
  }

  private flushBuffer(): void {
    if (this.buffer === undefined || this.used === 0) return;
    const bytes = this.buffer.subarray(0, this.used);
    // A mostly empty buffer (a small family) is copied, not kept whole behind its few bytes.
    this.chunks.push(this.used * 2 < this.buffer.length ? ownedCopy(bytes) : bytes);
    this.buffer = undefined;
    this.used = 0;
  }
}

/**
 * Why a collector left something of the broker's answer out (rabbitmq_exporter_collector_dropped_objects):
 * - `no_name`: a listed object without a usable name (absent, null, empty or not a string), or
 *   an item that is not an object at all;
 * - `duplicate`: an object listed twice (same identity), or a series written twice in one poll
 *   (same family and labels): the first is kept.
 */
export const DROP_REASONS = ['no_name', 'duplicate'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Where list helpers report what they left out (a SampleSink). */
export interface DropCounter {
  drop(reason: DropReason, count?: number): void;
}

/**
 * What a family-table emitter writes to: a SampleSink, or something that passes samples on to one.
 * `record`: the broker's record the sample was read from, for a naming profile whose labels read
 * its fields (see labelFields()); collectors pass it wherever they have one.
 */
export interface SampleWriter {
  addRendered(def: MetricDef, renderedLabels: string, raw: unknown, record?: object): boolean;
}

/**
 * What a per-object emitter writes to (the queue collector's hot path): the sink, or something
 * that passes samples on to it. The object's labels come as its LabelBlock, rendered once.
 */
export interface BlockWriter {
  addToBlock(def: MetricDef, block: LabelBlock, raw: unknown, record?: object): boolean;
}

/**
 * A series' label values: by name (`{ vhost, queue }`, any order, every label of the family
 * given), or as a list in the family's label order.
 */
export type LabelValues = readonly string[] | Readonly<Record<string, string>>;

/** One series of a histogram: cumulative counts by upper bound, in order, then its count and sum. */
export interface HistogramSeries {
  readonly buckets: readonly (readonly [le: string, count: number])[];
  readonly count: number;
  readonly sum: number;
}

/** The values in the family's label order; a clear error when one is missing or unknown. */
export function orderedLabelValues(def: MetricDef, labels: LabelValues): readonly string[] {
  if (isList(labels)) {
    if (labels.length !== def.labels.length) {
      throw new Error(`${def.name} takes ${def.labels.length} label values, got ${labels.length}`);
    }
    return labels;
  }
  // One pass when all is well (an _info series per queue goes through here); details on error.
  const values = def.labels.map((name) => labels[name]);
  if (values.every((value) => typeof value === 'string') && Object.keys(labels).length === def.labels.length) return values as string[];
  const missing = def.labels.filter((name) => typeof labels[name] !== 'string');
  const unknown = Object.keys(labels).filter((name) => !def.labels.includes(name));
  const wrong = [...missing.map((name) => `${name} missing`), ...unknown.map((name) => `${name} unknown`)].join(', ');
  throw new Error(`${def.name} takes the labels ${def.labels.join(', ')}: ${wrong}`);
}

function isList(labels: LabelValues): labels is readonly string[] {
  return Array.isArray(labels);
}

/** Which series a sink keeps: another shard's are left out (see src/model/shard-assignment.ts). */
export interface SeriesScope {
  /** `vhost`: the series' vhost label, undefined when its family has none. */
  keeps(vhost: string | undefined): boolean;
}

/** A poll of 10k queues renders ~20 MB: held as bytes, not as hundreds of thousands of strings. */
const FLUSH_BYTES = 64 * 1024;

/**
 * Where a collector writes its samples during one poll. Lines are rendered as they are
 * added, so a poll never holds an object per sample; `finish()` hands over the families.
 */
export class SampleSink implements DropCounter, SampleWriter, BlockWriter {
  private readonly lines = new Map<MetricDef, FamilyLines>();
  /**
   * Which families each rendered label set was written to in this poll, so that no series is
   * served twice: a bit per family (by its index in `families`). Keyed by label set rather than
   * by series because a record's families share one rendered string: a key per queue's label set,
   * not one per series, a fifth of the heap (docs/development.md, "The byte path, measured").
   */
  private readonly written = new Map<string, number[]>();
  private readonly families = new Map<MetricDef, number>();
  /** Values that were absent, null or not numbers: skipped, not served as 0. */
  skipped = 0;
  /** What was left out, by reason; every reason is present, 0 when nothing was. */
  readonly dropped = new Map<DropReason, number>(DROP_REASONS.map((reason) => [reason, 0]));

  /** Another shard's series (with `scope`): left out, counted nowhere else. */
  outOfScope = 0;
  /** The last rendered label set looked at and whether it was kept: a record's families share it. */
  private lastRendered: string | undefined;
  private lastKept = true;

  /** The block of the last addToBlock, and whether the scope keeps its series. */
  private currentBlock: LabelBlock | undefined;
  private currentBlockKept = true;
  /**
   * The families of the last block's samples, in the order they came: the next block's come in the
   * same order (a queue's series), so its lines are found here, not in the map (a share of a
   * large poll's sink time).
   */
  private readonly blockFamilies: FamilyLines[] = [];
  private blockSample = 0;

  /** Families the naming profile does not serve: left out (see naming-profile.ts). */
  notInProfile = 0;
  private readonly relabeling: Relabeling | undefined;

  /**
   * `scope`: when given, only the series it keeps are added. `profile`: when given, families are
   * written under that profile's names and labels, and those it does not serve are left out.
   */
  constructor(
    private readonly scope?: SeriesScope,
    private readonly profile?: SinkProfile,
  ) {
    this.relabeling = profile ? new Relabeling(profile) : undefined;
  }

  drop(reason: DropReason, count = 1): void {
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + count);
  }

  /**
   * Adds one sample; returns false when the raw value is not a number (skipped) or the family
   * already has a sample with these labels in this poll (dropped as a duplicate: the first wins),
   * as served (under a naming profile: its family and labels).
   */
  add(def: MetricDef, labels: LabelValues, raw: unknown, record?: object): boolean {
    const labelValues = orderedLabelValues(def, labels);
    if (this.scope && !this.inScope(def, labelValues)) return false;
    return this.write(def, renderLabels(def.labels, labelValues), raw, record);
  }

  /**
   * Adds one series of a histogram row: a `_bucket` line per upper bound (`le`, as the source
   * wrote it, `+Inf` last), then `_count` and `_sum`. Served under the native names only (no
   * profile has histograms); false when left out, or when the family already has the series.
   */
  addHistogram(def: MetricDef, labels: LabelValues, series: HistogramSeries): boolean {
    if (def.type !== 'histogram') throw new Error(`${def.name} is a ${def.type}, not a histogram`);
    if (this.profile) {
      this.notInProfile++;
      return false;
    }
    const labelValues = orderedLabelValues(def, labels);
    if (this.scope && !this.inScope(def, labelValues)) return false;
    const rendered = renderLabels(def.labels, labelValues);
    if (!this.firstWrite(def, rendered)) {
      this.drop('duplicate');
      return false;
    }
    const bucketLabels = (le: string) => `${rendered === '' ? '{' : `${rendered.slice(0, -1)},`}le="${escapeLabelValue(le)}"}`;
    const lines = this.linesOf(def);
    for (const [le, count] of series.buckets) lines.push(`${def.name}_bucket${bucketLabels(le)} ${formatValue(count)}\n`);
    lines.push(`${def.name}_count${rendered} ${formatValue(series.count)}\n`);
    lines.push(`${def.name}_sum${rendered} ${formatValue(series.sum)}\n`);
    return true;
  }

  /**
   * The record fields the sink's naming profile reads into labels of `defs` (none under the
   * native names): a collector that asks for `columns=` asks for these too.
   */
  labelFields(defs: readonly MetricDef[]): string[] {
    return this.profile ? labelFieldsRead(this.profile.names, defs) : [];
  }

  private inScope(def: MetricDef, labelValues: readonly string[]): boolean {
    const at = def.labels.indexOf('vhost');
    if (this.scope!.keeps(at < 0 ? undefined : labelValues[at])) return true;
    this.outOfScope++;
    return false;
  }

  private renderedInScope(def: MetricDef, renderedLabels: string): boolean {
    if (!def.labels.includes('vhost')) return this.inScope(def, []);
    if (renderedLabels !== this.lastRendered) {
      this.lastRendered = renderedLabels;
      this.lastKept = this.scope!.keeps(vhostOf(renderedLabels));
    }
    if (!this.lastKept) this.outOfScope++;
    return this.lastKept;
  }

  /** Same as add(), with the `{...}` part already rendered (shared by a record's families). */
  addRendered(def: MetricDef, renderedLabels: string, raw: unknown, record?: object): boolean {
    if (this.scope && !this.renderedInScope(def, renderedLabels)) return false;
    return this.write(def, renderedLabels, raw, record);
  }

  /**
   * The hot path of per-object series (a queue's): like addRendered() with the object's LabelBlock.
   * Its scope is decided once per object when its block comes up, from the block's values. There
   * is no check per series: duplicates are the caller's to find per object identity, as it holds
   * one block per object (queues/label-blocks.ts), and drop. Under the native names a sample is
   * one line appended, no per-series check or object.
   */
  addToBlock(def: MetricDef, block: LabelBlock, raw: unknown, record?: object): boolean {
    if (block !== this.currentBlock) {
      this.currentBlock = block;
      this.blockSample = 0;
      this.currentBlockKept = this.scope === undefined || this.scope.keeps(block.valueOf('vhost'));
    }
    if (!this.currentBlockKept) {
      this.outOfScope++;
      return false;
    }
    if (this.profile) return this.write(def, block.text, raw, record, block.served);
    const value = toSampleValue(raw);
    if (value === undefined) {
      this.skipped++;
      return false;
    }
    this.blockLinesOf(def).pushBlock(block, value);
    return true;
  }

  private blockLinesOf(def: MetricDef): FamilyLines {
    const at = this.blockSample++;
    const seen = this.blockFamilies[at];
    if (seen !== undefined && seen.def === def) return seen;
    const lines = this.linesOf(def);
    this.blockFamilies[at] = lines;
    return lines;
  }

  private linesOf(def: MetricDef): FamilyLines {
    let lines = this.lines.get(def);
    if (!lines) {
      lines = new FamilyLines(def);
      this.lines.set(def, lines);
    }
    return lines;
  }

  /** `served`: the native labels' values as served, when the caller has them (a LabelBlock's). */
  private write(def: MetricDef, renderedLabels: string, raw: unknown, record: object | undefined, served?: ReadonlyMap<string, string>): boolean {
    let servedDef = def;
    let servedLabels = renderedLabels;
    let value = toSampleValue(raw);
    if (this.profile) {
      const family = this.profiled(def, renderedLabels, served);
      if (!family || this.profile.excluded?.has(def)) {
        this.notInProfile++;
        return false;
      }
      servedDef = family.def;
      servedLabels = this.relabeling!.labelsOf(family, renderedLabels, record, served);
      if (family.scale !== undefined && value !== undefined) value = scaledValue(value, family.scale);
    }
    // A counter is a finite count from 0 up: NaN, an infinity (1e999 parses as one) or a negative
    // value from the broker would break every rate() over it.
    if (value === undefined || (def.type === 'counter' && !(value >= 0 && value < Infinity))) {
      this.skipped++;
      return false;
    }
    // Checked as served: a profile that drops a label (a federation state without its upstream)
    // folds series together, and serves the first of them, as the other exporter served one of them.
    if (!this.firstWrite(servedDef, servedLabels)) {
      this.drop('duplicate');
      return false;
    }
    this.linesOf(servedDef).push(`${servedDef.name}${servedLabels} ${formatValue(value)}\n`);
    return true;
  }

  /** The family `def`'s sample with these labels is served as under the profile, if any. */
  private profiled(def: MetricDef, renderedLabels: string, served: ReadonlyMap<string, string> | undefined): ProfiledFamily | undefined {
    const row = this.profile!.names.served(def);
    if (!row || !isPerValue(row)) return row;
    return row.families.get(this.relabeling!.valueOf(renderedLabels, row.label, served));
  }

  private firstWrite(def: MetricDef, renderedLabels: string): boolean {
    let index = this.families.get(def);
    if (index === undefined) {
      index = this.families.size;
      this.families.set(def, index);
    }
    const word = index >> 5;
    const bit = 1 << (index & 31);
    let bits = this.written.get(renderedLabels);
    if (!bits || bits.length <= word) {
      // Exactly as many words as needed: 20k label sets of one or two words each.
      const grown = new Array<number>(word + 1).fill(0);
      if (bits) for (let i = 0; i < bits.length; i++) grown[i] = bits[i]!;
      bits = grown;
      this.written.set(renderedLabels, bits);
    }
    const current = bits[word]!;
    if ((current & bit) !== 0) return false;
    bits[word] = current | bit;
    return true;
  }

  /**
   * Serves again the series of `families` (a previous poll's, as served) whose vhost label `keeps`
   * says to, unless this poll already wrote the same series: the series of a vhost this poll could
   * not read. Families without a vhost label, and those in `skip`, are left out. Returns how many.
   */
  carry(families: readonly RenderedFamily[], keeps: (vhost: string) => boolean, skip: ReadonlySet<FamilyHeader> = new Set()): number {
    let carried = 0;
    for (const family of families) {
      const def = family.header as MetricDef;
      if (skip.has(def) || !def.labels?.includes('vhost')) continue;
      for (const chunk of family.chunks) {
        for (const line of chunkText(chunk).toString('utf8').split('\n')) {
          // name{labels} value: values hold no space, label values may (and `}`), so the last space ends the labels.
          const labels = line.slice(def.name.length, line.lastIndexOf(' '));
          if (!labels.startsWith('{') || !keeps(vhostOf(labels)) || !this.firstWrite(def, labels)) continue;
          this.linesOf(def).push(`${line}\n`);
          carried++;
        }
      }
    }
    return carried;
  }

  finish(): RenderedFamily[] {
    const families: RenderedFamily[] = [];
    for (const [def, lines] of this.lines) {
      lines.flush();
      families.push({ header: def, chunks: lines.chunks, samples: lines.count });
    }
    this.lines.clear();
    this.blockFamilies.length = 0;
    this.written.clear();
    this.families.clear();
    this.currentBlock = undefined;
    return families;
  }
}

/** The (unescaped) vhost label of a rendered label set `{vhost="a\\"b",...}`. */
function vhostOf(renderedLabels: string): string {
  const match = /[{,]vhost="((?:[^"\\]|\\.)*)"/.exec(renderedLabels);
  return (match?.[1] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

const NUMERIC_STRING = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * The management API answers numbers, booleans, and on some versions numbers as strings;
 * null or absent means "not known", which must not become 0.
 */
export function toSampleValue(raw: unknown): number | undefined {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (typeof raw === 'string' && NUMERIC_STRING.test(raw)) return Number(raw);
  return undefined;
}
