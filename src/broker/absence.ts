import { ManagementError } from './errors.js';

/**
 * What an answer that is not a body means, decided here once for every caller:
 * - `absent`: the thing asked about does not exist on this broker, this poll: HTTP 404 (a path
 *   of a plugin that is off or of a later version, a vhost or node that went away), or HTTP 406,
 *   what RabbitMQ 3.10 answers for a path no plugin routes when the request accepts JSON only.
 *   The caller leaves its series out; no error.
 * - `refused`: HTTP 401 or 403. Only a caller that knows its path needs a tag or permission the
 *   exporter's user may lack takes this as a leave-out (after checking that the credentials
 *   themselves work); for every other caller it is a failure.
 * - undefined: anything else (5xx, 400, timeouts, network, bad JSON): a failure.
 */
export type Absence = 'absent' | 'refused';

export function absence(error: unknown): Absence | undefined {
  if (!(error instanceof ManagementError) || error.kind !== 'http_status') return undefined;
  if (error.status === 404 || error.status === 406) return 'absent';
  if (error.status === 401 || error.status === 403) return 'refused';
  return undefined;
}

export function isAbsent(error: unknown): boolean {
  return absence(error) === 'absent';
}

/** The request's answer, or undefined when the broker said absent; any other error is thrown. */
export async function unlessAbsent<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw error;
  }
}
