import { metricsOf, type MetricDef } from '../../model/metric-def.js';
import type { BlockWriter, LabelBlock, SampleWriter } from '../../exposition/sample-sink.js';
import { toSampleValue } from '../../exposition/sample-sink.js';
import type { MonotonicCounters } from './monotonic-counters.js';
import { type RateSelection, wantsRate } from './rates-option.js';

interface CompiledRow {
  readonly field: string;
  readonly path: readonly string[];
  readonly ratePath: readonly string[] | undefined;
  readonly metric: MetricDef;
  readonly scale: number;
}

export interface FieldTable {
  readonly rows: readonly CompiledRow[];
  readonly metrics: readonly MetricDef[];
}

/**
 * The families of a record that are plain fields of it, read together (catalogue rows with a
 * `source`). When a family defines a rate gauge, the table also reads `<field>_details.rate`.
 */
export function fieldTable(defs: readonly MetricDef[]): FieldTable {
  const compiled = defs.map((metric) => {
    const field = fieldOf(metric);
    const scale = metric.source?.scale ?? 1;
    const path = field.split('.');
    const last = path[path.length - 1];
    const ratePath = metric.rate ? [...path.slice(0, -1), `${last}_details`, 'rate'] : undefined;
    return { field, path, ratePath, metric, scale };
  });
  return { rows: compiled, metrics: metricsOf(defs) };
}

/** The record field a catalogue row is read from; an error for a computed row. */
export function fieldOf(metric: MetricDef): string {
  if (!metric.source) throw new Error(`${metric.name} has no source field: it cannot be read from a record`);
  return metric.source.field;
}

/** The table of every row of a catalogue part that names a source field, in row order. */
export function fieldTableOf(part: Readonly<Record<string, MetricDef>>): FieldTable {
  return fieldTable(Object.values(part).filter((def) => def.source !== undefined));
}

/** The fields a table reads, each followed by its `_details` when `rates` wants its rate gauge: for `columns=`. */
export function fieldsRead(table: FieldTable, rates: RateSelection): string[] {
  return table.rows.flatMap((row) => (row.ratePath && wantsRate(rates, row.field) ? [row.field, `${row.field}_details`] : [row.field]));
}

export function getPath(record: unknown, path: readonly string[]): unknown {
  let value: unknown = record;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export interface EmitOptions {
  /** Emit the `_details.rate` gauges too: all of them, or those of the listed fields. */
  rates: RateSelection;
  /** Keeps counters from going down between polls (see MonotonicCounters). */
  counters?: MonotonicCounters;
}

/**
 * Emits every row of the table for one record, with the record's labels already rendered.
 * Absent fields are simply not emitted (variants and statistics modes differ in what they
 * carry); present but non-numeric ones count as skipped in the sink.
 */
export function emitRecord(
  sink: SampleWriter,
  table: FieldTable,
  record: unknown,
  renderedLabels: string,
  options: EmitOptions,
): void {
  const source = record !== null && typeof record === 'object' ? record : undefined;
  emitRows(table, record, renderedLabels, options, (metric, raw) => sink.addRendered(metric, renderedLabels, raw, source));
}

/**
 * emitRecord() for an object whose labels are kept as a LabelBlock (the queue collector's hot
 * path): the same rows, values and counter adjustment, written with addToBlock.
 */
export function emitRecordToBlock(writer: BlockWriter, table: FieldTable, record: object, block: LabelBlock, options: EmitOptions): void {
  emitRows(table, record, block.text, options, (metric, raw) => writer.addToBlock(metric, block, raw, record));
}

/** The rows' values of one record (`series`: its counters' key), each handed to `write`. */
function emitRows(table: FieldTable, record: unknown, series: string, options: EmitOptions, write: (metric: MetricDef, raw: unknown) => void): void {
  for (const row of table.rows) {
    const raw = getPath(record, row.path);
    if (raw !== undefined) {
      let value = scaled(raw, row.scale);
      if (options.counters && row.metric.type === 'counter') {
        const number = toSampleValue(value);
        if (number !== undefined) value = options.counters.adjust(series, row.metric.name, number);
      }
      write(row.metric, value);
    }
    if (row.ratePath && row.metric.rate && wantsRate(options.rates, row.field)) {
      const rate = getPath(record, row.ratePath);
      if (rate !== undefined) write(row.metric.rate, scaled(rate, row.scale));
    }
  }
}

function scaled(raw: unknown, scale: number): unknown {
  if (scale === 1) return raw;
  const value = toSampleValue(raw);
  if (value === undefined) return raw;
  // ms → s divides by 1000: multiplying by 0.001 turns 22990 ms into 22.990000000000002.
  const divisor = 1 / scale;
  return Number.isInteger(divisor) ? value / divisor : value * scale;
}

