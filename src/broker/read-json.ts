import { JsonSlicer, JsonUnitTooLarge } from './json-slicer.js';
import { Turns } from './turns.js';

/**
 * Reads a JSON answer as it arrives, parsing it in bounded slices (JsonSlicer), and refuses it
 * as soon as it grows over `cap`: the transfer is stopped, not read to the end. Gives the event
 * loop a turn whenever the poll's work has used its budget (turns.ts), so /metrics is answered
 * during the transfer of even a huge answer.
 */
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
  const turns = new Turns(1);
  try {
    for await (const chunk of body) {
      if (bytes < HEAD_BYTES) head += chunk.subarray(0, HEAD_BYTES - bytes).toString('utf8');
      bytes += chunk.length;
      if (bytes > cap) throw new AnswerTooLarge(bytes, `answer refused while it arrived: over the cap of ${describeBytes(cap)} (${capName})`);
      if (held) {
        held.push(chunk);
        if (bytes > SLICE_ABOVE_BYTES) {
          // The first megabyte, held until the answer proved big: sliced with turns like the rest.
          const pieces = held;
          held = undefined;
          for (const piece of pieces) {
            slicer.push(piece);
            await turns.maybeYield();
          }
        }
      } else slicer.push(chunk);
      await turns.maybeYield();
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
