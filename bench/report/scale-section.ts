// bench:scale's results as Markdown: scale.md, and its section of docs/performance.md.
import { describe } from '../provenance.js';
import { median } from '../run/util.js';
import type { ScaleResults } from '../scale/scale-results.js';
import { cpuOverParse } from '../scale/targets.js';
import { table } from '../run/report.js';

const s2 = (x: number) => `${x.toFixed(2)} s`;
const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const pct = (f: number) => `${+(f * 100).toFixed(1)}%`;
const fmtLimit = (x: number, unit: string) => (unit === '×' ? `${x.toFixed(2)}×` : unit === 'series' ? `${x.toLocaleString('en')} series` : `${x.toFixed(1)} ${unit}`);
/** The families' settings of a run; runs before they were recorded had these two. */
const familiesText = (families: true | Readonly<Record<string, unknown>>) =>
  `{${Object.entries(families === true ? { strip_suffixes: true, per_queue: false } : families).map(([key, value]) => `${key}: ${String(value)}`).join(', ')}}`;

/** The parses in a phase's windows: their median and each (none where the next poll started first). */
function windowParses(seconds: readonly number[] | undefined): string {
  if (!seconds) return 'not measured';
  const measured = seconds.filter(Number.isFinite);
  const each = seconds.map((x) => (Number.isFinite(x) ? x.toFixed(3) : 'none')).join(', ');
  return measured.length > 0 ? `${median(measured).toFixed(3)} s (${each})` : `none (${each})`;
}

