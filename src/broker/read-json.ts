import { setImmediate as nextTurn } from 'node:timers/promises';
import { JsonSlicer, JsonUnitTooLarge } from './json-slicer.js';

/**
 * Reads a JSON answer as it arrives, parsing it in bounded slices (JsonSlicer), and refuses it
 * as soon as it grows over `cap`: the transfer is stopped, not read to the end. Gives the event
 * loop a turn whenever it has worked for YIELD_MS without one, so /metrics is answered during
 * the transfer of even a huge answer.
 *
 * YIELD_MS is the longest any of a poll's work holds the loop (the collectors' record loops use it
 * too, collectors/kit/turns.ts). Short: on two cores the poll shares the machine with the scrapes
 * it delays, and a scrape's 7 MB gzip answer at 100,000 queues leaves in a few socket writes, one
 * per turn (bench:scale at 100k queues, 10 ms against 3 ms: /metrics p50 during polls 24.4 → 11.7
 * ms, longest event-loop delay 76.2 → 48.3 ms, the same CPU per poll).
 */
export const YIELD_MS = 3;
/** Smaller answers are parsed whole with JSON.parse (~10 ms at most): slicing them gains nothing. */
export const SLICE_ABOVE_BYTES = 1024 * 1024;

export type BodyStream = AsyncIterable<Buffer> & { destroy(): void; on(event: 'error', listener: () => void): unknown };

export class AnswerTooLarge extends Error {
  constructor(
    readonly bytesRead: number,
    message: string,
  ) {
    super(message);
  }
}

/** Bytes of an answer kept to describe it when it is not JSON. */
const HEAD_BYTES = 256;

/**
 * The body is not one JSON value: how many bytes were read, and the first of them. The parser's
 * message is not kept: it quotes the body wherever it stopped, where no redaction has been.
 */
export class MalformedAnswer extends SyntaxError {
  constructor(
    readonly bytesRead: number,
    readonly head: string,
  ) {
    super(`${bytesRead} bytes that are not JSON`);
  }
}

export async function readJson(body: BodyStream, cap: number, capName: string): Promise<{ value: unknown; bytes: number }> {
  const slicer = new JsonSlicer();
  let held: Buffer[] | undefined = [];
  let bytes = 0;
  let head = '';
  let since = performance.now();
  try {
    for await (const chunk of body) {
      if (bytes < HEAD_BYTES) head += chunk.subarray(0, HEAD_BYTES - bytes).toString('utf8');
      bytes += chunk.length;
      if (bytes > cap) throw new AnswerTooLarge(bytes, `answer refused while it arrived: over the cap of ${describeBytes(cap)} (${capName})`);
      if (held) {
        held.push(chunk);
        if (bytes > SLICE_ABOVE_BYTES) {
          for (const piece of held) slicer.push(piece);
          held = undefined;
        }
      } else slicer.push(chunk);
      if (performance.now() - since > YIELD_MS) {
        await nextTurn();
        since = performance.now();
      }
    }
  } catch (error) {
    stop(body);
    if (error instanceof JsonUnitTooLarge) throw new AnswerTooLarge(bytes, `answer refused while it arrived: ${error.message}`);
    if (error instanceof SyntaxError) throw new MalformedAnswer(bytes, head);
    throw error;
  }
  try {
    if (held) return { value: JSON.parse(Buffer.concat(held, bytes).toString('utf8')) as unknown, bytes };
    return { value: slicer.end(), bytes };
  } catch (error) {
    throw error instanceof SyntaxError ? new MalformedAnswer(bytes, head) : error;
  }
}

/** Drops an answer we will not read; the stream's abort error has nowhere to go, so it is swallowed. */
export function stop(body: { destroy(): void; on?(event: 'error', listener: () => void): unknown }): void {
  body.on?.('error', () => undefined);
  body.destroy();
}

export function describeBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}
