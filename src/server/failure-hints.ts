import type { FailureCause } from '../broker/failure-cause.js';
import type { TargetAccess } from '../pipeline/target-status.js';

/** What a hint may name: the collector, its deadline, the target's address and user. Never the password. */
export interface HintContext {
  readonly collector: string;
  readonly timeoutMs: number | undefined;
  readonly url: string;
  readonly access: TargetAccess | undefined;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

function who(access: TargetAccess | undefined): string {
  return access ? `user "${access.username}" (password from ${access.passwordSource})` : "the exporter's user";
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The likely cause of a failure and the setting to change, in one sentence for the landing page. */
export function failureHint(cause: FailureCause, { collector, timeoutMs, url, access }: HintContext): string {
  switch (cause.kind) {
    case 'unauthorized':
      return (
        `The broker refused ${who(access)}: check that the user exists and its password ` +
        '(target.username, target.password or target.password_file), and that it has the monitoring tag.'
      );
    case 'forbidden': {
      const user = access?.username ?? 'USER';
      return (
        `User "${user}" lacks a tag or permission for this path: give it the one named here, or the monitoring tag ` +
        `(rabbitmqctl set_user_tags ${user} monitoring) and read permission on each vhost (rabbitmqctl set_permissions -p VHOST ${user} '' '' '.*').`
      );
    }
    case 'connection_refused':
      return `Nothing listens at ${hostOf(url)}: is the broker running, with the management plugin enabled (rabbitmq-plugins enable rabbitmq_management)? target.url names its port (15672 by default).`;
    case 'not_http':
      return `${hostOf(url)} does not answer HTTP: is this the AMQP port (5672)? target.url must name the management API's port (15672 by default).`;
    case 'not_json':
      return 'The answer is not the management API\'s JSON: target.url must be the management address itself (http://host:15672), without /api or a path of another service.';
    case 'network':
      return `The connection to ${hostOf(url)} failed: check the host name in target.url, and target.tls for an https:// URL.`;
    case 'request_timeout':
      return (
        'One request got no complete answer in time: the broker is slow; raise target.timeouts.request (headers, body), ' +
        `or for a list read per vhost collectors.${collector}.vhost_timeout, or poll less often.`
      );
    case 'poll_deadline':
      return (
        `The poll ran past its deadline${timeoutMs === undefined ? '' : ` of ${seconds(timeoutMs)}`}: ` +
        `raise collectors.${collector}.timeout, or poll less often (collectors.${collector}.interval).`
      );
    case 'too_large':
      return (
        `An answer was over the cap${access ? ` (lists: ${mebibytes(access.maxResponseBytes)})` : ''}: ` +
        `raise target.max_response_bytes, or ask for less (collectors.${collector} options).`
      );
    case 'http_status':
      return cause.status !== undefined && cause.status >= 500
        ? `The broker answered HTTP ${cause.status}: see the broker's log; the exporter asks again on every poll.`
        : `The broker answered HTTP ${cause.status ?? '?'} to a request it should accept: see the broker's log.`;
    case 'other':
      return 'See the exporter\'s log for this collector\'s error.';
  }
}
