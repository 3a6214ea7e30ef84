import { AnswerTooLarge, describeBytes, stop } from './read-json.js';
import type { BodyStream } from './read-json.js';

/**
 * Reads a text answer (rabbitmq_prometheus's exposition) whole, refusing it as soon as it grows
 * over `cap`: the transfer is stopped, not read to the end.
 */
export async function readText(body: BodyStream, cap: number, capName: string): Promise<{ text: string; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > cap) throw new AnswerTooLarge(bytes, `answer refused while it arrived: over the cap of ${describeBytes(cap)} (${capName})`);
      chunks.push(chunk);
    }
  } catch (error) {
    stop(body);
    throw error;
  }
  return { text: Buffer.concat(chunks, bytes).toString('utf8'), bytes };
}
