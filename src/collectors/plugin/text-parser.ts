/**
 * A small, strict reader of the Prometheus text format (0.0.4) as rabbitmq_prometheus writes it:
 * HELP and TYPE lines, samples with optional labels and timestamp. Anything else is refused with
 * the line number and what was wrong: a half-read answer must never pass for a broker's counters.
 */
import { eachInTurns } from '../kit/in-turns.js';

export type PluginFamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface PluginSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PluginExposition {
  /** Samples by their metric name (a histogram's `_bucket`, `_sum` and `_count` each under its own). */
  readonly samples: ReadonlyMap<string, readonly PluginSample[]>;
  /** Declared types, by family name. */
  readonly types: ReadonlyMap<string, PluginFamilyType>;
}

export class PluginTextError extends Error {
  override readonly name = 'PluginTextError';
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
  }
}

const TYPES = new Set<string>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const NAME_START = /[a-zA-Z_:]/;
const NAME_PART = /[a-zA-Z0-9_:]/;
const LABEL_NAME_START = /[a-zA-Z_]/;
const LABEL_NAME_PART = /[a-zA-Z0-9_]/;

/**
 * The samples and types of one answer. A node's answer can be 300,000 lines (30,000 queues with
 * statistics off on 4.x): the event loop gets its turns between lines (eachInTurns), so scrapes are
 * served while it is read.
 */
/** The lines of a text whose every line ends in a newline, without it. */
function* linesOf(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    yield text.slice(start, end);
    start = end + 1;
  }
}

export async function parsePluginText(text: string): Promise<PluginExposition> {
  const samples = new Map<string, PluginSample[]>();
  const types = new Map<string, PluginFamilyType>();
  // The text format ends every line, the last one included, with a newline.
  if (text !== '' && !text.endsWith('\n')) throw new PluginTextError(lineCount(text), 'the answer ends inside a line (cut short?)');
  let number = 0;
  await eachInTurns(linesOf(text), (line) => {
    number++;
    if (line === '' || line.trim() === '') return;
    if (line.startsWith('#')) {
      readComment(line, number, types);
      return;
    }
    const { name, sample } = readSample(line, number);
    let list = samples.get(name);
    if (!list) {
      list = [];
      samples.set(name, list);
    }
    list.push(sample);
  });
  return { samples, types };
}

function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function readComment(line: string, number: number, types: Map<string, PluginFamilyType>): void {
  const parts = line.slice(1).trimStart().split(/[ \t]+/);
  if (parts[0] !== 'TYPE' && parts[0] !== 'HELP') return;
  const name = parts[1];
  if (!name || !NAME.test(name)) throw new PluginTextError(number, `${parts[0]} line without a valid metric name`);
  if (parts[0] === 'HELP') return;
  const type = parts[2];
  if (!type || !TYPES.has(type) || parts.length > 3) throw new PluginTextError(number, `TYPE of ${name} is ${JSON.stringify(parts.slice(2).join(' '))}, not one of ${[...TYPES].join(', ')}`);
  if (types.has(name)) throw new PluginTextError(number, `a second TYPE line for ${name}`);
  types.set(name, type as PluginFamilyType);
}

function readSample(line: string, number: number): { name: string; sample: PluginSample } {
  let at = 0;
  if (!NAME_START.test(line[0] ?? '')) throw new PluginTextError(number, `a sample line must start with a metric name, not ${JSON.stringify(line.slice(0, 20))}`);
  while (at < line.length && NAME_PART.test(line[at]!)) at++;
  const name = line.slice(0, at);
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    for (;;) {
      while (line[at] === ' ') at++;
      if (line[at] === '}') break;
      const start = at;
      if (!LABEL_NAME_START.test(line[at] ?? '')) throw new PluginTextError(number, `${name}: a label name is expected at column ${at + 1}`);
      while (at < line.length && LABEL_NAME_PART.test(line[at]!)) at++;
      const label = line.slice(start, at);
      if (line[at] !== '=' || line[at + 1] !== '"') throw new PluginTextError(number, `${name}: label ${label} has no ="value"`);
      at += 2;
      // Runs between escapes taken whole: a character at a time, an 8 MB value took 10 s and 700 MB.
      const parts: string[] = [];
      for (;;) {
        const quote = line.indexOf('"', at);
        const backslash = line.indexOf('\\', at);
        if (quote === -1) throw new PluginTextError(number, `${name}: the value of label ${label} is not closed`);
        if (backslash === -1 || quote < backslash) {
          parts.push(line.slice(at, quote));
          at = quote;
          break;
        }
        parts.push(line.slice(at, backslash));
        const next = line[backslash + 1];
        if (next === 'n') parts.push('\n');
        else if (next === '\\' || next === '"') parts.push(next);
        else throw new PluginTextError(number, `${name}: label ${label} has an unknown escape \\${next ?? ''}`);
        at = backslash + 2;
      }
      const value = parts.length === 1 ? parts[0]! : parts.join('');
      at++;
      if (Object.hasOwn(labels, label)) throw new PluginTextError(number, `${name}: label ${label} appears twice`);
      labels[label] = value;
      while (line[at] === ' ') at++;
      if (line[at] === ',') {
        at++;
        continue;
      }
      if (line[at] !== '}') throw new PluginTextError(number, `${name}: expected , or } after label ${label}`);
      break;
    }
    at++;
  }
  const rest = line.slice(at).trim().split(/[ \t]+/);
  if (line[at] !== ' ' && line[at] !== '\t') throw new PluginTextError(number, `${name}: no space before the value`);
  if (rest.length > 2 || rest[0] === '') throw new PluginTextError(number, `${name}: expected a value and an optional timestamp, found ${JSON.stringify(line.slice(at).trim())}`);
  const value = parseValue(rest[0]!);
  if (value === undefined) throw new PluginTextError(number, `${name}: ${JSON.stringify(rest[0])} is not a number`);
  if (rest[1] !== undefined && !/^-?\d+$/.test(rest[1])) throw new PluginTextError(number, `${name}: timestamp ${JSON.stringify(rest[1])} is not an integer`);
  return { name, sample: { labels, value } };
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf' || text === 'Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}
