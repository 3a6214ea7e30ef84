// Phase 3 and 4: every default collector alone, then the broker's CPU for one round of all of
// them against kbudde/rabbitmq_exporter's four unfiltered lists, and for each path alone.
import { measureCollector, measured, type FailedMeasurement, type MeasureContext, type Measurement } from './collector-alone.js';
import { baselineCpu, brokerCpuOf, replay } from './measure.js';
import { EXPORTER_CONCURRENCY, KBUDDE_PATHS, S } from './settings.js';
import type { Setup } from './setup.js';
import { fmtBytes, fmtS, log, median, sleep } from './util.js';

export interface Collectors {
  perCollector: (Measurement | FailedMeasurement)[];
  measured: Measurement[];
  /** The queue collector's statistics poll (stats_every 1), when it could be measured. */
  queuesStats: Measurement | undefined;
  /** Each collector with a held part, on a poll that fetches it (that part's `*_every: 1`). */
  fetchingPolls: Map<string, Measurement>;
}

/**
 * The collectors that fetch a costly part on one poll in N (their default `*_every` is the queue
 * collector's stats_every) and the setting that makes every poll fetch it. Their poll after the
 * first, which the round records, does not.
 */
export const HELD_PARTS: readonly { collector: string; everyPoll: Record<string, number> }[] = [
  { collector: 'queues', everyPoll: { stats_every: 1 } },
  { collector: 'nodes', everyPoll: { memory_breakdown_every: 1 } },
  { collector: 'exchanges', everyPoll: { bindings_every: 1 } },
];

export interface Rounds {
  roundPaths: string[];
  roundBytes: number;
  subsetPaths: string[];
  statsRoundPaths: string[] | undefined;
  roundBaseline: number;
  cpuRuns: { exporter: number[]; statsRound: number[]; subset: number[]; kbudde: number[] };
  kbuddeBytes: number;
  kbuddeWall: number[];
  cpuExporter: number;
  cpuSubset: number;
  cpuKbudde: number;
  cpuStatsRound: number | undefined;
  /** The round averaged over the stats_every cycle (the held parts share it). */
  cpuAverageRound: number | undefined;
  perPath: { owner: string; path: string; bytes: number; wall: number; cpu: number }[];
}

const firstLine = (error: unknown) => (error as Error).message.split('\n')[0]!;

export async function measureEachCollector(ctx: MeasureContext, defaultCollectors: string[]): Promise<Collectors> {
  const perCollector: (Measurement | FailedMeasurement)[] = [];
  for (const name of defaultCollectors) {
    log(`collector ${name} alone`);
    try {
      const r = await measureCollector(ctx, name, name, {}, S.polls);
      log(`  ${r.paths.length} requests, ${fmtBytes(r.bytes)}; poll ${fmtS(r.poll)}, raw ${fmtS(r.raw)}, broker CPU ${r.cpu.toFixed(3)} s`);
      perCollector.push(r);
    } catch (error) {
      log(`  failed: ${firstLine(error)}`);
      perCollector.push({ name, label: name, error: firstLine(error) });
    }
  }
  // Each collector alone records a poll after its first: with the defaults, one that fetches no
  // held part (the queues' counts-only poll). Their fetching polls are measured too.
  const fetchingPolls = new Map<string, Measurement>();
  for (const { collector, everyPoll } of HELD_PARTS) {
    if (!defaultCollectors.includes(collector)) continue;
    log(`collector ${collector} alone, fetching its held part every poll (${JSON.stringify(everyPoll)})`);
    try {
      const label = collector === 'queues' ? 'queues statistics poll' : `${collector} fetching poll`;
      const r = await measureCollector(ctx, label, collector, everyPoll, Math.min(S.polls, 3));
      log(`  ${r.paths.length} requests, ${fmtBytes(r.bytes)}; broker CPU ${r.cpu.toFixed(3)} s`);
      fetchingPolls.set(collector, r);
    } catch (error) {
      log(`  failed: ${firstLine(error)}`);
    }
  }
  const queuesStats = fetchingPolls.get('queues');
  return { perCollector, measured: perCollector.filter(measured), queuesStats, fetchingPolls };
}