export function scaleSection(r: ScaleResults, file: string): string[] {
  const { settings } = r;
  const others = settings.collectors
    ? `only the ${settings.collectors.join(' and ')} collectors enabled, all but the queue collector polling once a minute`
    : 'every default collector, the others once a minute (this file predates the benchmark disabling them)';
  const cpuRows = r.sizes.flatMap((size) =>
    size.changes.map((c) => [
      size.queues.toLocaleString('en'),
      pct(c.fraction),
      c.changed.map((n) => n.toLocaleString('en')).join(', '),
      `${s2(median(c.cpuSeconds))} (${c.cpuSeconds.map((x) => x.toFixed(2)).join(', ')})`,
      windowParses(c.parseSeconds),
      `${median(size.parseSeconds).toFixed(3)} s`,
      `${cpuOverParse(size, c.fraction).toFixed(2)}×`,
      c.wallSeconds.map((x) => x.toFixed(1)).join(', '),
      mb(c.rssMaxBytes),
      c.condition ?? 'not recorded',
    ]),
  );
  const latencyRows = r.sizes.map((size) => {
    const l = size.latency;
    return [
      size.queues.toLocaleString('en'),
      pct(l.fraction),
      l.pollSeconds.map((x) => x.toFixed(2)).join(', '),
      `${ms(l.p50DuringMs)} / ${ms(l.p99DuringMs)} / ${ms(l.maxDuringMs)} (${l.scrapesDuring})`,
      `${ms(l.p99AllMs)} (${l.scrapes}, ${l.failedScrapes} failed)`,
      ms(size.loopMaxSeconds * 1000),
      `${mb(size.rssMaxBytes)} (VmHWM ${mb(size.hwmBytes)})`,
      size.series.toLocaleString('en'),
      `${mb(size.textBytes)} / ${mb(size.gzipBytes)}`,
      mb(size.queueBodyBytes),
      size.condition,
    ];
  });
  const targetRows = r.targets.map((t) => [t.queues.toLocaleString('en'), t.what, fmtLimit(t.measured, t.unit), `≤ ${fmtLimit(t.limit, t.unit)}`, t.pass ? 'pass' : '**fail**']);
  return [
    `From \`${file}\`, written by the benchmark (${Math.round(r.wallSeconds)} s in all):`,
    '',
    describe(r.provenance),
    '',
    `The built exporter against the simulated management API (from the 3.10.8 recordings, a process of its own), ${settings.vhosts} vhosts, ` +
      `queue polls every ${settings.queueInterval}, each fetching the statistics (\`stats_every: 1\`)${settings.families ? `, with every queue in its vhost's family by the suffix rule and per-queue series off (\`families: ${familiesText(settings.families)}\`)` : ''}${pollThreadText(r)}; ${others}; no jitter. ` +
      'Before each queue poll the simulator changes the given fraction of the queues (their counts, bytes, memory and counters), so the answers are not the same bytes every time.',
    '',
    `**CPU per queue poll, nothing scraping**: the exporter's CPU time (utime+stime, all threads) from the start of one queue poll to the start of the next, ${settings.polls} polls after one not measured, ` +
      'polls seen in the simulator\'s record of its answers (nothing asks the exporter anything in this phase). ' +
      '`JSON.parse` of the same bodies, in the benchmark\'s process: in the window, each measured poll\'s own answers read again from the simulator once the exporter had used under 20 ms of CPU in 500 ms after its last one (none when the next poll started first); ' +
      'after the run, one poll\'s answers with the exporter stopped, median of 3. CPU / parse: the median of each poll\'s CPU over its window\'s parse (the median poll over the parse after the run where the windows have none: the machine\'s speed drifts over minutes).',
    '',
    table(['queues', 'changing per poll', 'queues changed', 'CPU per poll, median (each)', 'JSON.parse in the window, median (each)', 'JSON.parse after the run', 'CPU / parse', 'wall between poll starts (s)', 'RSS max in phase', 'queue collector after the phase'], cpuRows),
    '',
    `**Latency, a separate phase**: \`/metrics\` scraped in a loop from a worker thread (Prometheus' \`Accept\` and \`Accept-Encoding: gzip\`, 20 ms apart) while ${settings.polls} queue polls run, ` +
      'each poll\'s end read from the landing page (no exposition rendered); "during polls" counts the scrapes started between a poll\'s first request and its end. ' +
      'The event-loop delay is the exporter\'s own `rabbitmq_exporter_event_loop_delay_max_seconds` (its last minute), read once after the phase with the series and sizes.',
    '',
    table(['queues', 'changing per poll', 'poll durations (s)', '/metrics p50 / p99 / max during polls (n)', '/metrics p99, whole phase (n)', 'longest event-loop delay', 'RSS max, whole run', 'series', '/metrics text / gzip', 'queue answers per poll', 'queue collector after the CPU phases'], latencyRows),
    '',
    '**Targets** (issue 29; a benchmark, not a timed test):',
    '',
    table(['queues', 'target', 'measured', 'limit', 'result'], targetRows),
    '',
  ];
}

/** Where the queue collector polled, as the run's settings and each size's record say. */
function pollThreadText(r: ScaleResults): string {
  const { pollThread, pollThreadFromSeries } = r.settings;
  if (pollThread === true) return ', polling in the poll thread (`poll_thread: true`)';
  if (pollThread === false) return ', polling on the main thread (`poll_thread: false`)';
  if (pollThread !== 'auto') return '';
  const moved = r.sizes.filter((size) => size.polledInThread);
  const sizes = (list: typeof moved) => list.map((size) => size.queues.toLocaleString('en')).join(' and ');
  const after = moved.filter((size) => size.movedAfterAPoll !== false);
  const before = moved.filter((size) => size.movedAfterAPoll === false);
  const where = [
    ...(before.length > 0 ? [`it polled there from its first poll at ${sizes(before)} queues, by the broker's queue count`] : []),
    ...(after.length > 0 ? [`it moved there at ${sizes(after)} queues after the first poll, which is not measured`] : []),
  ];
  return `, with \`poll_thread: auto\` (the queue collector polls in the poll thread once its polls serve \`poll_thread_from_series\` series, ${(pollThreadFromSeries ?? NaN).toLocaleString('en')}: ${where.length > 0 ? where.join('; ') : 'at no size here'})`;
}
