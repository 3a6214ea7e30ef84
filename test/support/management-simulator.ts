/**
 * A simulated RabbitMQ management API on 127.0.0.1 (node:http), made from the real answers
 * recorded in test/fixtures/ (3.10.8, statistics on or off), for any number of objects: N queues
 * over V vhosts, exchanges, bindings, connections, channels, consumers. Each generated record is a
 * recorded one with a new name and deterministic counts, so a test can compute what the exporter
 * must serve. List paths answer the way the recorded broker does: whole lists, `columns=` (dot
 * paths keep their nesting), `disable_stats=true&enable_queue_totals=true`, pages with their
 * envelope (page_size at most 500, a page past the end is HTTP 400), per vhost, `name` +
 * `use_regex` on paged requests, and `/api/queues/detailed` from 3.13 on.
 *
 * Faults are set per path (see Fault): delay, stall, 5xx, 401, reset, malformed, truncated, huge, drip,
 * and records with wrong types. For the collectors' tests and `npm run bench`; the real broker
 * stays the reference for values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export type Variant = 'stats' | 'stats-disabled';

export interface SimulatorOptions {
  queues?: number;
  /** Vhosts `/` and `vh1`..: queue i lives in vhost i mod vhosts. */
  vhosts?: number;
  exchanges?: number;
  bindings?: number;
  connections?: number;
  /** Two channels per connection unless set. */
  channels?: number;
  consumers?: number;
  /** Every quorumEvery-th queue is a quorum queue (0: none). */
  quorumEvery?: number;
  /** Recorded answers of a broker with statistics on (default) or with them disabled. */
  variant?: Variant;
  /** Reported management version; from 3.13 on, /api/queues/detailed answers. */
  managementVersion?: string;
  username?: string;
  password?: string;
}

export type WrongType = 'numbers_as_strings' | 'nulls' | 'nested_garbage' | 'newline_names' | 'megabyte_strings';

/** What a path does instead of (or before) answering normally. */
export type Fault =
  | { kind: 'delay'; ms: number }
  /** No answer at all: the request stays open until the client gives up or the simulator closes. */
  | { kind: 'stall' }
  | { kind: 'status'; status: number }
  | { kind: 'unauthorized' }
  /** The connection is destroyed: before the answer, or after `afterBytes` of its body. */
  | { kind: 'reset'; afterBytes?: number }
  /** 200 with a body that is not JSON: the real answer cut in half and followed by garbage. */
  | { kind: 'malformed' }
  /** 200 announcing the whole body's length, half of it sent, then the connection is closed. */
  | { kind: 'truncated' }
  /** 200 with a valid JSON list of `bytes` bytes (of queue-like records), with or without content-length. */
  | { kind: 'huge'; bytes: number; contentLength?: boolean }
  /** The real answer, `chunkBytes` at a time every `everyMs`. */
  | { kind: 'drip'; chunkBytes: number; everyMs: number }
  /** The real answer with its records' values replaced. */
  | { kind: 'wrong_types'; what: readonly WrongType[] };

export interface Simulator {
  readonly url: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** Every request, path and query as sent. */
  readonly requests: string[];
  /** The generated records (whole, with statistics when the variant has them). */
  readonly data: SimulatedData;
  /** Forgets the answers made so far (they are kept per request): call after changing `data`. */
  changed(): void;
  /** Sets (or with undefined clears) the fault of every path equal to `path` or matching it. */
  fault(path: string | RegExp, fault: Fault | undefined): void;
  /** Forgets the answers cached so far: for a caller that changed `data` between polls. */
  forget(): void;
  /** Bytes of response bodies written so far. */
  readonly bytesSent: number;
  /** Of 'huge' answers: when (Date.now()) each further MiB was written, and when the last write was. */
  readonly hugeProgress: readonly { at: number; bytes: number }[];
  close(): Promise<void>;
}

export interface SimulatedData {
  overview: Record<string, unknown>;
  nodes: Record<string, unknown>[];
  vhosts: Record<string, unknown>[];
  queues: Record<string, unknown>[];
  exchanges: Record<string, unknown>[];
  bindings: Record<string, unknown>[];
  connections: Record<string, unknown>[];
  channels: Record<string, unknown>[];
  consumers: Record<string, unknown>[];
}

type Rec = Record<string, unknown>;
type Query = URLSearchParams;

