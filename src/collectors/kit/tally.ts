import type { MetricDef } from '../../model/metric-def.js';
import { toSampleValue, type SampleSink } from '../../exposition/sample-sink.js';
import { getPath } from './field-table.js';

/** A field summed per group: its name (a dot path) and the path split. */
export interface SummedField {
  readonly name: string;
  readonly path: readonly string[];
}

/**
 * Counts and sums of list records per label set, for the aggregated series of the connection,
 * channel and consumer collectors. An absent value adds nothing; one that is null or not a
 * number adds nothing and is counted in `skipped` (add it to the sink's, as emitRecord would).
 * A sum of which no record had a number stays undefined: no sample, never a 0.
 */
export class Tally {
  private readonly groups = new Map<string, TallyGroup>();
  private last: TallyGroup | undefined;
  /** Values that were null or not numbers (nor numeric strings, nor booleans). */
  skipped = 0;

  /** Counts one record into the group `labels` and adds its `values` to the group's sums. */
  add(labels: readonly string[], values: Readonly<Record<string, unknown>> = {}): void {
    const group = this.groupOf(labels);
    for (const name in values) this.addTo(group, name, values[name]);
  }

  /** Counts one record into the group `labels` and adds the fields `sums` names to the group's sums: no object per record. */
  addFields(labels: readonly string[], record: unknown, sums: readonly SummedField[]): void {
    const group = this.groupOf(labels);
    for (const { name, path } of sums) this.addTo(group, name, getPath(record, path));
  }

  private groupOf(labels: readonly string[]): TallyGroup {
    // Records come group after group (a vhost's queues): the last group, found without a key.
    let group = this.last;
    if (!group || !sameLabels(group.labels, labels)) {
      const key = labels.join('\u0000');
      group = this.groups.get(key);
      if (!group) {
        group = new TallyGroup(labels);
        this.groups.set(key, group);
      }
      this.last = group;
    }
    group.count++;
    return group;
  }

  private addTo(group: TallyGroup, name: string, raw: unknown): void {
    if (raw === undefined) return;
    const value = toSampleValue(raw);
    if (value === undefined) {
      this.skipped++;
      return;
    }
    group.sums.set(name, (group.sums.get(name) ?? 0) + value);
  }

  get size(): number {
    return this.groups.size;
  }

  [Symbol.iterator](): IterableIterator<TallyGroup> {
    return this.groups.values();
  }
}

function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class TallyGroup {
  count = 0;
  readonly sums = new Map<string, number>();
  constructor(readonly labels: readonly string[]) {}

  /** The sum of `name` over the group's records that had a number, or undefined if none had. */
  sum(name: string): number | undefined {
    return this.sums.get(name);
  }
}

/** Adds a sample unless the value is undefined (an aggregate nobody had a number for). */
export function addDefined(sink: SampleSink, def: MetricDef, labels: readonly string[], value: number | undefined): void {
  if (value !== undefined) sink.add(def, labels, value);
}
