// Set-up of the measured broker: its management API, the state (vhosts, queues, exchanges,
// bindings) declared over AMQP, and the steady publish/consume load.
import amqp from 'amqplib';
import { request } from 'undici';
import type { BrokerHandle } from '../../test/harness/broker/broker.js';
import { S } from './settings.js';
import { prng } from '../../test/support/prng.js';
import { now, withTimeout, readBody, onCleanup } from './util.js';

/** What the benchmark reads of /api/overview. */
export interface Overview {
  rabbitmq_version?: string;
  erlang_version?: string;
  object_totals?: { queues?: number; exchanges?: number; [key: string]: number | undefined };
  message_stats?: { publish_details?: { rate?: number } };
}

export interface BrokerApi {
  auth: string;
  get<T = unknown>(path: string): Promise<T>;
  put(path: string, body: unknown): Promise<unknown>;
}

export interface VhostPlan {
  name: string;
  queues: { name: string; quorum: boolean }[];
  exchanges: string[];
  bindings: { queue: string; exchange: string; key: string }[];
  /** Queues with traffic. */
  active: string[];
  publishers: number;
  consumers: number;
}

export function brokerApi(broker: BrokerHandle): BrokerApi {
  const auth = `Basic ${Buffer.from(`${broker.username}:${broker.password}`).toString('base64')}`;
  const base = broker.managementUrl;
  async function call(method: 'GET' | 'PUT', p: string, body?: unknown): Promise<unknown> {
    const res = await request(base + p, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    });
    const text = (await readBody(res.body)).toString('utf8');
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  }
  return { auth, get: async <T>(p: string) => (await call('GET', p)) as T, put: (p, body) => call('PUT', p, body) };
}

// ---------------------------------------------------------------------------
// state: vhosts, queues, exchanges, bindings, traffic

function vhostName(i: number): string {
  return `bench-${String(i).padStart(2, '0')}`;
}

export function planState(): VhostPlan[] {
  const rnd = prng(42);
  const every = S.quorumPercent > 0 ? Math.max(1, Math.round(100 / S.quorumPercent)) : Infinity;
  const vhosts: VhostPlan[] = [];
  for (let v = 0; v < S.vhosts; v++) {
    const share = (n: number) => Math.floor(n / S.vhosts) + (v < n % S.vhosts ? 1 : 0);
    const queues: VhostPlan['queues'] = [];
    for (let j = 0; j < share(S.queues); j++) {
      queues.push({ name: `app${j % 20}.events.q${String(j).padStart(5, '0')}`, quorum: j % every === 0 });
    }
    const exchanges = Array.from({ length: share(S.exchanges) }, (_, k) => `ex.topic.${String(k).padStart(3, '0')}`);
    const bindings: VhostPlan['bindings'] = [];
    if (exchanges.length > 0 && queues.length > 0) {
      for (let b = 0; b < share(S.bindings); b++) {
        bindings.push({
          queue: queues[Math.floor(rnd() * queues.length)]!.name,
          exchange: exchanges[Math.floor(rnd() * exchanges.length)]!,
          key: `orders.${b % 97}.#`,
        });
      }
    }
    const active = queues.slice(0, Math.min(queues.length, share(S.activeQueues))).map((q) => q.name);
    vhosts.push({ name: vhostName(v), queues, exchanges, bindings, active, publishers: share(S.publishers), consumers: share(S.consumers) });
  }
  return vhosts;
}

