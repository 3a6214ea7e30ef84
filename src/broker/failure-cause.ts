import { ManagementError } from './errors.js';

/**
 * What kind of trouble a failed request or poll met, so that the landing page can name the likely
 * cause and the setting to change. Decided where the error is known (the scheduler).
 */
export type FailureKind =
  | 'unauthorized' // HTTP 401: wrong user or password, or a user without the management tags
  | 'forbidden' // HTTP 403: the user lacks a tag or a permission on a vhost
  | 'connection_refused' // nothing listens at the target's address
  | 'not_http' // something that does not speak HTTP (the AMQP port)
  | 'network' // reset, DNS, TLS
  | 'request_timeout' // one request past target.timeouts
  | 'poll_deadline' // the poll past collectors.<name>.timeout
  | 'too_large' // an answer over target.max_response_bytes
  | 'not_json' // an answer that is not the management API's JSON
  | 'http_status' // another non-2xx answer (5xx, 400)
  | 'other'; // the collector's own error

export interface FailureCause {
  readonly kind: FailureKind;
  /** The HTTP status, when the broker answered. */
  readonly status?: number;
}

/**
 * A request of a successful poll whose answer was left out: the broker refused it (401/403 to a
 * user lacking a tag or permission), or one independent request of the poll failed.
 */
export interface LeftOutRequest {
  readonly path: string;
  readonly cause: FailureCause;
  /** Why, in words: what the exporter's user lacks, or the request's error. */
  readonly why: string;
}

/** The errors in an error's chain of causes, the error first. */
function chainOf(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = error; e instanceof Error && chain.length < 8; e = e.cause) chain.push(e);
  return chain;
}

/** What kind of trouble a failed poll met: the landing page names the likely cause and setting from it. */
export function failureCause(error: unknown, pollDeadlinePassed: boolean): FailureCause {
  if (!(error instanceof ManagementError)) return { kind: pollDeadlinePassed ? 'poll_deadline' : 'other' };
  switch (error.kind) {
    case 'http_status':
      if (error.status === 401) return { kind: 'unauthorized', status: 401 };
      if (error.status === 403) return { kind: 'forbidden', status: 403 };
      return { kind: 'http_status', ...(error.status === undefined ? {} : { status: error.status }) };
    case 'timeout':
      return { kind: 'request_timeout' };
    case 'aborted':
      return { kind: pollDeadlinePassed ? 'poll_deadline' : 'other' };
    case 'too_large':
      return { kind: 'too_large' };
    case 'malformed_json':
      return { kind: 'not_json' };
    case 'network': {
      const chain = chainOf(error);
      if (chain.some((e) => (e as NodeJS.ErrnoException).code === 'ECONNREFUSED')) return { kind: 'connection_refused' };
      // The peer answered, but not in HTTP (an AMQP port says "AMQP" and closes): undici's parser refused it.
      if (chain.some((e) => e.name === 'HTTPParserError')) return { kind: 'not_http' };
      return { kind: 'network' };
    }
  }
}
