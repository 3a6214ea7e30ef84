// Phase 8: the tables: printed, and written to bench/results/latest.md and <N>-queues.md/.json.
import fs from 'node:fs';
import path from 'node:path';
import { measured } from './collector-alone.js';
import { commandLine, describeQuery, machine, table } from './report.js';
import type { RunResults } from './run-results.js';
import { summaryRows } from './summary.js';
import { CLK_TCK, EXPORTER_CONCURRENCY, PROM_HEADERS, ROOT, S } from './settings.js';
import { fmtBytes, fmtCycle, fmtInt, fmtMs, fmtRatio, fmtS, log, median } from './util.js';

export type { RunResults } from './run-results.js';

type Machine = ReturnType<typeof machine>;

export function writeResults(run: RunResults): void {
  const m = machine(run.setup.broker, run.setup.overview, run.commit);
  const md = [
    ...introduction(run, m),
    table(['metric', 'measured', 'reference', 'ratio', 'target', 'result'], summaryRows(run)),
    '',
    '## Per collector',
    '',
    collectorTable(run),
    '',
    ...perPathSection(run),
    ...queueSettingsSection(run),
    ...recordedPathsSection(run),
  ].join('\n');
  process.stdout.write(md);
  save(run, m, md);
}

/** Title, machine, broker state and how the figures were measured. */
function introduction(run: RunResults, m: Machine): string[] {
  const { loadAtStart, totalSeconds, setup, lastBaseline } = run;
  const { totals, quorumCount, msgRate, setupSeconds, declareSeconds, trafficConnections, baseline } = setup;
  const { roundBaseline } = run.rounds;
  const { pluginPlainMs, pluginCpu } = run.plugin;
  const { liveBackground } = run.perMinute;
  return [
    `# rabbitmq-exporter benchmark: ${fmtInt(S.queues)} queues`,
    '',
    `Run ${new Date().toISOString()}, ${Math.round(totalSeconds)} s in all. Command (from the repository root): \`${commandLine()}\``,
    '',
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.memory} memory, load average (1, 5, 15 min) ${loadAtStart} at the start, ${m.loadavg} at the end (other work shares this machine); Node ${m.node}; RabbitMQ ${m.rabbitmq} (Erlang ${m.erlang}); exporter at ${m.commit}.`,
    '',
    `State: ${fmtInt(totals.queues)} queues (${fmtInt(quorumCount)} quorum) over ${S.vhosts} vhosts (+ the empty \`/\`), ${fmtInt(totals.exchanges)} exchanges (${S.exchanges} topic), ${fmtInt(S.bindings)} bindings, ` +
      `${trafficConnections} AMQP connections (${S.publishers} publishing, ${S.consumers} consuming with manual acks) at ${S.rate} msg/s into ${S.activeQueues} queues ` +
      `(broker-reported publish rate ${msgRate === undefined ? 'n/a' : msgRate.toFixed(0)} msg/s); broker \`collect_statistics_interval = ${S.statsIntervalMs}\`. ` +
      `Set-up took ${setupSeconds.toFixed(1)} s (declarations over AMQP, ${S.setupChannels} channels per vhost: ${declareSeconds.toFixed(1)} s).`,
    '',
    `How: each collector alone (\`interval: 1s\`, polls back to back), poll duration from the exporter's \`rabbitmq_exporter_collector_duration_seconds\`, median of ${S.polls} after one warm-up (that series does not cover the poll's final rendering of its samples: "poll to poll", start to start at \`interval: 1s\`, is the end-to-end time whenever it exceeds 1 s); ` +
      `its requests recorded by a proxy during one poll and replayed raw (undici, ${EXPORTER_CONCURRENCY} in flight like the exporter, bodies read, not parsed). ` +
      `Broker CPU: utime+stime of beam.smp (/proc, CLK_TCK ${CLK_TCK}) minus the background rate (${baseline.toFixed(3)}, then ${roundBaseline.toFixed(3)}, ${lastBaseline.toFixed(3)} CPU-s/s with the traffic and nobody polling, measured before each phase; for the live per-minute window ${liveBackground.toFixed(3)}, the mean of 30 s before and after it) over the same wall time, median of ${S.repeats}. ` +
      `Scrapes: the exporter with every default except \`poll.interval: ${S.pollInterval}\`, sequential scrapes 20 ms apart, \`Accept: ${PROM_HEADERS.accept}\`, \`Accept-Encoding: gzip\`; ` +
      `the plugin got the same headers (without them its median was ${fmtMs(median(pluginPlainMs))}; its broker CPU per scrape ${median(pluginCpu).toFixed(3)} s).`,
    '',
  ];
}

