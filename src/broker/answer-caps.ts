/**
 * How large an answer may be, by what was asked. Sized from real answers (RabbitMQ 3.10.8,
 * ../docs/performance.md): a queue with full statistics is ~1.45 kB of JSON, so the largest list
 * the exporter can ask for at 100,000 queues (`mode: full`, one request) is ~145 MB; the default
 * `columns` form is about half that. Everything that is not such a list (overview, nodes, node
 * memory, health checks, one queue) is a few kB to a few hundred kB even on big clusters.
 */
export const DEFAULT_LIST_CAP_BYTES = 160 * 1024 * 1024;
export const RECORD_CAP_BYTES = 16 * 1024 * 1024;

/** First path segments (after /api) whose answers grow with the number of objects. */
const LISTS = new Set([
  'queues', 'exchanges', 'bindings', 'connections', 'channels', 'consumers', 'vhosts', 'users', 'permissions',
  'topic-permissions', 'policies', 'operator-policies', 'parameters', 'global-parameters', 'stream',
  'federation-links', 'shovels', 'vhost-limits', 'user-limits',
]);

export type AnswerKind = 'list' | 'record';

/** `list` for `/api/queues`, `/api/queues/{vhost}`, `/api/queues/detailed`...; `record` for the rest. */
export function answerKind(pathname: string): AnswerKind {
  const segments = pathname.replace(/^.*?\/api\//, '').split('/');
  const [head, second, third] = segments;
  if (!head || !LISTS.has(head)) return 'record';
  // /api/queues/{vhost}/{name} is one queue; /api/queues/{vhost}/{name}/bindings is a list again.
  if (head === 'queues' || head === 'exchanges') return third !== undefined && segments.length === 3 ? 'record' : 'list';
  if (head === 'vhosts' && second !== undefined) return segments.length >= 3 ? 'list' : 'record';
  return 'list';
}

/** The cap of one answer: `target.max_response_bytes` for lists, and at most RECORD_CAP_BYTES for the rest. */
export function answerCap(pathname: string, listCap: number): number {
  return answerKind(pathname) === 'list' ? listCap : Math.min(listCap, RECORD_CAP_BYTES);
}

/** A label-safe form of a path: `/api/queues/{vhost}`, `/api/nodes/{name}/memory`. */
export function pathTemplate(pathname: string): string {
  const segments = pathname.split('?')[0]!.split('/');
  const api = segments.indexOf('api');
  if (api < 0) return '{path}';
  const kind = segments[api + 1] ?? '';
  const rest = segments.slice(api + 2).map((segment, i) => {
    if (/^(detailed|memory|bindings|source|destination|all-vhosts|checks)$/.test(segment)) return segment;
    if (kind === 'health') return i === 0 ? segment : /^[a-z-]+$/.test(segment) && i === 1 ? segment : '{arg}';
    if (i === 0 && ['queues', 'exchanges', 'bindings', 'connections', 'channels', 'consumers', 'aliveness-test'].includes(kind)) return '{vhost}';
    return '{name}';
  });
  return ['', 'api', kind, ...rest].join('/');
}
