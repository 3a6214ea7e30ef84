import { ManagementError } from '../broker/errors.js';
import type { FailureCause } from '../broker/failure-cause.js';
import type { PageLogin } from './target-status.js';

// The wording of every failure hint: the log's (failureHint, from the error itself) and the landing
// page's (causeHint, from the failure's cause, which is all the page keeps). The server only shows them.

/** What the configuration knows about a target's login, for hints: never the password itself. */
export interface HintLogin {
  /** The management API's root, without credentials. */
  url: string;
  username: string;
  /** Where the password came from: a flag, a variable, the config file, `file <path>`, `url` or `default`. */
  passwordSource: string;
}

/** One failed poll, as the runner saw it. */
export interface PollFailure {
  collector: string;
  error: unknown;
  /** The poll's own deadline passed (rather than a request's timeout). */
  deadlinePassed: boolean;
  timeoutMs: number;
}

/**
 * The likely cause of a failed poll and the setting to change, in one sentence for the log; or
 * undefined when the error says it all already (an answer over its cap names its setting).
 */
export function failureHint(failure: PollFailure, login: HintLogin | undefined): string | undefined {
  const { collector, error } = failure;
  if (failure.deadlinePassed) {
    const decides = collector === 'overview' ? ' (its polls decide rabbitmq_up)' : '';
    return `the ${collector} poll took longer than its deadline of ${seconds(failure.timeoutMs)}${decides}: raise collectors.${collector}.timeout, or find why the broker answers slowly (a long list, a loaded node)`;
  }
  if (!(error instanceof ManagementError)) return undefined;
  const url = login ? parseUrl(login.url) : undefined;
  const apiPath = url?.pathname.replace(/\/+$/, '').endsWith('/api') === true;
  if (apiPath) return `target.url ends in /api: it must be the management root without /api (e.g. ${url!.protocol}//${url!.host}), the exporter adds /api/... itself`;
  const detail = error.detail;
  switch (error.kind) {
    case 'http_status':
      return statusHint(error, login);
    case 'malformed_json':
      return `the answer is not the management API's JSON: target.url may point at another service or a proxy's page; it must be the management root (usually port 15672)`;
    case 'timeout':
      return timeoutHint(detail);
    case 'network':
      return networkHint(detail, url);
    default:
      return undefined;
  }
}

function statusHint(error: ManagementError, login: HintLogin | undefined): string | undefined {
  const user = login ? `user "${login.username}"` : 'the user';
  if (error.status === 401) {
    if (/not.management.user|not_management/i.test(error.detail)) {
      return `${user} has no management tag: give it the monitoring tag (rabbitmqctl set_user_tags ${login?.username ?? '<user>'} monitoring), or set target.username to a user that has it`;
    }
    const source = login ? passwordSourceText(login.passwordSource) : 'the configuration';
    return `the broker refused ${user} (HTTP 401): check the user name (target.username, RABBITMQ_USERNAME) and its password, which came from ${source}`;
  }
  if (error.status === 403) {
    return `${user} may not read ${error.pathname}: it needs the monitoring tag and read permission on the vhosts watched (rabbitmqctl set_user_tags, set_permissions)`;
  }
  if (error.status === 404) {
    return `${error.pathname} is not there: is target.url the management root (http://host:15672, no path) and the management plugin enabled (rabbitmq-plugins enable rabbitmq_management)?`;
  }
  if (error.status !== undefined && error.status >= 500) {
    return `the management plugin failed to answer ${error.pathname} (HTTP ${error.status}): see the broker's log; a loaded node answers so too`;
  }
  return undefined;
}

function passwordSourceText(source: string): string {
  if (source === 'default') return 'nowhere: none is configured and guest is used, which RabbitMQ accepts only from localhost; set target.password, RABBITMQ_PASSWORD or target.password_file';
  if (source === 'url') return 'the user information of target.url';
  if (source.startsWith('file ')) return `the password file ${source.slice(5)} (target.password_file or RABBITMQ_PASSWORD_FILE; one trailing newline is dropped)`;
  if (source === 'config file') return 'target.password in the config file';
  return source;
}

function timeoutHint(detail: string): string {
  if (/connect/i.test(detail)) return 'no connection within target.timeouts.connect: a wrong host or port in target.url, or a firewall dropping the packets';
  if (/headers/i.test(detail)) return 'the broker accepted the request but sent no answer within target.timeouts.headers: a loaded node, or raise the setting';
  if (/body/i.test(detail)) return 'the answer stopped arriving for longer than target.timeouts.body: a loaded node or network, or raise the setting';
  return 'no complete answer within target.timeouts.request: a loaded node or a large answer; raise the setting';
}

function networkHint(detail: string, url: URL | undefined): string | undefined {
  const where = url ? `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}` : 'target.url';
  if (/ECONNREFUSED/.test(detail)) {
    return `nothing listens at ${where}: is the broker running with the management plugin enabled (rabbitmq-plugins enable rabbitmq_management), and is target.url's port the management one (usually 15672)?`;
  }
  if (/ENOTFOUND|EAI_AGAIN/.test(detail)) return `the host name of target.url (${url?.hostname ?? '?'}) does not resolve: check it`;
  if (/HPE_|Expected HTTP|Response does not match the HTTP/i.test(detail) || url?.port === '5672' || url?.port === '5671') {
    return `${where} does not answer in HTTP: this looks like the AMQP port (5672); the management API is usually on 15672 (15671 with TLS): change target.url`;
  }
  if (/wrong version number|WRONG_VERSION_NUMBER|EPROTO|packet length too long/i.test(detail)) {
    return `${where} does not speak TLS: use http:// in target.url, or the management TLS port (usually 15671)`;
  }
  if (/ERR_TLS_CERT_ALTNAME_INVALID|altnames/i.test(detail)) {
    return `the broker's certificate does not name ${url?.hostname ?? 'the host'}: use a host name it was issued for in target.url`;
  }
  if (/CERT|self.signed|unable to (verify|get)/i.test(detail)) {
    return `the broker's certificate is not trusted: set target.tls.ca_file to the CA that signed it (target.tls.insecure_skip_verify switches the check off)`;
  }
  if (/ECONNRESET|UND_ERR_SOCKET|other side closed|socket hang up/i.test(detail)) {
    return url?.protocol === 'http:'
      ? `${where} closed the connection: if that port serves TLS, use https:// in target.url; else the broker or a proxy in between dropped it`
      : `${where} closed the connection: the broker or a proxy in between dropped it`;
  }
  return undefined;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** What a landing-page hint may name: the collector, its deadline, the target's address and user. Never the password. */
export interface HintContext {
  readonly collector: string;
  readonly timeoutMs: number | undefined;
  readonly url: string;
  readonly access: PageLogin | undefined;
}

/** The page's seconds: always in s (1.5 s), where the log's names whole seconds only. */
function pageSeconds(ms: number): string {
  return `${ms / 1000} s`;
}

function mebibytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
}

function who(access: PageLogin | undefined): string {
  return access ? `user "${access.username}" (password from ${access.passwordSource})` : "the exporter's user";
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The likely cause of a failure and the setting to change, in one sentence for the landing page (the server shows it as is). */
export function causeHint(cause: FailureCause, { collector, timeoutMs, url, access }: HintContext): string {
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
        `The poll ran past its deadline${timeoutMs === undefined ? '' : ` of ${pageSeconds(timeoutMs)}`}: ` +
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
