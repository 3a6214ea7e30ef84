/**
 * The queue collector alone, in process: 100,000 simulated queues (test/support's simulator
 * records), a set fraction of them changing between polls (scale/queue-changes.ts), and per poll
 * the process's CPU (all threads: zlib's pool included) from answer parsing through rendering to
 * the gzip of the exposition, against JSON.parse of the same bodies; the heap after a full GC.
 * The answers are serialised before each timed poll, so the figure holds no simulator work.
 *
 *   npm run build && tsc -p bench/tsconfig.json && node --expose-gc bench/dist/bench/queue-poll/main.js
 *   (QUEUE_POLL_QUEUES, QUEUE_POLL_FRACTION, QUEUE_POLL_POLLS override the defaults)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { BrokerApi } from '../../src/collectors/kit/collector.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { SampleSink } from '../../src/exposition/sample-sink.js';
import { Exposition } from '../../src/exposition/exposition.js';
import { project } from '../../test/support/list-projection.js';
import { BROKER_3_10_8 } from '../../test/support/run-collector.js';
import { simulatedData } from '../../test/support/management-simulator.js';
import { startRun } from '../provenance.js';
import { queueChanger } from '../scale/queue-changes.js';

const QUEUES = Number(process.env.QUEUE_POLL_QUEUES ?? 100_000);
const FRACTION = Number(process.env.QUEUE_POLL_FRACTION ?? 0.1);
const POLLS = Number(process.env.QUEUE_POLL_POLLS ?? 5);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

type Rec = Record<string, unknown>;
const maybeGc = (globalThis as { gc?: () => void }).gc;
if (!maybeGc) throw new Error('run with node --expose-gc');
const gc: () => void = maybeGc;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/** The answer of the paged list endpoint to one query, serialised (as 3.10.8 answers: see queue-fixtures). */
function answer(items: Rec[], query: Record<string, string>): string {
  const list = query.columns ? items.map((item) => project(item, query.columns!)) : items;
  if (query.page === undefined) return JSON.stringify(list);
  const page = Number(query.page);
  const size = Number(query.page_size ?? 100);
  const slice = list.slice((page - 1) * size, page * size);
  return JSON.stringify({ items: slice, page, page_count: Math.ceil(list.length / size), page_size: size, item_count: slice.length, filtered_count: list.length, total_count: items.length });
}

type Query = Record<string, string | number | boolean>;
const stringQuery = (query: Query | undefined): Record<string, string> => Object.fromEntries(Object.entries(query ?? {}).map(([k, v]) => [k, String(v)]));
const keyOf = (p: string, query: Query | undefined) => `${p}?${new URLSearchParams(stringQuery(query)).toString()}`;

async function main(): Promise<void> {
  const run = startRun();
  const queues = simulatedData({ queues: QUEUES, vhosts: 10 }).queues;
  const change = queueChanger(queues);
  const asked = new Map<string, { path: string; query: Record<string, string> }>();
  let bodies = new Map<string, string>();
  const api: BrokerApi = {
    get: <T>(p: string, query?: Query) => {
      const key = keyOf(p, query);
      if (!asked.has(key)) asked.set(key, { path: p, query: stringQuery(query) });
      const body = bodies.get(key) ?? answer(p === '/api/queues' ? queues : [], asked.get(key)!.query);
      return Promise.resolve(JSON.parse(body) as T);
    },
    getOptional: <T>(p: string, query?: Query) => api.get<T>(p, query),
  };
  const options = queuesCollector.optionsSchema!.parse({});
  const carryOver = new Map<string, unknown>();
  const log = pino({ level: 'silent' });
  const poll = async () => {
    const sink = new SampleSink(undefined, undefined);
    await queuesCollector.collect({ api, broker: BROKER_3_10_8, sink, log, options, signal: new AbortController().signal, carryOver, share: undefined, limits: undefined, lastServed: undefined } as never);
    const exposition = Exposition.of(sink.finish());
    return { samples: exposition.sampleCount, gzipBytes: (await exposition.gzip('text')).reduce((n, piece) => n + piece.length, 0) };
  };
  await poll(); // warm-up: also learns which queries a poll makes
  await poll();
  const cpu: number[] = [];
  const parse: number[] = [];
  const heap: number[] = [];
  let last = { samples: 0, gzipBytes: 0 };
  for (let i = 0; i < POLLS; i++) {
    change(FRACTION);
    bodies = new Map([...asked].map(([key, q]) => [key, answer(q.path === '/api/queues' ? queues : [], q.query)]));
    gc();
    const start = process.cpuUsage();
    last = await poll();
    cpu.push(cpuSeconds(process.cpuUsage(start)));
    gc();
    heap.push(process.memoryUsage().heapUsed);
    const parseStart = process.cpuUsage();
    for (const body of bodies.values()) JSON.parse(body);
    parse.push(cpuSeconds(process.cpuUsage(parseStart)));
  }
  const result = {
    queues: QUEUES,
    changingFraction: FRACTION,
    polls: POLLS,
    samples: last.samples,
    gzipBytes: last.gzipBytes,
    cpuPerPollSeconds: median(cpu),
    jsonParseSeconds: median(parse),
    cpuOverJsonParse: median(cpu) / median(parse),
    heapAfterGcMiB: median(heap) / 2 ** 20,
    rssMiB: process.memoryUsage().rss / 2 ** 20,
    each: { cpu, parse, heap },
    provenance: run.finish(),
  };
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/results/queue-poll.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify({ ...result, each: undefined, provenance: undefined }));
}

await main();
