/**
 * Real-RabbitMQ test harness: starts and controls a PRIVATE RabbitMQ node.
 *
 * Versions (versions.ts): '3.10' is the host's package; '4.0' and '4.3' run from Debian
 * trixie / sid root file systems (rootfs.ts, build-rootfs.sh: built once, cached outside the
 * repository), each command through the node's `inroot.sh` launcher (chroot in a private
 * mount namespace, so nothing stays mounted); the node's temp dir has the same path inside.
 *
 * The node never touches another broker on the machine:
 *   - node name   `rmqexp-test-<pid>-<random>@localhost`
 *   - its own AMQP, management HTTP, Prometheus, Erlang distribution
 *     (RABBITMQ_DIST_PORT) and epmd (ERL_EPMD_PORT) ports, picked at random in
 *     20000..31999 (below Linux's ephemeral range, so outgoing connections
 *     cannot grab them) after checking that each can be bound on 127.0.0.1;
 *     everything listens on 127.0.0.1 only;
 *   - its own epmd (`epmd -port N -address 127.0.0.1`) started by us, never the
 *     default one on 4369;
 *   - everything lives in a fresh temp dir (`$TMPDIR/rmqexp-XXXXXX`): mnesia,
 *     logs, rabbitmq.conf, enabled_plugins, pid file, an empty conf.d and
 *     rabbitmq-env.conf (so /etc/rabbitmq is never read) and HOME, which holds
 *     the private `.erlang.cookie` used by both the node and rabbitmqctl;
 *   - RABBITMQ_* and ERL_* variables of the calling environment are dropped.
 * The scripts of /usr/lib/rabbitmq/bin are used (the /usr/sbin wrappers of
 * Debian `su` to the rabbitmq user). Override with RABBITMQ_SERVER_BIN
 * (e.g. RABBITMQ_SERVER_BIN=/nonexistent makes the broker look "not installed");
 * rabbitmqctl is taken from the same directory. PROMTOOL_BIN overrides promtool.
 *
 * API
 *   (brokerAvailability(version) is in availability.ts; promtoolPath() and checkMetricsWithPromtool() in promtool.ts)
 *   startBroker(opts?: StartBrokerOptions): Promise<BrokerHandle>
 *       StartBrokerOptions = { version? ('3.10'), startTimeoutMs? (90 000), nodeNamePrefix? ('rmqexp-test'),
 *         plugins? (DEFAULT_PLUGINS: management, prometheus, shovel(+_management),
 *         federation(+_management)), extraConfig?: string[] (rabbitmq.conf lines),
 *         peerOf?: BrokerInfo (share that running node's epmd and cookie, to cluster with it) }
 *       Waits for GET /api/overview (guest:guest) to answer 200 (~4-6 s here);
 *       on failure the error includes the tail of the node's logs. Retries once
 *       with fresh ports if the node reports a port already in use.
 *   joinCluster(node: BrokerHandle, seed: BrokerInfo): Promise<void>      (cluster.ts)
 *       Makes `node` (started with peerOf: seed) a member of seed's cluster (stop_app,
 *       join_cluster, start_app) and waits until seed's /api/nodes lists both running.
 *       Stop the joined node before the seed (the seed owns the shared epmd).
 *   connectBroker(info: BrokerInfo): BrokerHandle          (controller.ts, with the handle itself)
 *       Rebuilds a controller from the plain, JSON-serialisable BrokerInfo
 *       (what global-setup provides to test workers as inject('broker')).
 *
 *   BrokerHandle = BrokerInfo & {
 *     info: BrokerInfo;                       // plain data copy
 *     ctl(args: string[], opts?: { timeoutMs?: number }): Promise<string>
 *         // rabbitmqctl -n <node> ...args, same env/cookie; resolves stdout,
 *         // rejects with stderr on non-zero exit. Output is raw: pass '-q'
 *         // and/or '--no-table-headers' yourself for parse-friendly output.
 *     stopApp(): Promise<void>   // rabbitmqctl stop_app, then waits until the management API no longer answers
 *     startApp(): Promise<void>  // rabbitmqctl start_app, then waits until /api/overview answers 200 again
 *     stop(): Promise<void>      // stops the whole node + its epmd, waits for exit; idempotent
 *     waitForManagement(timeoutMs?: number): Promise<void>
 *     logTail(lines?: number): string   // tail of the node's log files
 *   }
 *   BrokerInfo = { nodeName, host: '127.0.0.1', amqpPort, managementPort,
 *     prometheusPort, streamPort (configured when rabbitmq_stream is enabled), distPort, epmdPort, managementUrl ('http://127.0.0.1:<port>',
 *     no trailing slash), prometheusUrl, amqpUrl ('amqp://guest:guest@127.0.0.1:<port>'),
 *     username: 'guest', password: 'guest', dir, logDir, pidFile, ctlBin, epmdBin,
 *     env: Record<string, string> (the variables rabbitmqctl needs), version?,
 *     brokerVersion ('3.10' | '4.0' | '4.3'), rootfs? (chroot versions),
 *     launcher (argv prefix for ctlBin/epmdBin: [] or [<dir>/inroot.sh]) }
 *
 * In tests, do not call startBroker(): the `broker` project's global setup
 * starts one node for the whole suite; use describeWithBroker() / getBroker()
 * from ./with-broker.ts. Tests that stopApp() must startApp() again (in a
 * finally) and must not stop() the shared node.
 *
 * Lifecycle: stop() is graceful (SIGTERM, ~7 s on 3.10) then SIGKILL after
 * 30 s. A detached guardian shell (watching a pipe to this process) and a
 * process 'exit' hook kill the node and its epmd if this process goes away
 * without calling stop(). The temp dir is removed by stop() unless
 * KEEP_BROKER_DIR=1 (it is kept when start-up fails, for post-mortem).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { brokerAvailability } from './availability.js';
import { Controller, killOnExit } from './controller.js';
import { childEnv, HOST, isListening, pickPorts, waitFor } from './node-process.js';
import { writeNodeFiles } from './node-files.js';
import { epmdInRootfs, ensureRootfs, writeLauncher } from './rootfs.js';
import { brokerVersion } from './versions.js';

export interface BrokerInfo {
  nodeName: string;
  host: string;
  amqpPort: number;
  managementPort: number;
  prometheusPort: number;
  /** Stream protocol port: the listener of rabbitmq_stream, when a test enables that plugin. */
  streamPort: number;
  distPort: number;
  epmdPort: number;
  managementUrl: string;
  prometheusUrl: string;
  amqpUrl: string;
  username: string;
  password: string;
  dir: string;
  logDir: string;
  pidFile: string;
  ctlBin: string;
  epmdBin: string;
  /** Environment variables (on top of a sanitized process.env) for rabbitmqctl. */
  env: Record<string, string>;
  /** management_version reported by /api/overview once started. */
  version?: string;
  /** The matrix version this node is (versions.ts: '3.10', '4.0', '4.3'). */
  brokerVersion: string;
  /** The epmd belongs to another node (StartBrokerOptions.peerOf): never stop it. */
  sharedEpmd?: boolean;
  /** Root file system the node runs in (chroot), or undefined for the host's package. */
  rootfs?: string;
  /**
   * argv prefix that runs ctlBin/epmdBin/the server where they live: [] on the host,
   * [<dir>/inroot.sh] for a chroot (ctlBin and epmdBin are then paths inside the root).
   */
  launcher: string[];
}

