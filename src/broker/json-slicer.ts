/**
 * Parses a JSON answer while it arrives, in slices small enough that no single step holds the
 * event loop for long. A 70 MB list parsed with one `JSON.parse` blocks for about a second on a
 * small machine (~94 MB/s); streaming JSON parsers written in JS are 5-10x slower in total.
 * This keeps the native parser and only decides where to cut: a byte scanner follows strings
 * and nesting, and every ~BATCH_BYTES of whole list elements are parsed at once (`[` + slice +
 * `]`), so a slice is validated by JSON.parse itself, from the original bytes.
 *
 * What is cut: the elements of a top-level array (the management API's lists), and the members
 * of a top-level object, with the elements of an array that is a member's value (the `items` of
 * a page). Anything else is a unit parsed whole, and a unit over `maxUnitBytes` is refused: no
 * record of the management API comes near it, and one that does would block the loop.
 *
 * Inside a list the scanner is mostly skipped (see cutAhead): the next cut is guessed where the
 * bytes read `},{` and proved by JSON.parse accepting the batch; a wrong guess is scanned.
 */

export class JsonSliceError extends SyntaxError {}

/** One element (or a scalar answer) is over the unit limit: refused, not parsed. */
export class JsonUnitTooLarge extends Error {}

export const BATCH_BYTES = 256 * 1024;
/** Largest single record (or scalar answer): ~40 ms of JSON.parse on the slowest machine measured. */
export const MAX_UNIT_BYTES = 4 * 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

type ObjectState = 'key' | 'colon' | 'value' | 'after';

interface Frame {
  kind: 'array' | 'object';
  value: unknown[] | Record<string, unknown>;
  /** Object frames: where in a member we are (at the frame's own depth). */
  state: ObjectState;
  /** Array frames: whether the batch being collected follows a cut at a comma (so must not be empty). */
  afterCut: boolean;
  /** Object frames: the member a child array frame is filling. */
  key?: string;
}

export class JsonSlicer {
  /** Bytes of the batch (or the unit, for object members) being collected, across chunks. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  /** Offset in the body where the current unit (element, member, scalar answer) started. */
  private unitStart = 0;
  private readonly frames: Frame[] = [];
  /** Nesting depth inside the innermost frame's current unit. */
  private depth = 0;
  private inString = false;
  /** A backslash ended the previous chunk inside a string: the next byte is escaped. */
  private escaped = false;
  private started = false;
  private done = false;
  private result: unknown;
  /** Top-level scalar answers (a string, a number): collected whole. */
  private scalar = false;
  /** Bytes scanned (or cut ahead) so far: where `ahead` starts in the body. */
  private bytes = 0;
  /**
   * Bytes of a list not scanned yet, after a cut between its elements, from the comma cut at:
   * the next cut is looked for in them (cutAhead) before the scanner reads them.
   */
  private ahead: Buffer[] | undefined;
  private aheadBytes = 0;
  /** How far into the bytes ahead `},{` was looked for, in vain, while more were awaited. */
  private aheadSearched = 0;
  /** Cuts made by guessing (cutAhead), not by scanning. */
  private guessed = 0;
  /** Set by end(): the bytes left ahead are scanned, with no more cuts ahead. */
  private ending = false;

  constructor(private readonly maxUnitBytes = MAX_UNIT_BYTES, private readonly batchBytes = BATCH_BYTES) {}

  get guessedCuts(): number {
    return this.guessed;
  }

  get bytesSeen(): number {
    return this.bytes + this.aheadBytes;
  }

  push(chunk: Buffer): void {
    if (this.ahead) {
      this.ahead.push(chunk);
      this.aheadBytes += chunk.length;
      this.cutAhead();
    } else this.scan(chunk);
  }

