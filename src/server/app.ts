import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { HttpCounters } from '../pipeline/own-series.js';
import { OPENMETRICS_CONTENT_TYPE, TEXT_CONTENT_TYPE } from '../exposition/text-format.js';
import type { Exposition, Format } from '../exposition/exposition.js';
import type { ServedTarget } from './served-target.js';
import { landingPage, listed } from './landing-page.js';
import { acceptsGzip, chooseFormat } from './negotiate.js';
import { reloadEndpoint, type ReloadAnswer } from './reload-endpoint.js';
import { knownTargets } from './unknown-target.js';
import { writeChunks } from '../exposition/write-chunks.js';

export interface ScrapeBound {
  /** Scrapes in progress at once (web.max_concurrent_scrapes). */
  maxConcurrent: number;
  counters: HttpCounters;
}

export interface AppOptions {
  /** Where the metrics are served (--web.telemetry-path). */
  telemetryPath?: string;
  /** POST /-/reload: re-reads the configuration; without it the path answers 404. */
  reload?: () => Promise<ReloadAnswer>;
  /** Headers, rate limit and basic auth of --web.config.file, before every route. */
  guard?: RequestHandler;
  /** Without it, scrapes are not bounded. */
  scrapes?: ScrapeBound;
  /** With several targets, what the telemetry path serves: the process's own series (each target is on /probe). */
  ownMetrics?: () => Promise<Exposition>;
  /**
   * web.per_node_scrapes: each node is a target of its own (NODE_DISCOVERY_PATH lists them with
   * the targets), a target's /probe serves what none of its nodes does, and the telemetry path
   * serves ownMetrics even with one target. Off, node targets are not served: scraped beside the
   * whole target, they would be counted twice.
   */
  perNodeScrapes?: boolean;
}

/** Where a target's snapshot is served: /probe?target=NAME. */
export const PROBE_PATH = '/probe';

/** Prometheus http_sd_configs: one scrape target per node of every target (served on /probe?target=NAME&node=NODE). */
export const NODE_DISCOVERY_PATH = '/discovery/nodes';

const NODE_TARGETS_OFF = 'node targets are off: set web.per_node_scrapes: true to scrape each node as a target of its own (docs/node-targets.md)';

/** How much of an unknown target name a refusal quotes. */
const QUOTED_NAME_CHARS = 64;

/** The HTTP side: it reads finished snapshots and never talks to the broker. `targets` is asked on
 * every request: a reload may replace them. */
