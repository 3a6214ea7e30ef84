/**
 * Scale benchmark (`npm run bench:scale`; also part of `npm run bench`): the built exporter
 * (dist/src/main.js) against the simulated management API (simulator-server.ts, its own process)
 * at each size of BENCH_SCALE_QUEUES over 10 vhosts. Per size (measure.ts): CPU per queue poll
 * with nothing scraping, at each fraction of queues changed per poll (0%, 10%, 100%), beside
 * JSON.parse of the same bodies; then /metrics latency while polls run, in a phase of its own;
 * RSS, the longest event-loop delay, series and sizes. Checks issue 29's targets (targets.ts).
 * Writes bench/results/scale.json (with commit, machine, command, date and load: ../provenance.ts)
 * and scale.md from it. Knobs: settings.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { POLL_THREAD_FROM_SERIES } from '../../src/config/collector-settings.js';
import { startRun } from '../provenance.js';
import { scaleSection } from '../report/scale-section.js';
import { S } from '../run/settings.js';
import { log, logAs } from '../run/util.js';
import { measure, type SizeResult } from './measure.js';
import { MEASURED_COLLECTORS, stopChildren } from './processes.js';
import type { ScaleResults } from './scale-results.js';
import { CHANGES, FAMILIES, FAMILIES_SETTINGS, INTERVAL, LATENCY_CHANGE, POLL_THREAD, POLLS, SIGNALS, SIZES, VHOSTS } from './settings.js';
import { targetChecks } from './targets.js';

logAs('scale');

async function main(): Promise<void> {
  const run = startRun();
  const t0 = performance.now();
  const sizes: SizeResult[] = [];
  for (const n of SIZES) {
    sizes.push(await measure(n));
    log(JSON.stringify(sizes.at(-1)));
  }
  const results: ScaleResults = {
    bench: 'scale',
    provenance: run.finish(),
    settings: { vhosts: VHOSTS, polls: POLLS, changes: CHANGES, latencyChange: LATENCY_CHANGE, queueInterval: INTERVAL, collectors: MEASURED_COLLECTORS, ...(SIGNALS ? { signals: true } : {}), ...(FAMILIES ? { families: FAMILIES_SETTINGS } : {}), ...(POLL_THREAD === undefined ? { pollThread: 'auto', pollThreadFromSeries: POLL_THREAD_FROM_SERIES } : { pollThread: POLL_THREAD }) },
    wallSeconds: (performance.now() - t0) / 1000,
    sizes,
    targets: targetChecks(sizes, FAMILIES),
  };
  fs.mkdirSync(S.resultsDir, { recursive: true });
  const name = ['scale', ...(SIGNALS ? ['signals'] : []), ...(FAMILIES ? ['families'] : []), ...(POLL_THREAD === true ? ['poll-thread'] : POLL_THREAD === false ? ['main-thread'] : [])].join('-');
  fs.writeFileSync(path.join(S.resultsDir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const md = ['# bench:scale', '', ...scaleSection(results, `bench/results/${name}.json`)].join('\n');
  fs.writeFileSync(path.join(S.resultsDir, `${name}.md`), md);
  console.log(md);
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(stopChildren);
