/**
 * Scale benchmark (part of `npm run bench`; alone: `npm run bench:scale`): the built exporter
 * (dist/src/main.js, every default collector) against the simulated management API
 * (simulator-server.ts, its own process) at 10k, 30k and 100k queues over 10 vhosts, and
 * per size:
 *  - queue poll duration (rabbitmq_exporter_collector_duration_seconds{collector="queues"});
 *  - exporter CPU per queue poll (utime+stime of the process over the measured polls, all
 *    collectors and the snapshot's compression included) next to JSON.parse alone of the same
 *    bodies (fetched from the simulator and parsed in this process);
 *  - RSS (max of VmRSS sampled every 100 ms, and VmHWM);
 *  - the longest event-loop delay (rabbitmq_exporter_event_loop_delay_max_seconds, last minute);
 *  - /metrics latency p50/p99 (Prometheus headers, gzip) for scrapes started while a queue poll's
 *    requests were in flight, and over the whole run;
 *  - series and body sizes.
 * Writes bench/results/scale.md and .json. Knobs: settings.ts. One size: measure.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { S } from '../run/settings.js';
import { log, logAs } from '../run/util.js';
import { measure, type SizeResult } from './measure.js';
import { stopChildren } from './processes.js';
import { INTERVAL, POLLS, SIZES, VHOSTS } from './settings.js';

logAs('scale');

const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const results: SizeResult[] = [];
  for (const n of SIZES) {
    results.push(await measure(n));
    log(JSON.stringify(results.at(-1)));
  }
  const loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const cpus = os.cpus();
  const header = ['queues', 'queue poll (median)', 'exporter CPU per queue poll', 'JSON.parse alone, same bodies', 'CPU / parse', 'queue answers per poll', 'RSS max (VmHWM)', 'longest event-loop delay', '/metrics p50 / p99 / max during polls (n)', '/metrics p99, whole run', 'series', '/metrics text / gzip'];
  const rows = results.map((r) => [
    r.queues.toLocaleString('en'),
    `${r.pollSeconds.toFixed(2)} s`,
    `${r.cpuPerPoll.toFixed(2)} s`,
    `${r.parseAloneSeconds.toFixed(2)} s`,
    `${(r.cpuPerPoll / r.parseAloneSeconds).toFixed(2)}×`,
    mb(r.roundBytes),
    `${mb(r.rssMax)} (${mb(r.hwm)})`,
    ms(r.loopMaxSeconds * 1000),
    `${ms(r.p50During)} / ${ms(r.p99During)} / ${ms(r.maxDuring)} (${r.scrapesDuring})`,
    ms(r.p99All),
    r.series.toLocaleString('en'),
    `${mb(r.textBytes)} / ${mb(r.gzipBytes)}`,
  ]);
  const first = results[0]!;
  const lastR = results.at(-1)!;
  const growth = (key: keyof SizeResult) => (lastR[key] / first[key]).toFixed(2);
  const lines = [
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; load average ${load} before, ${loadAfter} after (1, 5, 15 min).`,
    `Command: \`${['BENCH_SCALE_QUEUES', 'BENCH_SCALE_VHOSTS', 'BENCH_SCALE_POLLS', 'BENCH_SCALE_INTERVAL'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`).concat(['npm run bench:scale']).join(' ')}\` (${POLLS} measured queue polls per size after one warm-up, each fetching the statistics (\`stats_every: 1\`), ${VHOSTS} vhosts, queue interval ${INTERVAL}).`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
    '',
    `Growth from ${first.queues.toLocaleString('en')} to ${lastR.queues.toLocaleString('en')} queues (×${(lastR.queues / first.queues).toFixed(0)}): poll ×${growth('pollSeconds')}, CPU ×${growth('cpuPerPoll')}, JSON.parse ×${growth('parseAloneSeconds')}, RSS ×${growth('rssMax')}, series ×${growth('series')}, body ×${growth('roundBytes')}.`,
    `Scrapes that failed: ${results.map((r) => r.failedScrapes).join(', ')}.`,
  ];
  fs.mkdirSync(S.resultsDir, { recursive: true });
  fs.writeFileSync(path.join(S.resultsDir, 'scale.md'), `${lines.join('\n')}\n`);
  fs.writeFileSync(path.join(S.resultsDir, 'scale.json'), `${JSON.stringify({ load, loadAfter, results }, null, 2)}\n`);
  console.log(lines.join('\n'));
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(stopChildren);
