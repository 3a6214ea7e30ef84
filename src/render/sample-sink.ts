import type { MetricDef } from '../metrics/metric-def.js';
import { formatValue, renderLabels, type RenderedFamily } from './exposition.js';

/**
 * Where a collector writes its samples during one poll. Lines are rendered as they are
 * added, so a poll never holds an object per sample; `finish()` hands over the families.
 */
export class SampleSink {
  private readonly lines = new Map<MetricDef, string[]>();
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
      lines = [];
      this.lines.set(def, lines);
    }
    lines.push(`${def.name}${renderedLabels} ${formatValue(value)}\n`);
    return true;
  }

  /** Makes sure the family is listed even if it ends up with no samples. */
  declare(def: MetricDef): void {
    if (!this.lines.has(def)) this.lines.set(def, []);
  }

  get sampleCount(): number {
    let n = 0;
    for (const lines of this.lines.values()) n += lines.length;
    return n;
  }

  finish(): RenderedFamily[] {
    const families: RenderedFamily[] = [];
    for (const [def, lines] of this.lines) {
      families.push({ header: def, body: Buffer.from(lines.join('')), samples: lines.length });
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