export async function buildState(broker: BrokerHandle, api: BrokerApi, vhosts: VhostPlan[]): Promise<{ vhostsSeconds: number; declareSeconds: number }> {
  const connections: amqp.ChannelModel[] = [];
  onCleanup(async () => {
    await Promise.all(connections.map((c) => withTimeout(c.close(), 10_000, 'close AMQP connection').catch(() => undefined)));
  });
  const started = now();
  for (const vh of vhosts) {
    await api.put(`/api/vhosts/${encodeURIComponent(vh.name)}`, {});
    await api.put(`/api/permissions/${encodeURIComponent(vh.name)}/${encodeURIComponent(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
  }
  const vhostsAt = now();

  // Declarations: one connection per vhost, BENCH_SETUP_CHANNELS channels each, every channel
  // declaring its share in sequence; all vhosts at once.
  await Promise.all(
    vhosts.map(async (vh) => {
      const conn = await amqp.connect(`${broker.amqpUrl}/${encodeURIComponent(vh.name)}`);
      connections.push(conn);
      conn.on('error', () => undefined);
      const channels = await Promise.all(Array.from({ length: S.setupChannels }, () => conn.createChannel()));
      const work = async <T>(items: T[], fn: (ch: amqp.Channel, item: T) => Promise<unknown>) => {
        let next = 0;
        await Promise.all(channels.map(async (ch) => {
          for (let i = next++; i < items.length; i = next++) await fn(ch, items[i]!);
        }));
      };
      await work(vh.exchanges, (ch, ex) => ch.assertExchange(ex, 'topic', { durable: true }));
      await work(vh.queues, (ch, q) =>
        ch.assertQueue(q.name, q.quorum ? { durable: true, arguments: { 'x-queue-type': 'quorum' } } : { durable: true }),
      );
      await work(vh.bindings, (ch, b) => ch.bindQueue(b.queue, b.exchange, b.key));
      await Promise.all(channels.map((ch) => ch.close()));
      await conn.close();
      connections.splice(connections.indexOf(conn), 1);
    }),
  );
  const declaredAt = now();
  return { vhostsSeconds: (vhostsAt - started) / 1000, declareSeconds: (declaredAt - vhostsAt) / 1000 };
}

/** Publishers (default exchange, round robin over the vhost's active queues) and consumers (manual ack). */
export interface Traffic {
  counts: { published: number; consumed: number };
  connections: number;
  /** Stops or restarts publishing (connections, channels and consumers stay). */
  setPaused(paused: boolean): void;
}

export async function startTraffic(broker: BrokerHandle, vhosts: VhostPlan[]): Promise<Traffic> {
  const connections: amqp.ChannelModel[] = [];
  const timers: NodeJS.Timeout[] = [];
  const counts = { published: 0, consumed: 0 };
  let paused = false;
  onCleanup(async () => {
    for (const t of timers) clearInterval(t);
    await Promise.all(connections.map((c) => withTimeout(c.close(), 10_000, 'close AMQP connection').catch(() => undefined)));
  });
  const totalPublishers = vhosts.reduce((n, vh) => n + (vh.active.length > 0 ? vh.publishers : 0), 0);
  const perPublisherRate = totalPublishers > 0 ? S.rate / totalPublishers : 0;
  const payload = Buffer.alloc(256, 'x');
  for (const vh of vhosts) {
    if (vh.active.length === 0) continue;
    const url = `${broker.amqpUrl}/${encodeURIComponent(vh.name)}`;
    for (let c = 0; c < vh.consumers; c++) {
      const conn = await amqp.connect(url);
      conn.on('error', () => undefined);
      connections.push(conn);
      const ch = await conn.createChannel();
      await ch.prefetch(100);
      for (let i = c; i < vh.active.length; i += vh.consumers) {
        await ch.consume(vh.active[i]!, (msg) => {
          if (!msg) return;
          counts.consumed++;
          ch.ack(msg);
        });
      }
    }
    for (let p = 0; p < vh.publishers; p++) {
      const conn = await amqp.connect(url);
      conn.on('error', () => undefined);
      connections.push(conn);
      const ch = await conn.createChannel();
      let cursor = p;
      let credit = 0;
      let blocked = false;
      ch.on('drain', () => (blocked = false));
      const tickMs = 100;
      timers.push(
        setInterval(() => {
          if (paused) return;
          credit += (perPublisherRate * tickMs) / 1000;
          while (credit >= 1 && !blocked) {
            credit -= 1;
            const q = vh.active[cursor++ % vh.active.length]!;
            counts.published++;
            if (!ch.publish('', q, payload, { persistent: false })) blocked = true;
          }
          if (credit > 10) credit = 10; // do not catch up after a stall
        }, tickMs),
      );
    }
  }
  return { counts, connections: connections.length, setPaused: (value) => (paused = value) };
}
