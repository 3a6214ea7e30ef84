/**
 * A BrokerApi that answers from one directory of recorded management API answers, the way the
 * recording broker would: whole lists for list paths (a page object when `page` is asked),
 * per-vhost lists cut from the whole list, the recorded status of health checks and of 404
 * answers, and 404 for anything that was not recorded (so optional paths yield no series, as on
 * a real broker). Works for the 3.10.8 recordings and those of test/record/record-fixtures.record.ts.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ManagementError } from '../../src/broker/errors.js';
import { brokerApiAnswering, notFound, type FakeApi } from './fake-broker-api.js';

type Query = Record<string, string>;

/** Request path (decoded, without /api) → recorded file, and the status it was recorded with. */
const FILES: Record<string, { file: string; status?: number }> = {
  '/overview': { file: 'overview.json' },
  '/nodes': { file: 'nodes.json' },
  // '/nodes/{node}' and '/nodes/{node}/memory' of the node named by overview.json: see below.
  '/vhosts': { file: 'vhosts.json' },
  '/queues': { file: 'queues-page1.json' },
  '/queues/detailed': { file: 'queues-detailed.json' },
  '/exchanges': { file: 'exchanges-page1.json' },
  '/connections': { file: 'connections-page1.json|connections.json' },
  '/channels': { file: 'channels-page1.json' },
  '/consumers': { file: 'consumers-vh0.json|consumers.json' },
  '/vhost-limits': { file: 'vhost-limits.json' },
  '/user-limits': { file: 'user-limits.json' },
  '/whoami': { file: 'whoami.json' },
  '/feature-flags': { file: 'feature-flags.json' },
  '/deprecated-features/used': { file: 'deprecated-features-used.json' },
  '/stream/connections': { file: 'stream-connections.json' },
  '/stream/publishers': { file: 'stream-publishers.json' },
  '/stream/consumers': { file: 'stream-consumers.json' },
  '/federation-links': { file: 'federation-links.json' },
  '/shovels': { file: 'shovels.json' },
  '/health/checks/alarms': { file: 'health-alarms.json' },
  '/health/checks/local-alarms': { file: 'health-local-alarms.json' },
  '/health/checks/virtual-hosts': { file: 'health-vhosts.json' },
  '/health/checks/node-is-quorum-critical': { file: 'health-quorum-critical.json' },
  '/health/checks/node-is-mirror-sync-critical': { file: 'health-mirror-sync-critical.json' },
  '/health/checks/certificate-expiration/30/days': { file: 'health-cert.json' },
  '/health/checks/port-listener/5672': { file: 'health-port-5672.json' },
  '/health/checks/protocol-listener/amqp': { file: 'health-proto-amqp.json|health-proto-amqp091.json' },
  '/health/checks/protocol-listener/amqp091': { file: 'health-proto-amqp091.json' },
  '/health/checks/quorum-queues-without-elected-leaders/all-vhosts/': { file: 'health-qq-without-leaders.json' },
  '/health/checks/below-node-connection-limit': { file: 'health-below-connection-limit.json' },
  '/health/checks/ready-to-serve-clients': { file: 'health-ready-to-serve-clients.json' },
  '/health/checks/is-in-service': { file: 'health-is-in-service.json' },
  '/health/checks/metadata-store/initialized': { file: 'health-metadata-store-initialized.json' },
  '/health/checks/reached-target-cluster-size': { file: 'health-reached-target-cluster-size.json' },
  '/aliveness-test//': { file: 'aliveness-root.json' },
  // Not recorded: answered empty so the collectors that need them still poll.
  '/bindings': { file: '' },
};

/**
 * Overrides for the 4.x cluster recordings (test/record/record-cluster.record.ts): every path
 * recorded while rabbit2 was stopped answers what it answered then.
 */