// Compiled copies (bench/dist/test/support, and dist/test/support for the demo) read the recordings in the source tree.
const BESIDE = fileURLToPath(new URL('../fixtures/', import.meta.url));
const FIXTURES = existsSync(BESIDE) ? BESIDE : BESIDE.replace(/(?:bench\/)?dist\/test\/fixtures\/$/, 'test/fixtures/');
const STATS_DIR = 'rabbitmq-3.10.8';

function fixture<T = unknown>(dir: string, file: string): T {
  return JSON.parse(readFileSync(`${FIXTURES}${dir}/${file}`, 'utf8')) as T;
}

function itemsOf(body: unknown): Rec[] {
  return (Array.isArray(body) ? body : (body as { items: Rec[] }).items) as Rec[];
}

const clone = <T>(value: T): T => structuredClone(value);

/** Vhost names: `/`, then vh1, vh2, ... */
export function vhostName(i: number): string {
  return i === 0 ? '/' : `vh${i}`;
}

/** The counts queue i carries (the same formula the tests check against). */
export function queueCounts(i: number): { ready: number; unacked: number } {
  return { ready: i % 97, unacked: i % 13 };
}

/** Builds the records of a simulated broker from the recorded ones. */
export function simulatedData(options: SimulatorOptions = {}): SimulatedData {
  const variant = options.variant ?? 'stats';
  const dir = variant === 'stats' ? STATS_DIR : `${STATS_DIR}-stats-disabled`;
  const nQueues = options.queues ?? 100;
  const nVhosts = Math.max(1, options.vhosts ?? 10);
  const quorumEvery = options.quorumEvery ?? 50;
  const queueTemplates = itemsOf(fixture(dir, 'queues-page1.json'));
  const classic = queueTemplates.find((q) => q.type === 'classic') ?? queueTemplates[0]!;
  const quorum = queueTemplates.find((q) => q.type === 'quorum') ?? classic;
  const overview = fixture<Rec>(dir, 'overview.json');
  if (options.managementVersion) {
    overview.management_version = options.managementVersion;
    overview.rabbitmq_version = options.managementVersion;
    overview.product_version = options.managementVersion;
  }
  const nodes = fixture<Rec[]>(dir, 'nodes.json');
  const vhostTemplate = itemsOf(fixture(dir, 'vhosts.json'))[0]!;
  const vhosts = Array.from({ length: nVhosts }, (_, i) => ({ ...clone(vhostTemplate), name: vhostName(i) }));

  const queues: Rec[] = new Array(nQueues);
  for (let i = 0; i < nQueues; i++) {
    const isQuorum = quorumEvery > 0 && i % quorumEvery === 0;
    const q = clone(isQuorum ? quorum : classic);
    q.name = `q${i}`;
    q.vhost = vhostName(i % nVhosts);
    if ('messages' in q || variant === 'stats') {
      const { ready, unacked } = queueCounts(i);
      q.messages_ready = ready;
      q.messages_unacknowledged = unacked;
      q.messages = ready + unacked;
      if ('consumers' in q) q.consumers = i % 3;
      if ('memory' in q) q.memory = 10_000 + i;
    }
    queues[i] = q;
  }
  // Counts are present in the stats-disabled records only with enable_queue_totals; kept in the
  // records here, withheld when answering (see project()).
  if (variant === 'stats-disabled') {
    for (let i = 0; i < nQueues; i++) {
      const { ready, unacked } = queueCounts(i);
      Object.assign(queues[i]!, { messages_ready: ready, messages_unacknowledged: unacked, messages: ready + unacked });
    }
  }

  const exchangeTemplates = itemsOf(fixture(dir, 'exchanges-page1.json'));
  const exchangeTemplate = exchangeTemplates.find((e) => e.type === 'topic') ?? exchangeTemplates[0]!;
  const exchanges = Array.from({ length: options.exchanges ?? 20 }, (_, i) => ({ ...clone(exchangeTemplate), name: `x${i}`, vhost: vhostName(i % nVhosts) }));
  const bindings = Array.from({ length: options.bindings ?? 20 }, (_, i) => ({
    source: `x${i % Math.max(1, exchanges.length)}`,
    vhost: vhostName(i % nVhosts),
    destination: `q${i % Math.max(1, nQueues)}`,
    destination_type: 'queue',
    routing_key: `rk.${i}`,
    arguments: {},
    properties_key: `rk.${i}`,
  }));
  const connectionTemplate = itemsOf(fixture(STATS_DIR, 'connections-page1.json'))[0]!;
  const connections = Array.from({ length: options.connections ?? 4 }, (_, i) => ({
    ...clone(connectionTemplate),
    name: `127.0.0.1:${20000 + i} -> 127.0.0.1:5672`,
    vhost: vhostName(i % nVhosts),
  }));
  const channelTemplate = itemsOf(fixture(STATS_DIR, 'channels-page1.json'))[0]!;
  const channels = Array.from({ length: options.channels ?? connections.length * 2 }, (_, i) => ({
    ...clone(channelTemplate),
    name: `127.0.0.1:${20000 + (i >> 1)} -> 127.0.0.1:5672 (${(i % 2) + 1})`,
    number: (i % 2) + 1,
    vhost: vhostName((i >> 1) % nVhosts),
  }));
  const consumerTemplate = itemsOf(fixture(STATS_DIR, 'consumers-vh0.json'))[0]!;
  const consumers = Array.from({ length: options.consumers ?? 4 }, (_, i) => ({
    ...clone(consumerTemplate),
    consumer_tag: `amq.ctag-${i}`,
    queue: { name: `q${i % Math.max(1, nQueues)}`, vhost: vhostName(i % nVhosts) },
  }));
  const totals = overview.object_totals as Rec | undefined;
  if (totals) {
    totals.queues = nQueues;
    totals.exchanges = exchanges.length;
    totals.connections = connections.length;
    if ('channels' in totals) totals.channels = channels.length;
    if ('consumers' in totals) totals.consumers = consumers.length;
  }
  return { overview, nodes, vhosts, queues, exchanges, bindings, connections, channels, consumers };
}