export function createApp(targets: () => readonly ServedTarget[], log: Logger, { telemetryPath = '/metrics', guard, reload, scrapes, ownMetrics, perNodeScrapes = false }: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  // ETags would hash every multi-megabyte body on every scrape.
  app.set('etag', false);
  if (guard) app.use(guard);

  // Each scrape in progress may hold a snapshot: past the bound, one more is refused at once
  // rather than queued, so a flood of scrapers costs neither memory nor waiting sockets.
  let inProgress = 0;
  app.get([telemetryPath, PROBE_PATH], (_req: Request, res: Response, next: express.NextFunction) => {
    if (!scrapes) return next();
    if (inProgress >= scrapes.maxConcurrent) {
      scrapes.counters.scrapesRefused++;
      res
        .status(503)
        .set('Retry-After', '1')
        .type('text/plain')
        .send(`too many scrapes in progress (web.max_concurrent_scrapes is ${scrapes.maxConcurrent}): try again in a second\n`);
      return;
    }
    inProgress++;
    res.once('close', () => inProgress--);
    next();
  });

  // One target: its snapshot, as with every version before several targets. Several: the
  // exporter's own series only, each target's on /probe (the multi-target pattern).
  app.get(telemetryPath, async (req: Request, res: Response) => {
    const all = targets();
    if (all.length === 1 && !(perNodeScrapes && ownMetrics)) return serve(req, res, (gzipFormat) => all[0]!.exposition(gzipFormat));
    if (all.length >= 1 && ownMetrics) return serve(req, res, () => ownMetrics());
    res.status(503).type('text/plain').send('no target configured\n');
  });

  app.get(PROBE_PATH, async (req: Request, res: Response) => {
    const all = targets();
    const names = all.map((t) => t.name);
    const asked = req.query.target;
    const known = knownTargets(names, typeof asked === 'string' ? asked : undefined);
    if (asked === undefined || asked === '') {
      res.status(400).type('text/plain').send(`missing parameter "target": ask ${PROBE_PATH}?target=NAME (${known})\n`);
      return;
    }
    if (typeof asked !== 'string') {
      res.status(400).type('text/plain').send(`parameter "target" must be given once, as one name (${known})\n`);
      return;
    }
    const target = all.find((t) => t.name === asked);
    if (!target) {
      res.status(404).type('text/plain').send(`unknown target ${quote(asked)} (${known})\n`);
      return;
    }
    const node = req.query.node;
    if (node === undefined) return serve(req, res, (gzipFormat) => (perNodeScrapes ? target.restExposition(gzipFormat) : target.exposition(gzipFormat)));
    if (!perNodeScrapes) {
      res.status(404).type('text/plain').send(`${NODE_TARGETS_OFF}\n`);
      return;
    }
    if (typeof node !== 'string' || node === '') {
      res.status(400).type('text/plain').send(`parameter "node" must be given once, as one node name (${NODE_DISCOVERY_PATH} lists them)\n`);
      return;
    }
    const share = await target.nodeExposition(node, acceptsGzip(req.get('accept-encoding')) ? chooseFormat(req.get('accept')) : undefined);
    if (!share) {
      const nodes = target.nodes();
      const listed = nodes.length === 0 ? 'its nodes are not known yet: the nodes collector has not polled, or failed' : `its nodes: ${nodes.map((n) => JSON.stringify(n)).join(', ')}`;
      res.status(404).type('text/plain').send(`target ${JSON.stringify(asked)} has no node ${quote(node)} (${listed})\n`);
      return;
    }
    return serve(req, res, () => Promise.resolve(share));
  });

  // Every target, and every node of it as a target of its own, in the format of Prometheus' http_sd_configs.
  app.get(NODE_DISCOVERY_PATH, (req: Request, res: Response) => {
    if (!perNodeScrapes) {
      res.status(404).type('text/plain').send(`${NODE_TARGETS_OFF}\n`);
      return;
    }
    const address = req.get('host');
    if (!address) {
      res.status(400).type('text/plain').send('no Host header: the discovered targets are addressed as the request addressed this exporter\n');
      return;
    }
    const groups = targets().flatMap((t) => [
      { targets: [address], labels: { __metrics_path__: PROBE_PATH, __param_target: t.name, instance: t.name } },
      ...t.nodes().map((node) => ({
        targets: [address],
        labels: { __metrics_path__: PROBE_PATH, __param_target: t.name, __param_node: node, instance: `${t.name}/${node}` },
      })),
    ]);
    res.status(200).type('application/json').set('Cache-Control', 'no-store').send(JSON.stringify(groups));
  });

  /** Writes an exposition in the format and encoding the scraper asked for. */
  async function serve(req: Request, res: Response, exposition: (gzipFormat?: Format) => Promise<Exposition>): Promise<void> {
    const format = chooseFormat(req.get('accept'));
    const gzip = acceptsGzip(req.get('accept-encoding'));
    const current = await exposition(gzip ? format : undefined);
    // Compressed: the shared gzip of this exposition. Plain: its family chunks, written in turn.
    const chunks = gzip ? await current.gzip(format) : current.chunks(format);
    res.status(200);
    res.setHeader('Content-Type', format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE);
    res.setHeader('Vary', 'Accept, Accept-Encoding');
    res.setHeader('Cache-Control', 'no-store');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', chunks.reduce((n, c) => n + c.length, 0));
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await writeChunks(res, chunks);
  }

  app.get('/-/healthy', (_req, res) => {
    res.type('text/plain').send('Healthy\n');
  });

  app.get('/-/ready', (_req, res) => {
    const ready = targets().every((t) => t.ready);
    res.status(ready ? 200 : 503).type('text/plain').send(ready ? 'Ready\n' : 'Not ready: first poll not finished\n');
  });

  app.get('/', (req, res) => {
    const now = Date.now();
    const { page, target } = req.query;
    if ((page !== undefined && typeof page !== 'string') || (target !== undefined && typeof target !== 'string')) {
      res.status(400).type('text/plain').send('parameters "page" and "target" must each be given once\n');
      return;
    }
    // Every target's verdict, but whole statuses only of the targets shown (10 of 10,000, or the one asked for).
    const shown = target === undefined ? targets() : targets().filter((t) => t.name === target);
    const answer = landingPage(
      shown.map((t) => listed(t)),
      { telemetryPath, probePath: PROBE_PATH, now, ...(page === undefined ? {} : { page }), ...(target === undefined ? {} : { target }) },
    );
    res.status(answer.status).type('html').set('Cache-Control', 'no-store').send(answer.html);
  });

  if (reload) app.post('/-/reload', reloadEndpoint(reload));

  // A known path asked with another method: 405 and the methods it takes, not "not found".
  const allowed = new Map<string, string>([[telemetryPath, 'GET, HEAD'], [PROBE_PATH, 'GET, HEAD'], [NODE_DISCOVERY_PATH, 'GET, HEAD'], ['/-/healthy', 'GET, HEAD'], ['/-/ready', 'GET, HEAD'], ['/', 'GET, HEAD']]);
  if (reload) allowed.set('/-/reload', 'POST');
  app.use((req: Request, res: Response, next: express.NextFunction) => {
    const methods = allowed.get(req.path);
    if (!methods) return next();
    res.status(405).set('Allow', methods).type('text/plain').send(`method ${req.method} not allowed on ${req.path}: use ${methods}\n`);
  });

  app.use((req: Request, res: Response) => {
    res.status(404).type('text/plain').send(`not found: ${req.method} ${req.path}\n`);
  });

  // Express 5 forwards rejected promises here; the process keeps serving.
  app.use((error: unknown, req: Request, res: Response, _next: express.NextFunction) => {
    log.error({ err: error, path: req.path }, 'request failed');
    if (!res.headersSent) res.status(500).type('text/plain').send('internal error\n');
  });
  return app;
}

/** A name from the request quoted as a JSON string, cut: no control character or markup of the request reaches the body as it was. */
function quote(name: string): string {
  return JSON.stringify([...name].slice(0, QUOTED_NAME_CHARS).join('')) + (name.length > QUOTED_NAME_CHARS ? '…' : '');
}
