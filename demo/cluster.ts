/**
 * The demo's cluster: the project's management-API simulator (test/support/management-simulator.ts,
 * records made from real 3.10 recordings) shaped as a small cluster of three nodes, with its
 * traffic moving (traffic.ts) and its self-description saying it is a simulation.
 */
import { startSimulator, type SimulatedData, type Simulator } from '../test/support/management-simulator.js';
import { applyTraffic } from './traffic.js';

/** What the overview says answers instead of a broker: the exporter shows it on `/` and in rabbitmq_simulated_info. */
export const SIMULATION = 'the rabbitmq-exporter demo (npm run demo)';

export const DEMO_SHAPE = { queues: 1000, vhosts: 4, exchanges: 40, bindings: 500, connections: 30, channels: 60, consumers: 60, quorumEvery: 10 } as const;

export const NODES = ['rabbit@demo-1', 'rabbit@demo-2', 'rabbit@demo-3'] as const;

/** How often the records move on: about as often as anything polls them. */
const TICK_MS = 1000;

export interface DemoCluster {
  readonly sim: Simulator;
  /** Stops the traffic and the simulator. */
  close(): Promise<void>;
}

type Rec = Record<string, unknown>;

const nodeOf = (i: number) => NODES[i % NODES.length]!;

/** Spreads the simulator's one recorded node over three, and every record over them. */
function spreadOverNodes(data: SimulatedData): void {
  const template = data.nodes[0]!;
  data.nodes = NODES.map((name) => ({ ...structuredClone(template), name, running: true, partitions: [], cluster_links: NODES.filter((n) => n !== name).map((n) => ({ name: n })) }));
  data.queues.forEach((q, i) => {
    q.node = nodeOf(i);
    if (q.type === 'quorum') {
      Object.assign(q, { leader: nodeOf(i), members: [...NODES], online: [...NODES], open_files: Object.fromEntries(NODES.map((n) => [n, 0])) });
    }
  });
  data.connections.forEach((c, i) => {
    Object.assign(c, { node: nodeOf(i), user: 'demo' });
  });
  data.channels.forEach((ch, i) => {
    Object.assign(ch, { node: nodeOf(i >> 1), user: 'demo' });
  });
  for (const v of data.vhosts) v.cluster_state = Object.fromEntries(NODES.map((n) => [n, 'running']));
  const overview = data.overview;
  const listeners = (overview.listeners as Rec[] | undefined) ?? [];
  overview.listeners = NODES.flatMap((node) => listeners.map((l) => ({ ...structuredClone(l), node })));
  Object.assign(overview, { node: NODES[0], cluster_name: 'demo-cluster', simulation: SIMULATION });
}

/** Starts the simulated cluster on 127.0.0.1 (a free port); its figures move every second from now on. */
export async function startDemoCluster(): Promise<DemoCluster> {
  const sim = await startSimulator({ ...DEMO_SHAPE, username: 'demo', password: 'demo' });
  spreadOverNodes(sim.data);
  const started = Date.now();
  const tick = () => {
    const now = Date.now();
    applyTraffic(sim.data, (now - started) / 1000, now / 1000);
    sim.changed();
  };
  tick();
  // Never what keeps the process alive: the exporter's server does.
  const timer = setInterval(tick, TICK_MS).unref();
  return {
    sim,
    close: async () => {
      clearInterval(timer);
      await sim.close();
    },
  };
}