  /**
   * Cuts batches of a list's elements out of the bytes ahead without scanning them: a cut is
   * guessed at the first `},{` at or past `batchBytes` (the management API writes its JSON without
   * spaces) and holds when JSON.parse accepts `[` + batch + `]`. A wrong guess can never be
   * accepted: the batch starts at an element's start, so a `}` inside a string leaves the string
   * open and one inside an element leaves a bracket open. The bodies of a poll of 100,000 queues
   * (70 MB) were sliced in ~540 CPU-ms scanning every byte and ~390 guessing (JSON.parse alone:
   * ~255). A wrong guess, or no `},{` within `maxUnitBytes` (one record that large is refused),
   * hands the bytes to the scanner.
   */
  private cutAhead(): void {
    while (this.ahead && this.aheadBytes >= this.batchBytes) {
      const bytes = this.ahead.length === 1 ? this.ahead[0]! : Buffer.concat(this.ahead, this.aheadBytes);
      this.ahead = [bytes];
      const at = bytes.indexOf(ELEMENT_BOUNDARY, Math.max(this.batchBytes - 1, this.aheadSearched));
      if (at < 0 && bytes.length <= this.maxUnitBytes) {
        this.aheadSearched = bytes.length - (ELEMENT_BOUNDARY.length - 1);
        return;
      }
      this.aheadSearched = 0;
      const frame = this.frames[this.frames.length - 1]!;
      const batch = at < 0 || at > this.maxUnitBytes ? undefined : bracketedOrUndefined(bytes, at + 1);
      if (!batch) {
        this.scanAhead(bytes);
        continue;
      }
      const target = frame.value as unknown[];
      for (const item of batch) target.push(item);
      frame.afterCut = true;
      this.guessed++;
      this.bytes += at + 1;
      this.unitStart = this.bytes + 1;
      this.ahead = [bytes.subarray(at + 1)];
      this.aheadBytes = bytes.length - at - 1;
    }
  }

  /** The bytes ahead, read by the scanner after the comma they start with (its state is that of the cut at it). */
  private scanAhead(bytes: Buffer): void {
    this.ahead = undefined;
    this.aheadBytes = 0;
    this.aheadSearched = 0;
    this.bytes += 1;
    // The scanner may cut again and leave the rest of them ahead.
    this.scan(bytes.subarray(1));
  }

