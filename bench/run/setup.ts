// Phase 1 and 2: a private RabbitMQ node, its state and its load, and the broker's CPU baseline.
import fs from 'node:fs';
import { brokerAvailability } from '../../test/harness/broker/availability.js';
import { startBroker, type BrokerHandle } from '../../test/harness/broker/broker.js';
import { brokerPool, baselineCpu } from './measure.js';
import { EXPORTER_CONCURRENCY, S } from './settings.js';
import { brokerApi, buildState, planState, startTraffic, type BrokerApi, type Overview, type Traffic } from './state.js';
import { log, now, onCleanup, sleep, withTimeout } from './util.js';
import type { Pool } from 'undici';

export interface Setup {
  broker: BrokerHandle;
  api: BrokerApi;
  beamPid: number;
  overview: Overview;
  totals: NonNullable<Overview['object_totals']>;
  quorumCount: number;
  msgRate: number | undefined;
  setupSeconds: number;
  declareSeconds: number;
  trafficConnections: number;
  traffic: Traffic;
  /** The exporter's concurrency, and one request at a time (kbudde's way). */
  pool: Pool;
  seqPool: Pool;
  /** Broker CPU-s/s with the traffic and nobody polling. */
  baseline: number;
}

export async function setUp(): Promise<Setup> {
  const avail = brokerAvailability();
  if (!avail.available) throw new Error(`cannot run the benchmark: ${avail.reason}`);
  log('starting a private RabbitMQ node (management + prometheus)');
  const broker = await startBroker({
    plugins: ['rabbitmq_management', 'rabbitmq_prometheus'],
    nodeNamePrefix: 'rmqexp-bench',
    extraConfig: [`collect_statistics_interval = ${S.statsIntervalMs}`],
  });
  onCleanup(async () => {
    log('stopping the broker');
    await broker.stop();
  });
  const beamPid = Number(fs.readFileSync(broker.pidFile, 'utf8').trim());
  const comm = fs.readFileSync(`/proc/${beamPid}/comm`, 'utf8').trim();
  if (!comm.startsWith('beam')) throw new Error(`pid ${beamPid} from ${broker.pidFile} is ${comm}, not beam.smp`);
  const api = brokerApi(broker);
  log(`broker ${broker.nodeName}: management ${broker.managementUrl}, prometheus ${broker.prometheusUrl}, beam pid ${beamPid}`);

  const vhosts = planState();
  log(`building ${S.queues} queues over ${S.vhosts} vhosts, ${S.exchanges} exchanges, ${S.bindings} bindings`);
  const setupStarted = now();
  const built = await withTimeout(buildState(broker, api, vhosts), 15 * 60_000, 'building the state');
  log(`declared in ${built.declareSeconds.toFixed(1)} s (vhosts ${built.vhostsSeconds.toFixed(1)} s)`);
  const traffic = await withTimeout(startTraffic(broker, vhosts), 5 * 60_000, 'starting the traffic');
  const setupSeconds = (now() - setupStarted) / 1000;
  log(`traffic: ${traffic.connections} AMQP connections, ${S.rate} msg/s; set-up took ${setupSeconds.toFixed(1)} s`);
  // Let message_stats and rates appear (two statistics intervals), then check the state.
  await sleep(Math.max(2 * S.statsIntervalMs, 5000) + 1000);
  const overview = await api.get<Overview>('/api/overview');
  const totals = overview.object_totals ?? {};
  const quorumCount = vhosts.reduce((n, vh) => n + vh.queues.filter((q) => q.quorum).length, 0);
  log(`broker: ${JSON.stringify(totals)}; published ${traffic.counts.published}, consumed ${traffic.counts.consumed}`);
  if ((totals.queues ?? 0) < S.queues) throw new Error(`the broker reports ${totals.queues} queues, expected ${S.queues}`);

  const pool = brokerPool(broker, EXPORTER_CONCURRENCY);
  const seqPool = brokerPool(broker, 1);
  log('broker CPU baseline (traffic, nobody polling), 10 s');
  const baseline = await baselineCpu(beamPid, 10);
  return {
    broker,
    api,
    beamPid,
    overview,
    totals,
    quorumCount,
    msgRate: overview.message_stats?.publish_details?.rate,
    setupSeconds,
    declareSeconds: built.declareSeconds,
    trafficConnections: traffic.connections,
    traffic,
    pool,
    seqPool,
    baseline,
  };
}