export async function measureRounds(ctx: MeasureContext, setup: Setup, collectors: Collectors, statsEvery: number): Promise<Rounds> {
  const { measured, queuesStats, fetchingPolls } = collectors;
  const { beamPid, pool, seqPool } = setup;
  const auth = setup.api.auth;
  log('broker CPU: exporter rounds and kbudde-style rounds, alternating');
  const roundPaths = measured.flatMap((r) => r.paths);
  const roundBytes = measured.reduce((n, r) => n + r.bytes, 0);
  const KBUDDE_COLLECTORS = ['overview', 'nodes', 'queues', 'exchanges'];
  const subsetPaths = measured.filter((r) => KBUDDE_COLLECTORS.includes(r.name)).flatMap((r) => r.paths);
  ctx.baseline = await baselineCpu(beamPid, 10);
  const roundBaseline = ctx.baseline;
  // The round in which every held part is fetched (one in stats_every).
  const statsRoundPaths = queuesStats ? measured.flatMap((r) => (fetchingPolls.get(r.name) ?? r).paths) : undefined;
  const cpuRuns: Rounds['cpuRuns'] = { exporter: [], statsRound: [], subset: [], kbudde: [] };
  let kbuddeBytes = 0;
  const kbuddeWall: number[] = [];
  for (let i = 0; i < S.repeats; i++) {
    cpuRuns.exporter.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, auth, roundPaths, EXPORTER_CONCURRENCY))).net);
    await sleep(300);
    if (statsRoundPaths) {
      cpuRuns.statsRound.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, auth, statsRoundPaths, EXPORTER_CONCURRENCY))).net);
      await sleep(300);
    }
    cpuRuns.subset.push((await brokerCpuOf(beamPid, ctx.baseline, () => replay(pool, auth, subsetPaths, EXPORTER_CONCURRENCY))).net);
    await sleep(300);
    const b = await brokerCpuOf(beamPid, ctx.baseline, () => replay(seqPool, auth, KBUDDE_PATHS, 1));
    cpuRuns.kbudde.push(b.net);
    kbuddeBytes = b.result.bytes;
    kbuddeWall.push(b.wall);
    await sleep(300);
  }
  const cpuExporter = median(cpuRuns.exporter);
  const cpuSubset = median(cpuRuns.subset);
  const cpuKbudde = median(cpuRuns.kbudde);
  const cpuStatsRound = statsRoundPaths ? median(cpuRuns.statsRound) : undefined;
  // One queue poll in statsEvery fetches the statistics: the round averaged over that cycle.
  const cpuAverageRound = cpuStatsRound === undefined ? undefined : ((statsEvery - 1) * cpuExporter + cpuStatsRound) / statsEvery;
  log(`broker CPU per round: exporter ${cpuExporter.toFixed(3)} s (subset ${cpuSubset.toFixed(3)} s), kbudde ${cpuKbudde.toFixed(3)} s`);

  // Which requests cost the broker most?
  log('broker CPU per path');
  const perPath: Rounds['perPath'] = [];
  const pathOwners = [...measured.flatMap((r) => r.round.map((p) => ({ owner: r.name, path: p.path }))), ...KBUDDE_PATHS.map((p) => ({ owner: 'kbudde-style', path: p }))];
  for (const p of pathOwners) {
    const cpus: number[] = [];
    let bytes = 0;
    let wall = 0;
    for (let i = 0; i < 3; i++) {
      const r = await brokerCpuOf(beamPid, ctx.baseline, () => replay(seqPool, auth, [p.path], 1));
      cpus.push(r.net);
      bytes = r.result.bytes;
      wall += r.wall / 3;
    }
    perPath.push({ owner: p.owner, path: p.path, bytes, wall, cpu: median(cpus) });
  }
  perPath.sort((a, b) => b.cpu - a.cpu);
  return { roundPaths, roundBytes, subsetPaths, statsRoundPaths, roundBaseline, cpuRuns, kbuddeBytes, kbuddeWall, cpuExporter, cpuSubset, cpuKbudde, cpuStatsRound, cpuAverageRound, perPath };
}
