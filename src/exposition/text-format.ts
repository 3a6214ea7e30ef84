/**
 * The Prometheus text format (0.0.4) and OpenMetrics 1.0 share every sample line for the
 * families this exporter serves; only the HELP/TYPE header of counters differs. So a family
 * is rendered once into a body, with two cheap headers beside it.
 */
import { type DeflatedLines, deflateLines, inflateLines } from './deflated-lines.js';
import { boundedLabelValue } from '../model/label-value.js';
import { ownedText } from './owned-bytes.js';

export type FamilyType = 'gauge' | 'counter' | 'histogram' | 'summary' | 'untyped';

export interface FamilyHeader {
  readonly name: string;
  readonly type: FamilyType;
  readonly help: string;
  /** Set on families a collector polls from the broker: their HELP says so. */
  readonly polledBy?: string;
}

/** Scrapes read a snapshot: HELP of polled families says so, and where to read the data's age. */
export function helpText(header: FamilyHeader): string {
  if (!header.polledBy) return header.help;
  return `${header.help} Polled in the background by the ${header.polledBy} collector; its age is rabbitmq_exporter_collector_last_success_timestamp_seconds.`;
}

/** Sample lines as text, or kept deflated only (the chunks of per-queue families: deflated-lines.ts). */
export type BodyChunk = Buffer | DeflatedLines;

export interface RenderedFamily {
  readonly header: FamilyHeader;
  /**
   * Sample lines, each ending in a newline, in the chunks they were rendered into: joining every
   * family into one buffer would copy the whole exposition at once while the previous one is
   * still served.
   */
  readonly chunks: readonly BodyChunk[];
  readonly samples: number;
}

/** A chunk's lines as text: inflated again when it is kept deflated. */
export function chunkText(chunk: BodyChunk): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : inflateLines(chunk);
}

/** A family's sample lines in one buffer (a copy: for tests and small families, not for serving). */
export function familyBody(family: RenderedFamily): Buffer {
  return family.chunks.length === 1 ? chunkText(family.chunks[0]!) : Buffer.concat(family.chunks.map(chunkText));
}

export const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

const LABEL_VALUE_SPECIALS = /[\\"\n]/;
const HELP_SPECIALS = /[\\\n]/;
const OM_HELP_SPECIALS = /[\\"\n]/;

export function escapeLabelValue(value: string): string {
  if (!LABEL_VALUE_SPECIALS.test(value)) return value;
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  if (!HELP_SPECIALS.test(help)) return help;
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeOpenMetricsHelp(help: string): string {
  if (!OM_HELP_SPECIALS.test(help)) return help;
  return help.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `{a="x",b="y"}`, or '' when there are no labels. Values are bounded first (see boundedLabelValue). */
export function renderLabels(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return '';
  // Joined, not concatenated with +=: the result is one flat string rather than a rope of ~20
  // pieces, which matters when it is kept (the sink keys its duplicate check on it).
  const parts = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++) parts[i] = `${names[i]}="${escapeLabelValue(boundedLabelValue(values[i] ?? ''))}"`;
  return `{${parts.join(',')}}`;
}

const textHeaders = new WeakMap<FamilyHeader, Buffer>();
const openMetricsHeaders = new WeakMap<FamilyHeader, Buffer>();

export function textHeader(header: FamilyHeader): Buffer {
  let cached = textHeaders.get(header);
  if (!cached) {
    cached = ownedText(
      `# HELP ${header.name} ${escapeHelp(helpText(header))}\n# TYPE ${header.name} ${header.type}\n`,
    );
    textHeaders.set(header, cached);
  }
  return cached;
}

/** OpenMetrics names a counter family without its `_total`; its samples keep it. */
export function openMetricsFamilyName(header: FamilyHeader): string {
  return header.type === 'counter' ? header.name.replace(/_total$/, '') : header.name;
}

export function openMetricsHeader(header: FamilyHeader): Buffer {
  let cached = openMetricsHeaders.get(header);
  if (!cached) {
    const name = openMetricsFamilyName(header);
    const type = header.type === 'untyped' ? 'unknown' : header.type;
    cached = ownedText(`# TYPE ${name} ${type}\n# HELP ${name} ${escapeOpenMetricsHelp(helpText(header))}\n`);
    openMetricsHeaders.set(header, cached);
  }
  return cached;
}

export const OPENMETRICS_EOF = Buffer.from('# EOF\n');

/** Lays families out in one of the two formats. Families without samples are left out. */
export function concatFamilies(families: readonly RenderedFamily[], openMetrics: boolean): BodyChunk[] {
  const chunks: BodyChunk[] = [];
  for (const family of families) {
    if (family.samples === 0) continue;
    chunks.push(openMetrics ? openMetricsHeader(family.header) : textHeader(family.header), ...family.chunks);
  }
  return chunks;
}

/** A rendered family's sample lines, without their newlines (a family is read so where its lines are sorted out, a node target's share). */
export function familyLines(family: RenderedFamily): string[] {
  const lines: string[] = [];
  for (const chunk of family.chunks) {
    const text = chunkText(chunk).toString('utf8');
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      if (end === -1) {
        lines.push(text.slice(start));
        break;
      }
      lines.push(text.slice(start, end));
      start = end + 1;
    }
  }
  return lines;
}

/** Above this, a family made from lines keeps them deflated, as the sink keeps a queue family's (a node's share of 100k queues' rabbitmq_queue_info is megabytes). */
const DEFLATE_FROM_BYTES = 64 * 1024;

export function familyFromLines(header: FamilyHeader, lines: readonly string[]): RenderedFamily {
  const text = Buffer.from(`${lines.join('\n')}\n`);
  const chunk: BodyChunk = text.length < DEFLATE_FROM_BYTES ? text : deflateLines(text);
  return { header, chunks: [chunk], samples: lines.length };
}