function collectorTable(run: RunResults): string {
  const { perCollector } = run.collectors;
  return table(
    ['collector', 'requests (statuses)', 'bytes', 'poll (alone)', 'poll to poll at interval 1 s', 'raw fetch', 'broker CPU (net)', 'series'],
    perCollector.map((r) =>
      !measured(r)
        ? [r.name ?? r.label, `failed: ${r.error}`, '', '', '', '', '', '']
        : [r.name, `${r.paths.length} (${r.statuses.join(', ') || '-'})`, fmtBytes(r.bytes), fmtS(r.poll), fmtCycle(r.cycle), fmtS(r.raw), `${r.cpu.toFixed(3)} s`, fmtInt(r.samples)],
    ),
  );
}

function perPathSection(run: RunResults): string[] {
  const { perPath } = run.rounds;
  return [
    '## Broker CPU per path',
    '',
    'Each path of the round above (and the kbudde-style ones) fetched alone, 3 times, median net CPU; paths under 10 ms of CPU are left out.',
    '',
    table(
      ['asked by', 'path', 'bytes', 'wall', 'broker CPU (net)'],
      perPath.filter((p) => p.cpu >= 0.01).map((p) => [p.owner, `\`${p.path.length > 90 ? `${p.path.slice(0, 87)}...` : p.path}\``, fmtBytes(p.bytes), fmtS(p.wall), `${p.cpu.toFixed(3)} s`]),
    ),
    '',
  ];
}

function queueSettingsSection(run: RunResults): string[] {
  const altTable = table(
    ['collectors.queues', 'query', 'requests', 'bytes', 'poll (median)', 'poll to poll', 'raw fetch', 'poll / raw', 'broker CPU (net)', 'queue series', 'exporter RSS'],
    run.alternatives.map((a) =>
      !measured(a)
        ? [a.label, `failed: ${a.error}`, '', '', '', '', '', '', '', '', '']
        : [a.label, describeQuery(a.paths), a.paths.length, fmtBytes(a.bytes), fmtS(a.poll), fmtCycle(a.cycle), fmtS(a.raw), fmtRatio(a.poll / a.raw), `${a.cpu.toFixed(3)} s`, fmtInt(a.samples), `${(a.rss / 1e6).toFixed(0)} MB`],
    ),
  );
  return [
    '## Queue collector settings',
    '',
    `Only the queues collector, \`interval: 1s\` (back to back); median of ${Math.min(S.polls, 3)} polls after one warm-up (the default row: ${S.polls}); raw fetch and broker CPU: median of ${S.repeats} replays of the recorded paths (${EXPORTER_CONCURRENCY} in flight).`,
    '',
    altTable,
    '',
  ];
}

function recordedPathsSection(run: RunResults): string[] {
  const { perCollector } = run.collectors;
  const { promtool } = run.atDefaults;
  return [
    '## Recorded paths of one round',
    '',
    ...perCollector.filter(measured).flatMap((r) => r.round.map((p) => `- ${r.name}: \`${p.path.length > 200 ? `${p.path.slice(0, 197)}...` : p.path}\` (HTTP ${p.status}, ${fmtBytes(p.bytes)})`)),
    '',
    `promtool output: ${promtool.ok ? '(none: ok)' : `\n\n\`\`\`\n${promtool.output.trim().split('\n').slice(0, 20).join('\n')}\n\`\`\``}`,
    '',
  ];
}

/** latest.md, <N>-queues.md and the figures as <N>-queues.json. */
function save(run: RunResults, m: Machine, md: string): void {
  const { setup, alternatives } = run;
  const { setupSeconds, baseline } = setup;
  const { perCollector } = run.collectors;
  const { cpuRuns, cpuStatsRound, cpuAverageRound, perPath } = run.rounds;
  const { scrapeMs, coldMs, series, rss, hwm, memoryMax, selfAtEnd } = run.atDefaults;
  const { pluginMs, pluginPlainMs, pluginCpu, pluginSeries } = run.plugin;
  const { cpuPerMinute, kbuddePerMinute } = run.perMinute;
  const pluginPerMinute = median(pluginCpu) * 4;
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'latest.md'), md);
  fs.writeFileSync(path.join(S.resultsDir, `${S.queues}-queues.md`), md);
  fs.writeFileSync(path.join(S.resultsDir, `${S.queues}-queues.json`), JSON.stringify({ provenance: run.provenance, settings: { ...S, resultsDir: path.relative(ROOT, S.resultsDir) }, machine: m, setupSeconds, cpuStatsRound, cpuAverageRound, cpuPerMinute, kbuddePerMinute, pluginPerMinute, perCollector: perCollector.map((r) => ({ ...r, round: undefined })), cpuRuns, perPath, memory: memoryMax, baseline, scrapeMs, coldMs, pluginMs, pluginPlainMs, pluginCpu, series, pluginSeries, rss, hwm, alternatives: alternatives.map((a) => ({ ...a, round: undefined })), selfAtEnd }, null, 1));
  log(`written to ${path.relative(ROOT, path.join(S.resultsDir, 'latest.md'))} and ${S.queues}-queues.md/.json`);
}
