import { ManagementError } from '../client/errors.js';
import { PartCutOff } from './optional-part.js';
import type { FailureCause } from '../state/target-state.js';

/** The errors in an error's chain of causes, the error first. */
function chainOf(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = error; e instanceof Error && chain.length < 8; e = e.cause) chain.push(e);
  return chain;
}

/** What kind of trouble a failed poll met: the landing page names the likely cause and setting from it. */
export function failureCause(error: unknown, pollDeadlinePassed: boolean): FailureCause {
  // Parts end at the cut-off, a tenth before the deadline itself: that is the poll's deadline too.
  if (error instanceof PartCutOff) return { kind: 'poll_deadline' };
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
