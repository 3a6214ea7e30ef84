/**
 * One size of the scale benchmark: the exporter against the simulator, in two phases that do not
 * disturb each other.
 *  - CPU: for each fraction of queues changed per poll, the exporter's CPU time (utime+stime) from
 *    the start of one queue poll to the start of the next, with nothing asking the exporter
 *    anything: polls are seen in the simulator's own report of the requests it answered.
 *  - Latency: /metrics scraped in a loop (Prometheus' headers) from a worker thread while polls
 *    run; when each poll ends is read from the landing page (a few kB, no exposition rendered).
 * In each CPU window, once the exporter went quiet after its poll, JSON.parse of that poll's answers
 * in this process: the yardstick of the same minutes. Then one read of the exposition (series,
 * sizes, the exporter's longest event-loop delay), and JSON.parse of the same bodies again, in this
 * process, with the exporter stopped (the yardstick of results before the windows had one).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { PROM_HEADERS } from '../run/settings.js';
import { cpuSeconds, log, memoryOf, percentile, sleep } from '../run/util.js';
import { queueStatus } from './landing-status.js';
import { startExporter, startScraper, startSimulator, stop, type Answer, type ExporterProcess, type SimulatorProcess } from './processes.js';
import { CHANGES, LATENCY_CHANGE, POLL_THREAD, POLLS } from './settings.js';

/** What the exporter logs when poll_thread: auto moves the queue collector to the poll thread (collector-runner.ts). */
const MOVED_TO_POLL_THREAD = 'its polls move to the poll thread';
/** ... and when it moves after a poll on the main thread (not before its first, by the broker's queue count). */
const MOVED_AFTER_A_POLL = 'its last poll served';

export interface ChangePhase {
  /** Fraction of the queues changed before each poll. */
  fraction: number;
  /** Queues the simulator changed before each measured poll. */
  changed: number[];
  /** Exporter CPU seconds from the start of each measured poll to the start of the next. */
  cpuSeconds: number[];
  /** Wall seconds between the same poll starts. */
  wallSeconds: number[];
  /** Max RSS sampled (every 100 ms) during the phase. */
  rssMaxBytes: number;
  /**
   * JSON.parse of each measured poll's own queue answers (fetched again once it ended), in this
   * process, in the same window: after the exporter went quiet, before the next poll. CPU seconds, one
   * per measured poll (NaN when the poll left no quiet time). Absent in results before it.
   */
  parseSeconds?: number[];
  /** The queue collector's condition on the landing page right after the phase (asked once the window closed). */
  condition?: string;
}

export interface LatencyPhase {
  fraction: number;
  /** Each poll's duration as the exporter reports it (landing page). */
  pollSeconds: number[];
  scrapes: number;
  scrapesDuring: number;
  p50DuringMs: number;
  p99DuringMs: number;
  maxDuringMs: number;
  p99AllMs: number;
  failedScrapes: number;
}

export interface SizeResult {
  queues: number;
  /** Bytes of one poll's queue lists, and JSON.parse of those same bodies here (CPU seconds, 3 runs). */
  queueBodyBytes: number;
  parseSeconds: number[];
  changes: ChangePhase[];
  latency: LatencyPhase;
  rssMaxBytes: number;
  hwmBytes: number;
  /** rabbitmq_exporter_event_loop_delay_max_seconds after the latency phase (its last minute). */
  loopMaxSeconds: number;
  /** The queue collector's condition on the landing page at the end of the CPU phase. */
  condition: string;
  /** Where the queue collector polled once warm: in the poll thread (set so, or moved there by poll_thread: auto). Absent in results before it. */
  polledInThread?: boolean;
  /** With poll_thread: auto, whether it moved there after a poll on the main thread (not before its first). Absent in results before it. */
  movedAfterAPoll?: boolean;
  series: number;
  textBytes: number;
  gzipBytes: number;
}

const isPollStart = (a: Answer) => a.path === '/api/vhosts' && a.query === 'columns=name';