  private scan(chunk: Buffer): void {
    const base = this.bytes;
    this.bytes += chunk.length;
    const n = chunk.length;
    let i = 0;
    let from = 0; // start of the part of this chunk that belongs to the current batch or unit
    while (i < n) {
      if (this.done) {
        if (!isSpace(chunk[i]!)) throw new JsonSliceError(`unexpected data after the JSON value at byte ${base + i}`);
        i++;
        continue;
      }
      if (!this.started) {
        const byte = chunk[i]!;
        i++;
        if (isSpace(byte)) continue;
        this.started = true;
        if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
          this.openFrame(byte === OPEN_ARRAY ? 'array' : 'object', base + i);
          from = i;
          continue;
        }
        // A scalar answer (a string, a number): collected whole, parsed at the end.
        this.scalar = true;
        this.unitStart = base + i - 1;
        from = i - 1;
        i = n;
        break;
      }
      if (this.scalar) {
        i = n;
        break;
      }
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        // Most strings are short names and keys: a plain loop beats a native call per string.
        let b = 0;
        // biome-ignore lint/suspicious/noAssignInExpressions: the byte scan is the hot loop; one read per byte
        while (i < n && (b = chunk[i]!) !== QUOTE && b !== BACKSLASH) i++;
        if (i >= n) continue;
        if (b === BACKSLASH) {
          if (i + 1 >= n) {
            this.escaped = true;
            i = n;
          } else i += 2;
          continue;
        }
        this.inString = false;
        i++;
        if (this.depth === 0) {
          const top = this.frames[this.frames.length - 1]!;
          if (top.kind === 'object' && top.state === 'key') top.state = 'colon';
        }
        continue;
      }
      const byte = chunk[i]!;
      if (byte === QUOTE) {
        this.inString = true;
        i++;
        continue;
      }
      if (this.depth > 0) {
        if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) this.depth++;
        else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) this.depth--;
        i++;
        // Inside an element only strings and nesting matter: skip numbers, commas and colons.
        let b = 0;
        // biome-ignore lint/suspicious/noAssignInExpressions: the byte scan is the hot loop; one read per byte
        if (this.depth > 0) while (i < n && (b = chunk[i]!) !== QUOTE && b !== OPEN_ARRAY && b !== OPEN_OBJECT && b !== CLOSE_ARRAY && b !== CLOSE_OBJECT) i++;
        continue;
      }
      // At the innermost frame's own depth.
      const frame = this.frames[this.frames.length - 1]!;
      if (frame.kind === 'array') {
        if (byte === COMMA) {
          this.unitEnds(base + i);
          if (this.pieceBytes + (i - from) >= this.batchBytes) {
            this.addPiece(chunk, from, i);
            this.parseArrayBatch(frame, false);
            frame.afterCut = true;
            from = i + 1;
            if (!this.ending) {
              // The rest of the chunk is ahead, from this comma: the next cut is guessed in it (cutAhead).
              this.bytes = base + i;
              this.unitStart = base + i + 1;
              this.ahead = [chunk.subarray(i)];
              this.aheadSearched = 0;
              this.aheadBytes = n - i;
              return;
            }
          }
          this.unitStart = base + i + 1;
        } else if (byte === CLOSE_ARRAY) {
          this.unitEnds(base + i);
          this.addPiece(chunk, from, i);
          this.parseArrayBatch(frame, true);
          from = i + 1;
          this.closeFrame(base + i + 1);
        } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) this.depth++;
        else if (byte === CLOSE_OBJECT) throw new JsonSliceError('unexpected } in a list');
        i++;
        continue;
      }
      // Object frame: members one at a time; an array value is a frame of its own.
      if (frame.state === 'after') {
        if (byte === COMMA) {
          frame.state = 'key';
          this.unitStart = base + i + 1;
        } else if (byte === CLOSE_OBJECT) this.closeFrame(base + i + 1);
        else if (!isSpace(byte)) throw new JsonSliceError(`unexpected ${String.fromCharCode(byte)} after a member`);
        i++;
        from = i;
        continue;
      }
      if (byte === COLON && frame.state === 'colon') frame.state = 'value';
      else if (byte === OPEN_ARRAY && frame.state === 'value') {
        this.addPiece(chunk, from, i);
        frame.key = this.memberKey();
        this.openFrame('array', base + i + 1);
        i++;
        from = i;
        continue;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) this.depth++;
      else if (byte === COMMA || byte === CLOSE_OBJECT) {
        this.unitEnds(base + i);
        this.addPiece(chunk, from, i);
        this.parseMember(frame, byte === CLOSE_OBJECT);
        from = i + 1;
        if (byte === CLOSE_OBJECT) this.closeFrame(base + i + 1);
        else {
          frame.state = 'key';
          this.unitStart = base + i + 1;
        }
      } else if (byte === CLOSE_ARRAY) throw new JsonSliceError('unexpected ] in an object');
      i++;
    }
    if (!this.done && this.started) {
      this.addPiece(chunk, from, n);
      this.unitEnds(base + n);
    }
  }

  /** Refuses a unit (element, member, scalar answer) that has grown over the limit. */
  private unitEnds(at: number): void {
    if (at - this.unitStart > this.maxUnitBytes) {
      throw new JsonUnitTooLarge(`one element of the answer is over ${this.maxUnitBytes} bytes`);
    }
  }

  /** The parsed answer; throws when the bytes so far are not one complete JSON value. */
  end(): unknown {
    if (this.ahead) {
      this.ending = true;
      this.scanAhead(Buffer.concat(this.ahead, this.aheadBytes));
    }
    if (!this.started) throw new JsonSliceError('the body is empty');
    if (this.scalar) {
      const text = this.takeText();
      this.done = true;
      return JSON.parse(text) as unknown;
    }
    if (!this.done) throw new JsonSliceError(`the body ends inside the JSON value (after ${this.bytes} bytes)`);
    return this.result;
  }

  private openFrame(kind: 'array' | 'object', at: number): void {
    // Object values are plain objects whose keys are defined, never assigned: a "__proto__" key
    // stays a plain key, as with JSON.parse.
    this.frames.push({ kind, value: kind === 'array' ? [] : {}, state: 'key', afterCut: false });
    this.pieces = [];
    this.pieceBytes = 0;
    this.unitStart = at;
  }

  private closeFrame(at: number): void {
    const frame = this.frames.pop()!;
    this.pieces = [];
    this.pieceBytes = 0;
    this.unitStart = at;
    const parent = this.frames[this.frames.length - 1];
    if (!parent) {
      this.result = frame.value;
      this.done = true;
      return;
    }
    define(parent.value as Record<string, unknown>, parent.key!, frame.value);
    parent.key = undefined;
    parent.state = 'after';
  }

  private addPiece(chunk: Buffer, from: number, to: number): void {
    if (to <= from) return;
    this.pieces.push(chunk.subarray(from, to));
    this.pieceBytes += to - from;
  }

  private takeText(): string {
    const pieces = this.pieces;
    const text = pieces.length === 1 ? pieces[0]!.toString('utf8') : Buffer.concat(pieces, this.pieceBytes).toString('utf8');
    this.pieces = [];
    this.pieceBytes = 0;
    return text;
  }

  private parseArrayBatch(frame: Frame, last: boolean): void {
    const text = this.takeText();
    const blank = text.trim() === '';
    if (blank) {
      // `[]` is fine; `[1,]` (a cut at the last comma, then nothing) is not.
      if (frame.afterCut || !last) throw new JsonSliceError('an empty element in a list');
      return;
    }
    const items = JSON.parse(`[${text}]`) as unknown[];
    const target = frame.value as unknown[];
    for (const item of items) target.push(item);
  }

  private parseMember(frame: Frame, last: boolean): void {
    const text = this.takeText();
    if (text.trim() === '') {
      if (!last || frame.state !== 'key' || Object.keys(frame.value).length > 0) throw new JsonSliceError('an empty member in an object');
      return;
    }
    const parsed = JSON.parse(`{${text}}`) as Record<string, unknown>;
    for (const key of Object.keys(parsed)) define(frame.value as Record<string, unknown>, key, parsed[key]);
  }

  /** The key of the member collected so far (`"items" :`). */
  private memberKey(): string {
    const text = this.takeText().trim();
    if (!text.endsWith(':')) throw new JsonSliceError('a list where a key was expected');
    const key = JSON.parse(text.slice(0, -1)) as unknown;
    if (typeof key !== 'string') throw new JsonSliceError('an object key that is not a string');
    return key;
  }
}