export interface BrokerHandle extends BrokerInfo {
  readonly info: BrokerInfo;
  ctl(args: string[], opts?: { timeoutMs?: number }): Promise<string>;
  /** rabbitmq-plugins on this node (e.g. ['disable', 'rabbitmq_prometheus']). */
  plugins(args: string[], opts?: { timeoutMs?: number }): Promise<string>;
  stopApp(): Promise<void>;
  startApp(): Promise<void>;
  stop(): Promise<void>;
  waitForManagement(timeoutMs?: number): Promise<void>;
  logTail(lines?: number): string;
}

export interface StartBrokerOptions {
  /** Which RabbitMQ (versions.ts; default '3.10', the host's package). */
  version?: string;
  /** How long to wait for the management API after spawning (default 90 000 ms). */
  startTimeoutMs?: number;
  /** Node name prefix (default 'rmqexp-test'). */
  nodeNamePrefix?: string;
  /** Plugins to enable (default: management, prometheus, shovel(+mgmt), federation(+mgmt)). */
  plugins?: string[];
  /** Extra rabbitmq.conf lines appended to the generated file. */
  extraConfig?: string[];
  /**
   * Start this node able to cluster with a running one: it uses that node's epmd (nodes find
   * each other through the epmd on the port both use) and its cookie, and starts no epmd of its
   * own. Stop it before that node. joinCluster() makes it a member.
   */
  peerOf?: BrokerInfo;
}

