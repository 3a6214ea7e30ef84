import type { Server } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { defineMetrics } from '../../../src/model/metric-def.js';
import { OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE } from '../../../src/exposition/text-format.js';
import { SampleSink } from '../../../src/exposition/sample-sink.js';
import { newHttpCounters } from '../../../src/pipeline/own-series.js';
import type { ProcessMetrics } from '../../../src/pipeline/process-metrics.js';
import { createApp, type AppOptions } from '../../../src/server/app.js';
import { Exposition } from '../../../src/exposition/exposition.js';
import { SnapshotStore } from '../../../src/pipeline/snapshot-store.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import type { ServedTarget } from '../../../src/server/served-target.js';
import { targetStatus, targetVerdict } from '../../../src/pipeline/target-status.js';

const M = defineMetrics('overview', {
  queues: { name: 'rabbitmq_test_queues', type: 'gauge', help: 'Queues.' },
  published: { name: 'rabbitmq_test_published_total', type: 'counter', labels: ['vhost'], help: 'Published.' },
});

interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

function stubTarget(url = 'http://broker.example:15672', name = 'default') {
  const state = new TargetState(name, url);
  state.register('overview', 15_000, 45_000, { decidesUp: true });
  state.register('nodes', 15_000, 45_000);
  const store = new SnapshotStore(state, { requests: 3, bytesRead: 100 }, newHttpCounters(), { families: async () => [] } as unknown as ProcessMetrics);
  return served(state, store);
}

/** What src/target.ts hands the server, made of a state and its store. */
function served<Store extends Pick<SnapshotStore, 'forScrape'> & Partial<Pick<SnapshotStore, 'nodes' | 'forNodeScrape' | 'forRestScrape'>>>(state: TargetState, store: Store): ServedTarget & { state: TargetState; store: Store } {
  const target: ServedTarget & { state: TargetState; store: Store } = {
    state,
    store,
    name: state.name,
    get ready() {
      return state.firstPollAttempted;
    },
    // The store in place when asked: a test may swap it.
    exposition: (gzipFormat) => target.store.forScrape(gzipFormat),
    nodes: () => target.store.nodes?.() ?? [],
    restExposition: (gzipFormat) => target.store.forRestScrape?.(gzipFormat) ?? target.store.forScrape(gzipFormat),
    nodeExposition: (node, gzipFormat) => target.store.forNodeScrape?.(node, gzipFormat) ?? Promise.resolve(undefined),
    verdict: () => targetVerdict(state),
    status: () => targetStatus(state),
  };
  return target;
}

function succeedOverview(target: { state: TargetState }): void {
  const sink = new SampleSink();
  sink.add(M.queues, [], 10_000);
  sink.add(M.published, ['/'], 317_500);
  target.state.succeeded('overview', sink.finish(), 0.05, 0);
}

async function start(targets: ServedTarget[], options: AppOptions = {}): Promise<number> {
  const app = createApp(() => targets, pino({ level: 'silent' }), options);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return (server.address() as AddressInfo).port;
}

describe('/metrics', () => {
  it('200, Prometheus text content type, the snapshot as body', async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target]);
    const res = await get(port, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TEXT_CONTENT_TYPE);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    const text = res.body.toString('utf8');
    expect(text).toContain('\nrabbitmq_test_queues 10000\n');
    expect(text).toContain('\nrabbitmq_up 1\n');
    expect(text).not.toContain('# EOF');
    expect(Number(res.headers['content-length'])).toBe(res.body.length);
    expect(res.body.equals((await target.store.current()).body('text'))).toBe(true);
  });

  it("Prometheus' OpenMetrics Accept header gives OpenMetrics", async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target]);
    const res = await get(port, '/metrics', { accept: 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.4' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(OPENMETRICS_CONTENT_TYPE);
    const text = res.body.toString('utf8');
    expect(text.endsWith('# EOF\n')).toBe(true);
    expect(text).toContain('# TYPE rabbitmq_test_published counter\n');
    expect(text).toContain('rabbitmq_test_published_total{vhost="/"} 317500\n');
  });

  it('Accept-Encoding gzip: Content-Encoding gzip, and the body gunzips to the snapshot', async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target]);
    for (const [accept, format] of [
      [undefined, 'text'],
      ['application/openmetrics-text;version=1.0.0', 'openmetrics'],
    ] as const) {
      const res = await get(port, '/metrics', { 'accept-encoding': 'gzip, deflate', ...(accept ? { accept } : {}) });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(gunzipSync(res.body).equals((await target.store.current()).body(format))).toBe(true);
    }
  });

  it('gzip;q=0 is not gzip', async () => {
    const target = stubTarget();
    const port = await start([target]);
    const res = await get(port, '/metrics', { 'accept-encoding': 'gzip;q=0, identity' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString('utf8')).toContain('rabbitmq_up 0');
  });

  it('HEAD has the headers and no body', async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target]);
    const res = await get(port, '/metrics', {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TEXT_CONTENT_TYPE);
    expect(Number(res.headers['content-length'])).toBe((await target.store.current()).body('text').length);
    expect(res.body.length).toBe(0);
  });

  it('a failing snapshot gives 500 and the server keeps serving', async () => {
    const broken = served(new TargetState('default', 'http://x'), { forScrape: () => Promise.reject(new Error('boom')) });
    const port = await start([broken]);
    const res = await get(port, '/metrics');
    expect(res.status).toBe(500);
    expect(res.body.toString()).toBe('internal error\n');
    expect((await get(port, '/-/healthy')).status).toBe(200);
  });

  it('no target configured: 503', async () => {
    const port = await start([]);
    const res = await get(port, '/metrics');
    expect(res.status).toBe(503);
  });
});