/** Waits for the next queue poll to start after answer index `from`; returns its index and the exporter's CPU then. */
async function nextPollStart(sim: SimulatorProcess, exp: ExporterProcess, from: number, deadline: number): Promise<{ index: number; answer: Answer; cpu: number; at: number }> {
  for (;;) {
    for (let i = from; i < sim.answers.length; i++) if (isPollStart(sim.answers[i]!)) return { index: i, answer: sim.answers[i]!, cpu: cpuSeconds(exp.pid), at: Date.now() };
    if (Date.now() > deadline) throw new Error('no queue poll started in time');
    await sleep(20);
  }
}

/** The exporter is quiet when it used at most this much CPU over QUIET_MS (its timers use a few ms a second). */
const QUIET_CPU_SECONDS = 0.02;
const QUIET_MS = 500;

/** The answers to queue lists, in the order they were answered. */
const queueAnswers = (answers: readonly Answer[]) => answers.filter((a) => a.path.startsWith('/api/queues'));
/** What an answer was asked for: its path, with its query when it had one. */
const askedFor = (answer: Answer) => (answer.query ? `${answer.path}?${answer.query}` : answer.path);
/** The queue lists answered (path and query), each once: the benchmark's own reads of them are the same. */
const queueLists = (answers: readonly Answer[]) => [...new Set(queueAnswers(answers).map(askedFor))];

/**
 * JSON.parse of the queue answers of the poll that started at answer index `from`, once the
 * exporter has gone quiet after its last one (`expected`: as many as the poll before had): CPU
 * seconds, or NaN when the next poll started first (the parse would then share the machine with it).
 */
async function parseInWindow(sim: SimulatorProcess, exp: ExporterProcess, from: number, expected: number, deadline: number): Promise<number> {
  const nextStarted = () => sim.answers.slice(from + 1).some(isPollStart);
  const samples: { at: number; cpu: number }[] = [];
  for (;;) {
    if (nextStarted()) return Number.NaN;
    if (Date.now() > deadline) throw new Error('the exporter did not go quiet after a poll');
    const answers = queueAnswers(sim.answers.slice(from));
    const now = { at: Date.now(), cpu: cpuSeconds(exp.pid) };
    samples.push(now);
    const since = samples.findLast((x) => x.at <= now.at - QUIET_MS);
    const allAnswered = queueLists(answers).length >= expected && (answers.at(-1)?.end ?? Infinity) <= (since?.at ?? 0);
    if (since && allAnswered && now.cpu - since.cpu <= QUIET_CPU_SECONDS) break;
    await sleep(100);
  }
  const seconds = parseSeconds(await fetchBodies(sim, queueLists(sim.answers.slice(from))));
  return nextStarted() ? Number.NaN : seconds;
}

async function measureChanges(sim: SimulatorProcess, exp: ExporterProcess, fraction: number, rss: RssSampler, deadline: number): Promise<ChangePhase> {
  sim.changePerPoll(fraction);
  // The first poll at this fraction is not measured: it follows a poll made at another one.
  let previous = await nextPollStart(sim, exp, sim.answers.length, deadline);
  let start = await nextPollStart(sim, exp, previous.index + 1, deadline);
  rss.reset();
  const phase: ChangePhase = { fraction, changed: [], cpuSeconds: [], wallSeconds: [], rssMaxBytes: 0, parseSeconds: [] };
  while (phase.cpuSeconds.length < POLLS) {
    const expected = queueLists(sim.answers.slice(previous.index, start.index)).length;
    phase.parseSeconds!.push(await parseInWindow(sim, exp, start.index, expected, deadline));
    const next = await nextPollStart(sim, exp, start.index + 1, deadline);
    phase.changed.push(start.answer.changed);
    phase.cpuSeconds.push(next.cpu - start.cpu);
    phase.wallSeconds.push((next.at - start.at) / 1000);
    log(`${fraction * 100}% changing: poll ${phase.cpuSeconds.length}: ${phase.cpuSeconds.at(-1)!.toFixed(2)} CPU-s; JSON.parse of its answers ${phase.parseSeconds!.at(-1)!.toFixed(3)} s`);
    previous = start;
    start = next;
  }
  phase.rssMaxBytes = rss.max;
  phase.condition = (await queueStatus(exp.url)).condition;
  return phase;
}

