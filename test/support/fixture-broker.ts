/**
 * A BrokerApi that answers from one directory of recorded management API answers, the way the
 * recording broker would: whole lists for list paths (a page object when `page` is asked),
 * per-vhost lists cut from the whole list, the recorded status of health checks, and 404 for
 * anything that was not recorded (so optional paths yield no series, as on a real broker).
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ManagementError, isNotFound } from '../../src/client/errors.js';
import type { BrokerApi } from '../../src/collectors/collector.js';

type Query = Record<string, string | number | boolean> | undefined;

/** Request path (decoded, without /api) → recorded file, and the status it was recorded with. */
const FILES: Record<string, { file: string; status?: number }> = {
  '/overview': { file: 'overview.json' },
  '/nodes': { file: 'nodes.json' },
  '/nodes/rabbit@vm': { file: 'node-memory.json' },
  '/nodes/rabbit@vm/memory': { file: 'node-memory-b.json' },
  '/vhosts': { file: 'vhosts.json' },
  '/queues': { file: 'queues-page1.json' },
  '/exchanges': { file: 'exchanges-page1.json' },
  '/connections': { file: 'connections-page1.json|connections.json' },
  '/channels': { file: 'channels-page1.json' },
  '/consumers': { file: 'consumers-vh0.json' },
  '/vhost-limits': { file: 'vhost-limits.json' },
  '/user-limits': { file: 'user-limits.json' },
  '/whoami': { file: 'whoami.json' },
  '/feature-flags': { file: 'feature-flags.json' },
  '/federation-links': { file: 'federation-links.json' },
  '/shovels': { file: 'shovels.json' },
  '/health/checks/alarms': { file: 'health-alarms.json' },
  '/health/checks/local-alarms': { file: 'health-local-alarms.json' },
  '/health/checks/virtual-hosts': { file: 'health-vhosts.json' },
  '/health/checks/node-is-quorum-critical': { file: 'health-quorum-critical.json' },
  '/health/checks/node-is-mirror-sync-critical': { file: 'health-mirror-sync-critical.json' },
  '/health/checks/certificate-expiration/30/days': { file: 'health-cert.json' },
  '/health/checks/port-listener/5672': { file: 'health-port-5672.json' },
  '/health/checks/protocol-listener/amqp': { file: 'health-proto-amqp091.json' },
  '/health/checks/protocol-listener/amqp091': { file: 'health-proto-amqp091.json' },
  '/aliveness-test//': { file: 'aliveness-root.json' },
  // Not recorded: answered empty so the collectors that need them still poll.
  '/bindings': { file: '' },
};

/**
 * `overrides` maps a path to another file of the directory (e.g. the cluster's answers recorded
 * while a node was down). A file entry may list alternatives separated by `|`.
 */
export function fixtureBroker(dir: string, overrides: Record<string, string> = {}): BrokerApi & { calls: string[] } {
  const calls: string[] = [];
  const files: Record<string, { file: string }> = { ...FILES };
  for (const [path, file] of Object.entries(overrides)) files[path] = { file };
  const pick = (entry: { file: string } | undefined) => entry?.file.split('|').find((f) => f !== '' && existsSync(join(dir, f)));
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  const answer = (path: string, query: Query): unknown => {
    calls.push(path);
    const decoded = path.replace(/^\/api/, '').split('/').map(decodeURIComponent).join('/');
    const perVhost = /^\/(queues|exchanges|connections|channels|consumers)\/([^/]+)$/.exec(decoded);
    let body: unknown;
    const entry = files[decoded];
    const file = pick(entry);
    const listFile = perVhost ? pick(files[`/${perVhost[1]}`]) : undefined;
    if (entry && entry.file === '') body = [];
    else if (file) body = read(file);
    else if (perVhost && listFile) {
      body = itemsOf(read(listFile)).filter((item) => (item as { vhost?: string }).vhost === perVhost[2]);
    } else {
      throw new ManagementError('http_status', path, 'HTTP 404 (Object Not Found: Not Found)', 404);
    }
    if (/^\/health\//.test(decoded) && (body as { status?: string }).status === 'failed') {
      throw new ManagementError('http_status', path, `HTTP 503 (${(body as { reason?: string }).reason ?? ''})`, 503);
    }
    const isList = Array.isArray(body) || (body !== null && typeof body === 'object' && Array.isArray((body as { items?: unknown }).items));
    if (!isList) return body;
    const items = itemsOf(body);
    if (query && 'page' in query) {
      const pageSize = Number(query.page_size ?? 100);
      const page = Number(query.page);
      return { items: items.slice((page - 1) * pageSize, page * pageSize), page, page_size: pageSize, page_count: Math.ceil(items.length / pageSize), total_count: items.length, filtered_count: items.length, item_count: items.length };
    }
    return items;
  };
  return {
    calls,
    get: async <T>(path: string, query?: Query) => structuredClone(answer(path, query)) as T,
    getOptional: async <T>(path: string, query?: Query) => {
      try {
        return structuredClone(answer(path, query)) as T;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}

function itemsOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : ((body as { items: unknown[] }).items ?? []);
}