/** The fields a queue record has with disable_stats=true&enable_queue_totals=true (recorded). */
const TOTALS_FIELDS = fieldsOf(STATS_DIR, 'queues-disable-stats-page1.json');
/** ... and without enable_queue_totals on a broker with statistics disabled (recorded). */
const STATS_DISABLED_FIELDS = fieldsOf(`${STATS_DIR}-stats-disabled`, 'queues-page1.json');

function fieldsOf(dir: string, file: string): string[] {
  return [...new Set(itemsOf(fixture(dir, file)).flatMap((item) => Object.keys(item)))];
}

const NOT_FOUND = { error: 'Object Not Found', reason: 'Not Found' };

/** Health checks and small paths answered from recorded files, by path after /api. */
const RECORDED: Record<string, string> = {
  '/whoami': 'whoami.json',
  '/extensions': 'extensions.json',
  '/cluster-name': 'cluster-name.json',
  '/feature-flags': 'feature-flags.json',
  '/vhost-limits': 'vhost-limits.json',
  '/user-limits': 'user-limits.json',
  '/federation-links': 'federation-links.json',
  '/shovels': 'shovels.json',
  '/auth': 'auth.json',
  '/health/checks/alarms': 'health-alarms.json',
  '/health/checks/local-alarms': 'health-local-alarms.json',
  '/health/checks/virtual-hosts': 'health-vhosts.json',
  '/health/checks/node-is-quorum-critical': 'health-quorum-critical.json',
  '/health/checks/node-is-mirror-sync-critical': 'health-mirror-sync-critical.json',
  '/health/checks/port-listener/5672': 'health-port-5672.json',
  '/health/checks/port-listener/9999': 'health-port-9999.json',
  '/health/checks/protocol-listener/amqp091': 'health-proto-amqp091.json',
  '/health/checks/protocol-listener/amqp': 'health-proto-amqp091.json',
  '/health/checks/protocol-listener/mqtt': 'health-proto-mqtt.json',
};

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const data = simulatedData(options);
  const variant = options.variant ?? 'stats';
  const username = options.username ?? 'monitor';
  const password = options.password ?? 'sim-secret';
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const faults: { path: string | RegExp; fault: Fault }[] = [];
  const requests: string[] = [];
  const cache = new Map<string, Buffer>();
  const sockets = new Set<Socket>();
  let bytesSent = 0;
  const hugeProgress: { at: number; bytes: number }[] = [];
  const detailed = versionAtLeast(String(data.overview.management_version ?? ''), 3, 13);
  const byVhost = <T extends Rec>(list: T[], vhost: string) => list.filter((r) => r.vhost === vhost);

  const route = (path: string, query: Query): unknown => {
    const segments = path.split('/').slice(2).map(decodeURIComponent); // after '' and 'api'
    const [head, a, b] = segments;
    const rel = `/${segments.join('/')}`;
    const list = (items: Rec[]) => listAnswer(items, query, head === 'queues' ? variant : undefined);
    switch (head) {
      case 'overview':
        return data.overview;
      case 'nodes':
        if (a === undefined) return data.nodes;
        {
          const node = data.nodes.find((n) => n.name === a);
          if (!node) break;
          if (b === 'memory') return fixture(STATS_DIR, 'node-memory-b.json');
          if (b === undefined) return query.get('memory') === 'true' ? fixture(STATS_DIR, 'node-memory.json') : node;
        }
        break;
      case 'vhosts':
        if (a === undefined) return list(data.vhosts);
        if (b === undefined) return data.vhosts.find((v) => v.name === a) ?? new HttpAnswer(404, NOT_FOUND);
        break;
      case 'queues':
        if (a === undefined) return list(data.queues);
        if (a === 'detailed' && b === undefined) return detailed ? list(data.queues) : new HttpAnswer(404, NOT_FOUND);
        if (!data.vhosts.some((v) => v.name === a)) return new HttpAnswer(404, NOT_FOUND);
        if (b === undefined) return list(byVhost(data.queues, a));
        {
          const queue = data.queues.find((q) => q.vhost === a && q.name === b);
          return queue ? project([queue], query, variant)[0] : new HttpAnswer(404, NOT_FOUND);
        }
      case 'exchanges':
      case 'bindings':
      case 'connections':
      case 'channels':
      case 'consumers': {
        const all = data[head];
        if (a === undefined) return head === 'consumers' ? all : list(all);
        if (!data.vhosts.some((v) => v.name === a)) return new HttpAnswer(404, NOT_FOUND);
        if (b === undefined) return head === 'consumers' ? byVhost(all, a) : list(byVhost(all, a));
        break;
      }
      case 'aliveness-test':
        if (a !== undefined && data.vhosts.some((v) => v.name === a)) return { status: 'ok' };
        break;
      default: {
        const file = RECORDED[rel];
        if (file) {
          const body = fixture<Rec>(STATS_DIR, file);
          return body.status === 'failed' ? new HttpAnswer(503, body) : body;
        }
      }
    }
    return new HttpAnswer(404, NOT_FOUND);
  };

  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sim');
    requests.push(url.pathname + url.search);
    if (req.headers.authorization !== authorization) return send(res, 401, fixture(STATS_DIR, 'unauthorized.json'));
    const fault = faults.findLast((f) => (typeof f.path === 'string' ? f.path === url.pathname : f.path.test(url.pathname)))?.fault;
    const normal = () => {
      let result: unknown;
      try {
        result = route(url.pathname, url.searchParams);
      } catch (error) {
        if (error instanceof HttpAnswer) result = error;
        else throw error;
      }
      return result instanceof HttpAnswer ? result : new HttpAnswer(200, result);
    };
    const body = (a: HttpAnswer) => {
      const key = `${a.status} ${url.pathname}${url.search}`;
      if (a.status !== 200 || !fault) {
        let cached = cache.get(key);
        if (!cached) {
          cached = Buffer.from(JSON.stringify(a.body));
          cache.set(key, cached);
        }
        return cached;
      }
      return Buffer.from(JSON.stringify(a.body));
    };
    if (!fault) return send(res, normal());
    switch (fault.kind) {
      case 'delay':
        return void setTimeout(() => send(res, normal()), fault.ms);
      case 'stall':
        return;
      case 'status':
        return send(res, fault.status, { error: 'internal_error', reason: `simulated HTTP ${fault.status}` });
      case 'unauthorized':
        return send(res, 401, fixture(STATS_DIR, 'unauthorized.json'));
      case 'reset': {
        if (!fault.afterBytes) return void req.socket.destroy();
        const bytes = body(normal());
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
        res.write(bytes.subarray(0, fault.afterBytes), () => req.socket.destroy());
        bytesSent += Math.min(bytes.length, fault.afterBytes);
        return;
      }
      case 'malformed': {
        const bytes = body(normal());
        return sendBytes(res, 200, Buffer.concat([bytes.subarray(0, bytes.length >> 1), Buffer.from('}{"not": json at all')]));
      }
      case 'truncated': {
        const bytes = body(normal());
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
        res.write(bytes.subarray(0, bytes.length >> 1), () => res.destroy());
        bytesSent += bytes.length >> 1;
        return;
      }
      case 'huge':
        return void streamHuge(res, fault.bytes, fault.contentLength ?? true, (n) => {
          const before = bytesSent;
          bytesSent += n;
          if (Math.floor(before / MIB) !== Math.floor(bytesSent / MIB)) hugeProgress.push({ at: Date.now(), bytes: bytesSent });
        });
      case 'drip':
        return void drip(res, body(normal()), fault.chunkBytes, fault.everyMs, (n) => (bytesSent += n));
      case 'wrong_types': {
        const a = normal();
        if (a.status !== 200) return send(res, a);
        return sendBytes(res, 200, Buffer.from(JSON.stringify(withWrongTypes(a.body, fault.what))));
      }
    }
  };

  function send(res: ServerResponse, statusOrAnswer: number | HttpAnswer, payload?: unknown): void {
    const a = statusOrAnswer instanceof HttpAnswer ? statusOrAnswer : new HttpAnswer(statusOrAnswer, payload);
    const key = `${a.status} ${res.req.url}`;
    let bytes = a.status === 200 ? cache.get(key) : undefined;
    if (!bytes) {
      bytes = Buffer.from(JSON.stringify(a.body));
      if (a.status === 200) cache.set(key, bytes);
    }
    sendBytes(res, a.status, bytes);
  }

  function sendBytes(res: ServerResponse, status: number, bytes: Buffer): void {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length });
    res.end(bytes);
    bytesSent += bytes.length;
  }

  const server: Server = createServer((req, res) => {
    try {
      answer(req, res);
    } catch (error) {
      sendBytes(res, 500, Buffer.from(JSON.stringify({ error: 'simulator', reason: String(error) })));
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    username,
    password,
    requests,
    data,
    forget: () => cache.clear(),
    get bytesSent() {
      return bytesSent;
    },
    hugeProgress,
    changed: () => cache.clear(),
    fault(path, fault) {
      const i = faults.findIndex((f) => String(f.path) === String(path));
      if (i >= 0) faults.splice(i, 1);
      if (fault) faults.push({ path, fault });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A list answer: projected (columns, statistics mode), filtered and paged like the API. */
function listAnswer(items: Rec[], query: Query, queueVariant: Variant | undefined): unknown {
  const pageParam = query.get('page');
  if (pageParam === null) return queueVariant ? project(items, query, queueVariant) : projectColumns(items, query);
  const page = Number(pageParam);
  const pageSize = Number(query.get('page_size') ?? 100);
  if (!Number.isInteger(page) || page < 1) throw new HttpAnswer(400, { error: 'bad_request', reason: 'page must be a positive integer' });
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 500) {
    throw new HttpAnswer(400, { error: 'bad_request', reason: 'page_size must be between 1 and 500' });
  }
  let filtered = items;
  const name = query.get('name');
  if (name) {
    const regex = query.get('use_regex') === 'true' ? new RegExp(name) : undefined;
    filtered = items.filter((item) => (regex ? regex.test(String(item.name)) : String(item.name).includes(name)));
  }
  const pageCount = Math.ceil(filtered.length / pageSize);
  if (page > Math.max(1, pageCount)) throw new HttpAnswer(400, { error: 'bad_request', reason: 'page_out_of_range' });
  const slice = filtered.slice((page - 1) * pageSize, page * pageSize);
  return {
    filtered_count: filtered.length,
    item_count: slice.length,
    items: queueVariant ? project(slice, query, queueVariant) : projectColumns(slice, query),
    page,
    page_count: pageCount,
    page_size: pageSize,
    total_count: items.length,
  };
}

/** Queue records as the broker answers them in this statistics mode. */
function project(items: Rec[], query: Query, variant: Variant): Rec[] {
  const totals = query.get('enable_queue_totals') === 'true';
  let fields: string[] | undefined;
  if (query.get('disable_stats') === 'true') fields = totals ? TOTALS_FIELDS : STATS_DISABLED_FIELDS;
  else if (variant === 'stats-disabled') fields = totals ? [...new Set([...STATS_DISABLED_FIELDS, 'messages', 'messages_ready', 'messages_unacknowledged'])] : STATS_DISABLED_FIELDS;
  const shaped = fields ? items.map((item) => pick(item, fields)) : items;
  return projectColumns(shaped, query);
}

function pick(item: Rec, fields: readonly string[]): Rec {
  const out: Rec = {};
  for (const field of fields) if (field in item) out[field] = item[field];
  return out;
}

/** `columns=a,b.c`: only those fields, nested ones keeping their nesting (as RabbitMQ does). */
function projectColumns(items: Rec[], query: Query): Rec[] {
  const columns = query.get('columns');
  if (!columns) return items;
  const paths = columns.split(',').map((c) => c.split('.'));
  return items.map((item) => {
    const out: Rec = {};
    for (const path of paths) {
      let source: unknown = item;
      for (const key of path) source = source !== null && typeof source === 'object' ? (source as Rec)[key] : undefined;
      if (source === undefined) continue;
      let target = out;
      for (const key of path.slice(0, -1)) {
        target[key] ??= {};
        target = target[key] as Rec;
      }
      target[path[path.length - 1]!] = source;
    }
    return out;
  });
}

/** The answer with every record's values replaced as asked. */
export function withWrongTypes(body: unknown, what: readonly WrongType[]): unknown {
  const copy = clone(body);
  const records = Array.isArray(copy) ? copy : Array.isArray((copy as Rec | null)?.items) ? ((copy as Rec).items as unknown[]) : [copy];
  records.forEach((record, i) => {
    if (record === null || typeof record !== 'object') return;
    const r = record as Rec;
    for (const key of Object.keys(r)) {
      const value = r[key];
      if (typeof value !== 'number') continue;
      if (what.includes('numbers_as_strings')) r[key] = String(value);
      else if (what.includes('nulls')) r[key] = null;
      else if (what.includes('nested_garbage')) r[key] = { garbage: [1, { deeper: 'x' }], n: value };
    }
    if (what.includes('newline_names') && typeof r.name === 'string') r.name = `${r.name}\nrabbitmq_injected 1\n`;
    // In fields that become labels of one series (queue_info) or none: a 1 MB queue name would
    // be copied into every series of the queue, which is the label length cap's business.
    if (what.includes('megabyte_strings') && i === 0) {
      r.policy = 'p'.repeat(1 << 20);
      r.arguments = { 'x-simulated': 'a'.repeat(1 << 20) };
    }
  });
  return copy;
}

const MIB = 1024 * 1024;

/** A valid JSON list of `total` bytes, written as the socket drains. */
async function streamHuge(res: ServerResponse, total: number, contentLength: boolean, sent: (n: number) => void): Promise<void> {
  const record = Buffer.from(`{"name":"huge-${'h'.repeat(200)}","vhost":"/","type":"classic","messages":1,"state":"running"}`);
  const open = Buffer.from('[');
  const close = Buffer.from(`${JSON.stringify('x'.repeat(0))}]`); // `""]`: closes the list with a last element
  const perChunk = 256;
  const chunk = Buffer.concat(Array.from({ length: perChunk }, () => Buffer.concat([record, Buffer.from(',')])));
  const fixedBytes = open.length + close.length;
  const chunks = Math.max(0, Math.floor((total - fixedBytes) / chunk.length));
  const padding = Math.max(0, total - fixedBytes - chunks * chunk.length);
  // The padding is whitespace between elements: still valid JSON, exactly `total` bytes.
  const pad = Buffer.alloc(padding, 0x20);
  res.writeHead(200, contentLength ? { 'content-type': 'application/json', 'content-length': total } : { 'content-type': 'application/json' });
  const write = (b: Buffer) => (res.destroyed ? true : res.write(b));
  const drained = () => new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
  if (!write(open)) await drained();
  sent(open.length);
  for (let i = 0; i < chunks && !res.destroyed; i++) {
    if (!write(chunk)) await drained();
    sent(chunk.length);
  }
  if (res.destroyed) return;
  write(pad);
  res.end(close);
  sent(pad.length + close.length);
}

async function drip(res: ServerResponse, bytes: Buffer, chunkBytes: number, everyMs: number, sent: (n: number) => void): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
  for (let offset = 0; offset < bytes.length && !res.destroyed; offset += chunkBytes) {
    const piece = bytes.subarray(offset, offset + chunkBytes);
    res.write(piece);
    sent(piece.length);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  res.end();
}

function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}