export const DEFAULT_PLUGINS = [
  'rabbitmq_management',
  'rabbitmq_prometheus',
  'rabbitmq_shovel',
  'rabbitmq_shovel_management',
  'rabbitmq_federation',
  'rabbitmq_federation_management',
];

const USER = 'guest';
const PASS = 'guest';


// ---------------------------------------------------------------------------
// start

interface Binaries {
  serverBin: string;
  ctlBin: string;
  epmdBin: string;
  version: string;
  rootfs?: string;
}

async function startOnce(opts: StartBrokerOptions, avail: Binaries): Promise<Controller> {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'rmqexp-'));
  const launcher = avail.rootfs ? [writeLauncher(dir, avail.rootfs)] : [];
  // Spawns a binary of the node's installation (host or chroot), through the launcher.
  const spawnIn = (bin: string, args: string[], options: Parameters<typeof spawn>[2]) => {
    const [cmd, ...pre] = [...launcher, bin];
    return spawn(cmd!, [...pre, ...args], options);
  };
  const suffix = Math.random().toString(36).slice(2, 8);
  const nodeName = `${opts.nodeNamePrefix ?? 'rmqexp-test'}-${process.pid}-${suffix}@localhost`;
  const [amqp, mgmt, prom, dist, ownEpmdPort, stream] = (await pickPorts(6)) as [number, number, number, number, number, number];
  const peer = opts.peerOf;
  const epmdPort = peer ? peer.epmdPort : ownEpmdPort;
  const peerCookie = peer ? fs.readFileSync(path.join(peer.dir, '.erlang.cookie'), 'utf8') : undefined;
  writeNodeFiles(dir, { amqp, mgmt, prom, stream }, opts.plugins ?? DEFAULT_PLUGINS, opts.extraConfig ?? [], peerCookie);
  const logDir = path.join(dir, 'log');
  const pidFile = path.join(dir, 'rabbitmq.pid');

  const env: Record<string, string> = {
    HOME: dir, // $HOME/.erlang.cookie: the private cookie, for the node and rabbitmqctl
    LC_ALL: 'C.UTF-8',
    LANG: 'C.UTF-8',
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_USE_LONGNAME: 'false',
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_CONFIG_FILES: path.join(dir, 'conf.d'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_MNESIA_DIR: path.join(dir, 'mnesia', nodeName),
    RABBITMQ_LOG_BASE: logDir,
    RABBITMQ_PID_FILE: pidFile,
    RABBITMQ_MOTD_FILE: path.join(dir, 'motd'),
    RABBITMQ_DIST_PORT: String(dist),
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    ERL_EPMD_PORT: String(epmdPort),
    ERL_EPMD_ADDRESS: HOST,
    ...(avail.rootfs ? { RABBITMQ_PLUGINS_DIR: pluginsDirIn(avail.rootfs, avail.ctlBin) } : {}),
  };
  const info: BrokerInfo = {
    nodeName,
    host: HOST,
    amqpPort: amqp,
    managementPort: mgmt,
    prometheusPort: prom,
    streamPort: stream,
    distPort: dist,
    epmdPort,
    managementUrl: `http://${HOST}:${mgmt}`,
    prometheusUrl: `http://${HOST}:${prom}`,
    amqpUrl: `amqp://${USER}:${PASS}@${HOST}:${amqp}`,
    username: USER,
    password: PASS,
    dir,
    logDir,
    pidFile,
    ctlBin: avail.ctlBin,
    epmdBin: avail.epmdBin,
    env,
    brokerVersion: avail.version,
    ...(peer ? { sharedEpmd: true } : {}),
    rootfs: avail.rootfs,
    launcher,
  };

  // 1. our own epmd (unless the node shares its peer's), as our child, so we know its pid and can always stop it.
  let epmd: ChildProcess | undefined;
  if (!peer) {
    const epmdLog = fs.openSync(path.join(dir, 'epmd.out'), 'a');
    epmd = spawnIn(avail.epmdBin, ['-port', String(epmdPort), '-address', HOST], {
      env: childEnv(env),
      cwd: dir,
      stdio: ['ignore', epmdLog, epmdLog],
      detached: true,
    });
    fs.closeSync(epmdLog);
    epmd.on('error', () => undefined);
    epmd.unref();
    // epmd must listen before the node starts, or erl would spawn its own (daemonized) one.
    // If ours fails the node still starts its own on the same private port; stop() kills that too.
    await waitFor(() => isListening(epmdPort), 5_000, 50);
  }

  // 2. the node itself, in its own process group, output to server.out.
  const out = fs.openSync(path.join(dir, 'server.out'), 'a');
  const child = spawnIn(avail.serverBin, [], {
    env: childEnv(env),
    cwd: dir,
    stdio: ['ignore', out, out],
    detached: true,
  });
  fs.closeSync(out);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', (e) => {
      fs.appendFileSync(path.join(dir, 'server.out'), `spawn error: ${e.message}\n`);
      resolve();
    });
  });
  child.unref();

  // 3. a guardian that cleans up if this process dies without stop().
  let guardian: ChildProcess | undefined;
  if (child.pid) {
    guardian = spawn('/bin/sh', [path.join(dir, 'guardian.sh'), String(child.pid), String(epmd?.pid ?? ''), pidFile, process.env.KEEP_BROKER_DIR === '1' ? '' : dir], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
    });
    guardian.on('error', () => undefined);
    guardian.unref();
    // Keep the pipe open (never written, never closed) without holding the event loop.
    const stdin = guardian.stdin as net.Socket | null;
    stdin?.on('error', () => undefined);
    stdin?.unref();
  }

  const ctl = new Controller(info, { child, exited, epmd, guardian, keepDir: false });
  killOnExit(ctl);
  return ctl;
}