/** The page's "s ago" has 0.1 s steps and is read some ms late: how far a poll's start may seem to move. */
const PAGE_JITTER_MS = 250;

async function measureLatency(sim: SimulatorProcess, exp: ExporterProcess, deadline: number): Promise<LatencyPhase> {
  sim.changePerPoll(LATENCY_CHANGE);
  const scraper = startScraper(exp.url);
  const from = sim.answers.length;
  const windows: { start: number; end: number; seconds: number }[] = [];
  let last = (await queueStatus(exp.url)).lastSuccessAt;
  // Each poll that ended is matched to its start (the latest one no later than its end less its
  // duration): polls run back to back at 100k queues, so "the first end after a start" could be the
  // end of the poll before. Polls that started after the scraper did, until POLLS of them ended.
  while (windows.length < POLLS) {
    if (Date.now() > deadline) throw new Error('polls did not finish in time');
    await sleep(250);
    const status = await queueStatus(exp.url);
    if (status.lastSuccessAt === undefined || (last !== undefined && status.lastSuccessAt - last <= 500)) continue;
    last = status.lastSuccessAt;
    const seconds = status.lastDurationSeconds ?? 0;
    const starts = sim.answers.filter(isPollStart);
    const start = starts.findLast((a) => a.start <= status.lastSuccessAt! - seconds * 1000 + PAGE_JITTER_MS);
    if (start && sim.answers.indexOf(start) >= from) windows.push({ start: start.start, end: status.lastSuccessAt, seconds });
  }
  await scraper.stop();
  const scrapes = scraper.scrapes;
  const during = scrapes.filter((s) => windows.some((w) => s.start >= w.start && s.start <= w.end)).map((s) => s.ms);
  return {
    fraction: LATENCY_CHANGE,
    pollSeconds: windows.map((w) => w.seconds),
    scrapes: scrapes.length,
    scrapesDuring: during.length,
    p50DuringMs: percentile(during, 50),
    p99DuringMs: percentile(during, 99),
    maxDuringMs: Math.max(...during),
    p99AllMs: percentile(scrapes.map((s) => s.ms), 99),
    failedScrapes: scrapes.filter((s) => s.status !== 200).length,
  };
}

interface Exposition {
  own: Map<string, number>;
  series: number;
  textBytes: number;
  gzipBytes: number;
}

/** One read of the whole exposition (gzip, as Prometheus asks), after the measured phases. */
async function readExposition(url: string): Promise<Exposition> {
  const res = await request(`${url}/metrics`, { headers: PROM_HEADERS });
  const gz = Buffer.from(await res.body.arrayBuffer());
  const text = gunzipSync(gz).toString('utf8');
  const own = new Map<string, number>();
  for (const m of text.matchAll(/^(rabbitmq_exporter_[a-z_]+(?:\{[^}]*\})?) (\S+)$/gm)) own.set(m[1]!, Number(m[2]));
  let series = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (text.charCodeAt(i + 1) !== 35 && i + 1 < text.length) series++;
  if (text.charCodeAt(0) !== 35) series++;
  return { own, series, textBytes: Buffer.byteLength(text), gzipBytes: gz.length };
}

/** The simulator's answers to these paths (with their queries), as it answers them now. */
async function fetchBodies(sim: SimulatorProcess, paths: string[]): Promise<Buffer[]> {
  const auth = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
  const bodies: Buffer[] = [];
  for (const p of paths) {
    const res = await request(`${sim.url}${p}`, { headers: { authorization: auth } });
    bodies.push(Buffer.from(await res.body.arrayBuffer()));
  }
  return bodies;
}