export const CLUSTER_NODE_DOWN: Record<string, string> = {
  '/overview': 'overview-rabbit2-down.json',
  '/nodes': 'nodes-rabbit2-down.json',
  '/queues': 'queues-rabbit2-down.json',
  '/vhosts': 'vhosts-rabbit2-down.json',
  '/exchanges': 'exchanges-rabbit2-down.json',
  '/connections': 'connections-rabbit2-down.json',
  '/channels': 'channels-rabbit2-down.json',
  '/consumers': 'consumers-rabbit2-down.json',
  '/health/checks/virtual-hosts': 'health-vhosts-rabbit2-down.json',
  '/health/checks/alarms': 'health-alarms-rabbit2-down.json',
  '/health/checks/local-alarms': 'health-local-alarms-rabbit2-down.json',
  '/health/checks/node-is-quorum-critical': 'health-quorum-critical-rabbit2-down.json',
  '/health/checks/quorum-queues-without-elected-leaders/all-vhosts/': 'health-qq-without-leaders-rabbit2-down.json',
  '/health/checks/reached-target-cluster-size': 'health-reached-target-cluster-size-rabbit2-down.json',
  '/health/checks/ready-to-serve-clients': 'health-ready-to-serve-clients-rabbit2-down.json',
  '/health/checks/is-in-service': 'health-is-in-service-rabbit2-down.json',
  '/health/checks/below-node-connection-limit': 'health-below-connection-limit-rabbit2-down.json',
  '/health/checks/metadata-store/initialized': 'health-metadata-store-initialized-rabbit2-down.json',
};

/**
 * `overrides` maps a path to another file of the directory (e.g. the cluster's answers recorded
 * while a node was down). A file entry may list alternatives separated by `|`.
 */
export function fixtureBroker(dir: string, overrides: Record<string, string> = {}): FakeApi {
  const files: Record<string, { file: string }> = { ...FILES };
  const pick = (entry: { file: string } | undefined) => entry?.file.split('|').find((f) => f !== '' && existsSync(join(dir, f)));
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
  // The recording node's own paths: its memory, and the port of its AMQP listener (recorded as
  // health-port-listener.json when the node listened on a port of its own).
  const overview = pick(FILES['/overview']) ? (read(pick(FILES['/overview'])!) as { node?: string; listeners?: { protocol?: string; port?: number }[] }) : {};
  if (overview.node) {
    files[`/nodes/${overview.node}`] = { file: 'node-memory.json' };
    files[`/nodes/${overview.node}/memory`] = { file: 'node-memory-b.json' };
  }
  for (const l of overview.listeners ?? []) {
    if (l.protocol === 'amqp' && l.port !== undefined) files[`/health/checks/port-listener/${l.port}`] ??= { file: 'health-port-listener.json' };
  }
  for (const [path, file] of Object.entries(overrides)) files[path] = { file };
  return brokerApiAnswering((path: string, query: Query): unknown => {
    const decoded = path.replace(/^\/api/, '').split('/').map(decodeURIComponent).join('/');
    // Matched before decoding: the vhost '/' is %2F in the path.
    const perVhostRaw = /^(?:\/api)?\/(queues|exchanges|connections|channels|consumers)\/([^/]+)$/.exec(path);
    const perVhost = perVhostRaw && perVhostRaw[2] !== 'detailed' ? [perVhostRaw[0], perVhostRaw[1], decodeURIComponent(perVhostRaw[2]!)] : null;
    let body: unknown;
    const entry = files[decoded];
    const file = pick(entry);
    const listFile = perVhost ? pick(queryVariant(perVhost[1]!, query) ?? files[`/${perVhost[1]}`]) : undefined;
    if (entry && entry.file === '') body = [];
    else if (decoded === '/queues' && pick(queryVariant('queues', query))) body = read(pick(queryVariant('queues', query))!);
    else if (file) body = read(file);
    else if (perVhost && listFile) {
      body = itemsOf(read(listFile)).filter((item) => (item as { vhost?: string }).vhost === perVhost[2]);
    } else {
      throw notFound(path);
    }
    // A recorded 404 (e.g. a path this version lacks) answers 404, as the broker did.
    if ((body as { error?: string } | null)?.error === 'Object Not Found') {
      throw notFound(path);
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
  });
}

/** The queue list recorded for the same query parameters, when the collector asks for totals. */
function queryVariant(list: string, query: Query): { file: string } | undefined {
  if (list !== 'queues') return undefined;
  if (!query) return { file: 'queues.json' };
  if (query.disable_stats && query.enable_queue_totals) return { file: 'queues-disable-stats-totals-page1.json|queues-disable-stats-page1.json' };
  if (query.enable_queue_totals) return { file: 'queues-totals-page1.json' };
  // Unpaged and without columns= (mode full): from 3.13 the reduced record, recorded as queues.json.
  if (!query.columns && !('page' in query)) return { file: 'queues.json' };
  return undefined;
}

function itemsOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : ((body as { items: unknown[] }).items ?? []);
}
