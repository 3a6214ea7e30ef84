import type { MetricDef } from '../metrics/metric-def.js';
import { formatValue, renderLabels, type RenderedFamily } from './exposition.js';

/** Lines of one family: rendered text, moved into bytes every FLUSH_CHARS characters. */
class FamilyLines {
  readonly chunks: Buffer[] = [];
  pending: string[] = [];
  pendingChars = 0;
  count = 0;

  push(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length;
    this.count++;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(Buffer.from(this.pending.join('')));
    this.pending = [];
    this.pendingChars = 0;
  }
}

/** A poll of 10k queues renders ~20 MB: held as bytes, not as hundreds of thousands of strings. */
const FLUSH_CHARS = 64 * 1024;

/**
 * Where a collector writes its samples during one poll. Lines are rendered as they are
 * added, so a poll never holds an object per sample; `finish()` hands over the families.
 */
export class SampleSink {
  private readonly lines = new Map<MetricDef, FamilyLines>();
  /** Values that were absent, null or not numbers: skipped, not served as 0. */
  skipped = 0;

  /** Adds one sample; returns false when the raw value is not a number and was skipped. */
  add(def: MetricDef, labelValues: readonly string[], raw: unknown): boolean {
    if (labelValues.length !== def.labels.length) {
      throw new Error(`${def.name} takes ${def.labels.length} label values, got ${labelValues.length}`);
    }
    return this.addRendered(def, renderLabels(def.labels, labelValues), raw);
  }

  /** Same as add(), with the `{...}` part already rendered (shared by a record's families). */
  addRendered(def: MetricDef, renderedLabels: string, raw: unknown): boolean {
    const value = toSampleValue(raw);
    if (value === undefined) {
      this.skipped++;
      return false;
    }
    let lines = this.lines.get(def);
    if (!lines) {
      lines = new FamilyLines();
      this.lines.set(def, lines);
    }
    lines.push(`${def.name}${renderedLabels} ${formatValue(value)}\n`);
    return true;
  }

  /** Makes sure the family is listed even if it ends up with no samples. */
  declare(def: MetricDef): void {
    if (!this.lines.has(def)) this.lines.set(def, new FamilyLines());
  }

  get sampleCount(): number {
    let n = 0;
    for (const lines of this.lines.values()) n += lines.count;
    return n;
  }

  finish(): RenderedFamily[] {
    const families: RenderedFamily[] = [];
    for (const [def, lines] of this.lines) {
      lines.flush();
      const body = lines.chunks.length === 1 ? (lines.chunks[0] as Buffer) : Buffer.concat(lines.chunks);
      families.push({ header: def, body, samples: lines.count });
    }
    this.lines.clear();
    return families;
  }
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