/**
 * The server's plugins directory inside a root file system (ctlBin links into the server's sbin/).
 * Given to the node and rabbitmqctl as RABBITMQ_PLUGINS_DIR: without it 4.0.5's rabbitmqctl finds no
 * plugin, so a plugin's commands (list_stream_connections) are "not found" though the node runs it.
 */
function pluginsDirIn(rootfs: string, ctlBin: string): string {
  let target = ctlBin;
  try {
    target = path.posix.resolve(path.posix.dirname(ctlBin), fs.readlinkSync(path.join(rootfs, ctlBin)));
  } catch {
    /* not a link: ctlBin is in the server's sbin/ already */
  }
  return path.posix.join(path.posix.dirname(path.posix.dirname(target)), 'plugins');
}

/** Start a private RabbitMQ node and wait for its management API. */
export async function startBroker(opts: StartBrokerOptions = {}): Promise<BrokerHandle> {
  const version = opts.version ?? '3.10';
  const avail = brokerAvailability(version);
  if (!avail.available || !avail.serverBin || !avail.ctlBin) {
    throw new Error(`cannot start RabbitMQ ${version}: ${avail.reason ?? 'not available'}`);
  }
  const { suite } = brokerVersion(version);
  // A chroot version: its root file system (built once, cached; global setup rebuilds on request).
  const rootfs = suite ? ensureRootfs(suite) : undefined;
  const epmdBin = rootfs ? epmdInRootfs(rootfs) : avail.epmdBin;
  if (!epmdBin) throw new Error(`cannot start RabbitMQ ${version}: ${avail.reason ?? 'epmd not found'}`);
  const timeoutMs = opts.startTimeoutMs ?? 90_000;
  let lastErr: unknown;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const ctl = await startOnce(opts, { serverBin: avail.serverBin, ctlBin: avail.ctlBin, epmdBin, version, rootfs });
    try {
      await ctl.waitForManagement(timeoutMs);
      return ctl;
    } catch (e) {
      lastErr = e;
      const tail = ctl.logTail(200);
      ctl.keepDirOnStop(); // for post-mortem
      await ctl.stop();
      // A port grabbed between our check and the node's bind: try once more with fresh ports.
      if (attempt === 1 && /eaddrinuse|address already in use/i.test(tail)) continue;
      throw e;
    }
  }
  throw lastErr;
}
