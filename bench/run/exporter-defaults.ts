// Phase 5: the exporter with every default (poll.interval BENCH_POLL_INTERVAL): /metrics latency
// with Prometheus's headers, the first scrape after a new snapshot, RSS, series, bytes, promtool.
import { checkMetricsWithPromtool } from '../../test/harness/promtool.js';
import { readSelfMetrics, startExporter, watchPolls, type SelfMetrics } from './exporter-process.js';
import { countSeries, scrape, type Scrape } from './measure.js';
import { PROM_HEADERS, S } from './settings.js';
import type { Setup } from './setup.js';
import { cpuSeconds, log, median, now, sleep } from './util.js';

export interface AtDefaults {
  expCpuPerMin: number;
  /** The queue collector's poll with every collector running (median of 2). */
  queuesInContext: number;
  scrapeMs: number[];
  served: Scrape | undefined;
  coldMs: number[];
  textScrape: Scrape;
  series: number;
  rss: number;
  hwm: number;
  memoryMax: Record<string, number>;
  selfAtEnd: SelfMetrics;
  promtool: { ok: boolean; output: string };
}

export async function measureAtDefaults(setup: Setup, workDir: string): Promise<AtDefaults> {
  log(`the exporter with every default (poll.interval ${S.pollInterval}); waiting for 1 + 2 queue polls`);
  const exp = await startExporter('main', setup.broker.managementUrl, {}, workDir);
  const expCpu0 = cpuSeconds(exp.pid);
  const pollT0 = now();
  const mainPolls = await watchPolls(exp, 'queues', 2, 4 * 300_000);
  const expCpuPerMin = ((cpuSeconds(exp.pid) - expCpu0) / ((now() - pollT0) / 1000)) * 60;
  const queuesInContext = median((mainPolls.queues ?? []).map((p) => p.duration));

  log(`${S.scrapes} scrapes of /metrics with Prometheus’s headers`);
  const scrapeMs: number[] = [];
  let served: Scrape | undefined;
  const scrapeDeadline = Date.now() + 10 * 60_000;
  for (let i = 0; i < S.scrapes && Date.now() < scrapeDeadline; i++) {
    served = await scrape(`${exp.url}/metrics`, PROM_HEADERS);
    scrapeMs.push(served.ms);
    await sleep(20);
  }
  // The first scrape after a new snapshot also renders the OpenMetrics form and compresses it.
  log('cold scrapes (first scrape after a new snapshot)');
  const coldMs: number[] = [];
  const coldDeadline = Date.now() + 5 * 60_000;
  const stamp = (self: SelfMetrics) => JSON.stringify(Object.values(self).map((v) => v.last_success_timestamp_seconds));
  let lastSnapshot = stamp(await readSelfMetrics(exp));
  while (coldMs.length < 5 && Date.now() < coldDeadline) {
    await sleep(50);
    const current = stamp(await readSelfMetrics(exp));
    if (current === lastSnapshot) continue;
    lastSnapshot = current;
    coldMs.push((await scrape(`${exp.url}/metrics`, PROM_HEADERS)).ms);
  }
  const textScrape = await scrape(`${exp.url}/metrics`, { accept: 'text/plain' });
  const text = textScrape.body.toString('utf8');
  const rss = exp.maxRss;
  const hwm = exp.hwm;
  const selfAtEnd = await readSelfMetrics(exp);
  await exp.stop();
  const promtool = await checkMetricsWithPromtool(text).catch((error: Error) => ({ ok: false, output: `promtool did not run: ${error.message}` }));
  log(`promtool check metrics: ${promtool.ok ? 'ok' : 'FAILED'} ${promtool.output.trim().slice(0, 300)}`);
  return { expCpuPerMin, queuesInContext, scrapeMs, served, coldMs, textScrape, series: countSeries(text), rss, hwm, memoryMax: exp.memoryMax ?? {}, selfAtEnd, promtool };
}
