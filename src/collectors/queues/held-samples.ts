import type { MetricDef } from '../../model/metric-def.js';

/**
 * The statistics samples of one poll, queue by queue (keyed by the queue's rendered labels), held
 * for the counts-only polls that follow. Values only: all queues' values in one Float64Array, each
 * queue's list of families shared with every queue that has the same list (most have). At 100,000
 * queues two arrays and an object per queue cost 36 MB of heap (a heap snapshot); this holds the
 * same in a Map entry and a slice of one array per queue.
 */
export class HeldSamples {
  private values: Float64Array;
  private used = 0;
  /** Per entry: where its values start in `values`, and its families (an index into `shapes`). */
  private starts: Int32Array;
  private shapeOf: Int32Array;
  private entries = 0;
  private readonly entryOf = new Map<string, number>();
  private readonly shapes: (readonly MetricDef[])[] = [];
  private readonly shapeIds = new Map<MetricDef, number>();
  private readonly shapeByKey = new Map<string, number>();
  private lastShape = -1;
  /** The entry being written: its key and families so far; its values are at `values[used - defs.length ..]`. */
  private openKey: string | undefined;
  private readonly openDefs: MetricDef[] = [];

  /**
   * `expected`: how many values and queues to make room for (the last poll's: see `sizes`). Each
   * array that grows past it is copied into one twice its size: at 100,000 queues, growing from
   * small made ~60 MB of array buffers per poll, memory outside the heap that hastens collections.
   */
  constructor(expected: { values: number; entries: number } = { values: 0, entries: 0 }) {
    this.values = new Float64Array(Math.max(expected.values, 256));
    this.starts = new Int32Array(Math.max(expected.entries, 64));
    this.shapeOf = new Int32Array(Math.max(expected.entries, 64));
  }

  /** How many values and queues are held. */
  get sizes(): { values: number; entries: number } {
    this.close();
    return { values: this.used, entries: this.entries };
  }

  get size(): number {
    this.close();
    return this.entryOf.size;
  }

  /** Adds one sample of the queue `key`; a queue's samples come one after another. */
  add(key: string, def: MetricDef, value: number): void {
    if (key !== this.openKey) {
      this.close();
      const earlier = this.entryOf.get(key);
      this.openKey = key;
      // Samples of a queue already closed (not expected: a queue is served at once): its values start the entry again.
      if (earlier !== undefined) this.forEach(earlier, (d, v) => this.push(d, v));
    }
    this.push(def, value);
  }

  /** Calls `each` with the families and values held for `key`, in the order they were added. */
  replay(key: string, each: (def: MetricDef, value: number) => void): void {
    this.close();
    const entry = this.entryOf.get(key);
    if (entry !== undefined) this.forEach(entry, each);
  }

  /** Takes what `older` holds of the keys that start with one of `prefixes` and this lacks. */
  keepFrom(older: HeldSamples, prefixes: readonly string[]): void {
    if (prefixes.length === 0) return;
    this.close();
    older.close();
    for (const [key, entry] of older.entryOf) {
      if (this.entryOf.has(key) || !prefixes.some((prefix) => key.startsWith(prefix))) continue;
      this.openKey = key;
      older.forEach(entry, (def, value) => this.push(def, value));
      this.close();
    }
  }

  /** Lets go of the room kept for more samples: called once all are in (they are then held for polls). */
  trim(): void {
    this.close();
    if (this.values.length > this.used) this.values = this.values.slice(0, this.used);
    if (this.starts.length > this.entries) {
      this.starts = this.starts.slice(0, this.entries);
      this.shapeOf = this.shapeOf.slice(0, this.entries);
    }
  }

  private forEach(entry: number, each: (def: MetricDef, value: number) => void): void {
    const defs = this.shapes[this.shapeOf[entry]!]!;
    const start = this.starts[entry]!;
    for (let i = 0; i < defs.length; i++) each(defs[i]!, this.values[start + i]!);
  }

  private push(def: MetricDef, value: number): void {
    if (this.used >= this.values.length) this.values = grown(this.values);
    this.values[this.used++] = value;
    this.openDefs.push(def);
  }

  /** Ends the entry being written: its values stay where they are, its families are shared. */
  private close(): void {
    const key = this.openKey;
    if (key === undefined) return;
    this.openKey = undefined;
    if (this.entries >= this.starts.length) {
      this.starts = grown(this.starts);
      this.shapeOf = grown(this.shapeOf);
    }
    this.starts[this.entries] = this.used - this.openDefs.length;
    this.shapeOf[this.entries] = this.shapeId(this.openDefs);
    this.entryOf.set(key, this.entries++);
    this.openDefs.length = 0;
  }

  private shapeId(defs: readonly MetricDef[]): number {
    // Queues of a kind come in runs: the last queue's families are tried first.
    if (this.lastShape >= 0 && sameDefs(this.shapes[this.lastShape]!, defs)) return this.lastShape;
    let key = '';
    for (const def of defs) {
      let id = this.shapeIds.get(def);
      if (id === undefined) {
        id = this.shapeIds.size;
        this.shapeIds.set(def, id);
      }
      key += `${id},`;
    }
    let shape = this.shapeByKey.get(key);
    if (shape === undefined) {
      shape = this.shapes.length;
      this.shapes.push([...defs]);
      this.shapeByKey.set(key, shape);
    }
    this.lastShape = shape;
    return shape;
  }
}

function sameDefs(a: readonly MetricDef[], b: readonly MetricDef[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function grown<T extends Float64Array | Int32Array>(array: T): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(array.length * 2, 256));
  bigger.set(array);
  return bigger;
}