// Issue 14: several targets, the multi-target pattern.
describe('/probe?target=NAME and /metrics with several targets', () => {
  const OWN = defineMetrics('overview', { own: { name: 'rabbitmq_test_own_series', type: 'gauge', help: 'The process.' } });
  const ownMetrics = async () => {
    const sink = new SampleSink();
    sink.add(OWN.own, [], 7);
    return Exposition.of(sink.finish());
  };

  async function twoTargets() {
    const orders = stubTarget('http://orders.example:15672', 'orders');
    const billing = stubTarget('http://billing.example:15672', 'billing');
    succeedOverview(orders);
    const port = await start([orders, billing], { ownMetrics });
    return { orders, billing, port };
  }

  it("serves each target's snapshot, with /metrics' content negotiation and gzip", async () => {
    const { orders, billing, port } = await twoTargets();
    const res = await get(port, '/probe?target=orders');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(TEXT_CONTENT_TYPE);
    expect(res.body.equals((await orders.store.current()).body('text'))).toBe(true);
    expect(res.body.toString()).toContain('\nrabbitmq_up 1\n');
    const other = await get(port, '/probe?target=billing', { accept: 'application/openmetrics-text;version=1.0.0', 'accept-encoding': 'gzip' });
    expect(other.status).toBe(200);
    expect(other.headers['content-type']).toBe(OPENMETRICS_CONTENT_TYPE);
    expect(other.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(other.body).equals((await billing.store.current()).body('openmetrics'))).toBe(true);
    expect(gunzipSync(other.body).toString()).toContain('\nrabbitmq_up 0\n');
    const head = await get(port, '/probe?target=orders', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it("/metrics carries the exporter's own series only, no target's", async () => {
    const { port } = await twoTargets();
    const text = (await get(port, '/metrics')).body.toString();
    expect(text).toContain('\nrabbitmq_test_own_series 7\n');
    expect(text).not.toContain('rabbitmq_up');
    expect(text).not.toContain('rabbitmq_test_queues');
  });

  it('with one target, /metrics and /probe serve its snapshot', async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target], { ownMetrics });
    const snapshot = (await target.store.current()).body('text');
    expect((await get(port, '/metrics')).body.equals(snapshot)).toBe(true);
    expect((await get(port, '/probe?target=default')).body.equals(snapshot)).toBe(true);
  });

  it('a missing, repeated or unknown name is refused in plain text naming the configured targets', async () => {
    const { port } = await twoTargets();
    for (const path of ['/probe', '/probe?target=', '/probe?other=orders']) {
      const res = await get(port, path);
      expect(res.status, path).toBe(400);
      expect(res.body.toString(), path).toBe('missing parameter "target": ask /probe?target=NAME (configured targets: orders, billing)\n');
    }
    const twice = await get(port, '/probe?target=orders&target=billing');
    expect(twice.status).toBe(400);
    expect(twice.body.toString()).toBe('parameter "target" must be given once, as one name (configured targets: orders, billing)\n');
    const unknown = await get(port, '/probe?target=shipping');
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/plain/);
    expect(unknown.body.toString()).toBe('unknown target "shipping" (configured targets: orders, billing)\n');
  });

  it('quotes an unknown name escaped and cut, never as markup', async () => {
    const { port } = await twoTargets();
    const name = `<script>alert(1)</script>\r\n${'x'.repeat(200)}`;
    const res = await get(port, `/probe?target=${encodeURIComponent(name)}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const body = res.body.toString();
    expect(body).toBe(`unknown target ${JSON.stringify([...name].slice(0, 64).join(''))}… (configured targets: orders, billing)\n`);
    expect(body).not.toContain('\r');
    expect(body.length).toBeLessThan(160);
  });

  it('scrapes of /probe count against web.max_concurrent_scrapes like /metrics', async () => {
    const counters = newHttpCounters();
    const slow = stubTarget('http://slow.example:15672', 'slow');
    let release!: () => void;
    let entered!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const inProgress = new Promise<void>((resolve) => (entered = resolve));
    const store = slow.store;
    (slow as { store: unknown }).store = {
      forScrape: async () => {
        entered();
        await held;
        return store.current();
      },
    };
    const port = await start([slow, stubTarget('http://b.example', 'b')], { ownMetrics, scrapes: { maxConcurrent: 1, counters } });
    const first = get(port, '/probe?target=slow');
    await inProgress;
    const refused = await get(port, '/probe?target=b');
    expect(refused.status).toBe(503);
    expect(refused.body.toString()).toContain('web.max_concurrent_scrapes is 1');
    expect(counters.scrapesRefused).toBe(1);
    release();
    expect((await first).status).toBe(200);
    expect((await get(port, '/probe?target=b')).status).toBe(200);
  });

  it('the landing page lists every target with its state and its /probe link', async () => {
    const { port } = await twoTargets();
    const html = (await get(port, '/')).body.toString();
    expect(html).toMatch(/<span class="verdict">healthy<\/span> <a href="\/\?target=orders">orders<\/a> <small>http:\/\/orders.example:15672<\/small>[\s\S]*<a href="\/probe\?target=orders">/);
    expect(html).toMatch(/<span class="verdict">starting<\/span> <a href="\/\?target=billing">billing<\/a> <small>http:\/\/billing.example:15672<\/small>[\s\S]*<a href="\/probe\?target=billing">/);
    expect(html).toContain("/metrics serves the exporter's own series, each target's are on /probe?target=NAME");
  });
});

describe('health, readiness, landing page, 404', () => {
  it('/-/healthy is 200', async () => {
    const port = await start([stubTarget()]);
    const res = await get(port, '/-/healthy');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('Healthy\n');
  });

  it('/-/ready is 503 before the first overview attempt and 200 after, even a failed one', async () => {
    const target = stubTarget();
    const port = await start([target]);
    let res = await get(port, '/-/ready');
    expect(res.status).toBe(503);
    expect(res.body.toString()).toContain('Not ready');
    // A finished nodes poll does not make it ready: the overview decides.
    target.state.succeeded('nodes', [], 0.1, 0);
    expect((await get(port, '/-/ready')).status).toBe(503);
    target.state.failed('overview', 'GET /api/overview: ECONNREFUSED', 0.01);
    res = await get(port, '/-/ready');
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('Ready\n');
  });

  it('/-/ready is 200 after a successful first overview poll', async () => {
    const target = stubTarget();
    succeedOverview(target);
    const port = await start([target]);
    expect((await get(port, '/-/ready')).status).toBe(200);
  });

  it('/ shows the target URL and the collectors, and escapes HTML in errors', async () => {
    const target = stubTarget('http://broker.example:15672/rabbit');
    succeedOverview(target);
    target.state.failed('nodes', '<script>alert("x")</script> & more', 0.3);
    const port = await start([target]);
    const res = await get(port, '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const html = res.body.toString('utf8');
    expect(html).toContain('http://broker.example:15672/rabbit');
    expect(html).toContain('<tr class="condition-ok"><td>overview</td><td class="condition">ok</td>');
    expect(html).toContain('<tr class="condition-failing"><td>nodes</td><td class="condition">failing</td>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; more');
    expect(html).toContain('<span class="verdict">degraded</span>');
  });

  // Issue 24: 10,000 targets made a 31.8 MB page of 10,000 tables.
  it('/ with 10,000 targets is one page of the worst, under 200 kB; ?target= and ?page= pick others', async () => {
    const targets = Array.from({ length: 10_000 }, (_, i) => stubTarget(`http://mq-${i}.example:15672`, `mq-${i}`));
    for (const [i, t] of targets.entries()) {
      if (i === 4321) t.state.failed('overview', 'GET /api/overview: ECONNREFUSED', 0.01);
      else succeedOverview(t);
    }
    const port = await start(targets);
    const first = await get(port, '/');
    expect(first.status).toBe(200);
    expect(first.body.length).toBeLessThan(200 * 1024);
    expect(first.body.toString()).toMatch(/<section class="target verdict-down">\n<h2><span class="verdict">down<\/span> <a href="\/\?target=mq-4321">/);
    expect((await get(port, '/?target=mq-9999')).body.toString()).toContain('>mq-9999</a>');
    expect((await get(port, '/?page=1000')).status).toBe(200);
    expect((await get(port, '/?page=1001')).status).toBe(404);
    expect((await get(port, '/?page=1&page=2')).status).toBe(400);
  });

  it('unknown paths are 404', async () => {
    const port = await start([stubTarget()]);
    for (const path of ['/metricz', '/metrics/extra', '/-/reload', '/api/overview']) {
      const res = await get(port, path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString()).toBe(`not found: GET ${path}\n`);
    }
  });
});