/** CPU seconds of JSON.parse of the bodies (their decoding included), in this process. */
function parseSeconds(bodies: readonly Buffer[]): number {
  const before = process.cpuUsage();
  for (const body of bodies) JSON.parse(body.toString('utf8'));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** JSON.parse alone of the bodies one queue poll asks for, CPU seconds of each of 3 runs. */
async function parseAlone(sim: SimulatorProcess, paths: string[]): Promise<{ seconds: number[]; bytes: number }> {
  const bodies = await fetchBodies(sim, paths);
  const seconds = [parseSeconds(bodies), parseSeconds(bodies), parseSeconds(bodies)];
  return { seconds, bytes: bodies.reduce((n, b) => n + b.length, 0) };
}


/** The exporter's RSS every 100 ms: max since the last reset, and over the whole run. */
class RssSampler {
  max = 0;
  overall = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(pid: number) {
    this.timer = setInterval(() => {
      const rss = memoryOf(pid)?.rss ?? 0;
      this.max = Math.max(this.max, rss);
      this.overall = Math.max(this.overall, rss);
    }, 100);
  }
  reset(): void {
    this.max = 0;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

export async function measure(queues: number): Promise<SizeResult> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqexp-scale-'));
  log(`${queues} queues: starting the simulator`);
  const sim = await startSimulator(queues);
  const exp = await startExporter(sim, workDir);
  const rss = new RssSampler(exp.pid);
  const deadline = Date.now() + 1_800_000;
  // Warm-up: the first poll also makes the simulator build (and cache) its answers.
  while ((await queueStatus(exp.url)).lastSuccessAt === undefined) {
    if (Date.now() > deadline) throw new Error('no successful queue poll');
    await sleep(1000);
  }
  // A collector that moved to the poll thread after its first poll starts there without its
  // carry-over: its first poll there renders every queue again, so it is warm-up too.
  const logFile = path.join(workDir, 'exporter.log');
  const logged = (text: string) => fs.readFileSync(logFile, 'utf8').includes(text);
  await sleep(1000);
  const movedAfterAPoll = logged(MOVED_AFTER_A_POLL);
  if (movedAfterAPoll) {
    // lastSuccessAt is read from "N s ago": a later poll's is the interval later, not a few ms.
    const first = (await queueStatus(exp.url)).lastSuccessAt ?? 0;
    while (((await queueStatus(exp.url)).lastSuccessAt ?? 0) < first + 5000) {
      if (Date.now() > deadline) throw new Error('no successful queue poll in the poll thread');
      await sleep(1000);
    }
  }
  log(`${queues} queues: warm; CPU per poll, nothing scraping`);
  const changes: ChangePhase[] = [];
  for (const fraction of CHANGES) changes.push(await measureChanges(sim, exp, fraction, rss, deadline));
  const { condition } = await queueStatus(exp.url);
  log(`${queues} queues: /metrics latency while polls run (${LATENCY_CHANGE * 100}% changing)`);
  const latency = await measureLatency(sim, exp, deadline);
  const exposition = await readExposition(exp.url);
  rss.stop();
  const hwm = memoryOf(exp.pid)?.hwm ?? NaN;
  // The queries the exporter sent (the families or signals settings change its columns): each list's last.
  const lastAsked = new Map(queueAnswers(sim.answers).map((a) => [a.path, askedFor(a)]));
  stop(exp.child);
  const alone = await parseAlone(sim, [...lastAsked.values()]);
  stop(sim.child);
  const polledInThread = POLL_THREAD === true || logged(MOVED_TO_POLL_THREAD);
  fs.rmSync(workDir, { recursive: true, force: true });
  return {
    queues,
    queueBodyBytes: alone.bytes,
    parseSeconds: alone.seconds,
    changes,
    latency,
    rssMaxBytes: rss.overall,
    hwmBytes: hwm,
    loopMaxSeconds: exposition.own.get('rabbitmq_exporter_event_loop_delay_max_seconds') ?? NaN,
    condition,
    polledInThread,
    movedAfterAPoll,
    series: exposition.series,
    textBytes: exposition.textBytes,
    gzipBytes: exposition.gzipBytes,
  };
}