/** Where one element of a list ends and the next begins, as the management API writes it. */
const ELEMENT_BOUNDARY = Buffer.from('},{');

/**
 * The elements of a guessed batch: the bytes between the comma at 0 and the one at `end`, read as
 * a list with the two commas briefly made brackets (`[` + text + `]` copied every batch, ~70 MB of
 * strings a poll at 100,000 queues). Undefined when the guess was wrong (the batch is not JSON).
 */
function bracketedOrUndefined(bytes: Buffer, end: number): unknown[] | undefined {
  const first = bytes[0]!;
  const last = bytes[end]!;
  bytes[0] = OPEN_ARRAY;
  bytes[end] = CLOSE_ARRAY;
  try {
    return JSON.parse(bytes.toString('utf8', 0, end + 1)) as unknown[];
  } catch {
    return undefined;
  } finally {
    bytes[0] = first;
    bytes[end] = last;
  }
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Parses a whole body with JsonSlicer (for tests and callers that already hold the bytes). */
export function parseSliced(body: Buffer, chunkBytes = 64 * 1024, maxUnitBytes = MAX_UNIT_BYTES, batchBytes = BATCH_BYTES): unknown {
  const slicer = new JsonSlicer(maxUnitBytes, batchBytes);
  for (let i = 0; i < body.length; i += chunkBytes) slicer.push(body.subarray(i, i + chunkBytes));
  return slicer.end();
}
