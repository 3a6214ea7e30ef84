// The handle of a private node (broker.ts starts it): its connection data, rabbitmqctl, stopping
// and starting the app or the node, and the kill of everything it started when this process exits.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { childEnv, isListening, logTailOf, pidAlive, readPid, settlesWithin, sleep, tryKill, waitFor } from './node-process.js';
import type { BrokerHandle, BrokerInfo } from './broker.js';

// ---------------------------------------------------------------------------
// helpers

async function overviewStatus(info: BrokerInfo): Promise<{ status: number; body?: unknown } | { error: string }> {
  try {
    const res = await fetch(`${info.managementUrl}/api/overview`, {
      headers: { authorization: `Basic ${Buffer.from(`${info.username}:${info.password}`).toString('base64')}` },
      signal: AbortSignal.timeout(3000),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { status: res.status };
    }
    return { status: 200, body: await res.json() };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return { error: err.cause?.code ?? err.message };
  }
}

// ---------------------------------------------------------------------------
// controller

export interface Owned {
  child: ChildProcess;
  exited: Promise<void>;
  epmd?: ChildProcess;
  guardian?: ChildProcess;
  keepDir: boolean;
}

const live = new Set<Controller>();
let exitHookInstalled = false;
/** Kills `ctl`'s node (SIGKILL) when this process exits, whatever the tests did. */
export function killOnExit(ctl: Controller): void {
  live.add(ctl);
  installExitHook();
}
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of live) c.killNow();
  });
}

export class Controller implements BrokerHandle {
  readonly info: BrokerInfo;
  private stopping: Promise<void> | undefined;

  constructor(
    info: BrokerInfo,
    private readonly owned?: Owned,
  ) {
    this.info = { ...info, env: { ...info.env } };
  }

  get nodeName() { return this.info.nodeName; }
  get host() { return this.info.host; }
  get amqpPort() { return this.info.amqpPort; }
  get managementPort() { return this.info.managementPort; }
  get prometheusPort() { return this.info.prometheusPort; }
  get streamPort() { return this.info.streamPort; }
  get distPort() { return this.info.distPort; }
  get epmdPort() { return this.info.epmdPort; }
  get managementUrl() { return this.info.managementUrl; }
  get prometheusUrl() { return this.info.prometheusUrl; }
  get amqpUrl() { return this.info.amqpUrl; }
  get username() { return this.info.username; }
  get password() { return this.info.password; }
  get dir() { return this.info.dir; }
  get logDir() { return this.info.logDir; }
  get pidFile() { return this.info.pidFile; }
  get ctlBin() { return this.info.ctlBin; }
  get epmdBin() { return this.info.epmdBin; }
  get env() { return this.info.env; }
  get version() { return this.info.version; }
  get brokerVersion() { return this.info.brokerVersion; }
  get rootfs() { return this.info.rootfs; }
  get launcher() { return this.info.launcher; }

  /** Do not remove the temp dir on stop() (used when start-up fails). */
  keepDirOnStop(): void {
    if (this.owned) this.owned.keepDir = true;
  }

  logTail(lines = 40): string {
    return logTailOf(this.info, lines);
  }

  ctl(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
    return this.runCli(this.info.ctlBin, args, opts);
  }

  /** rabbitmq-plugins (beside rabbitmqctl) on this node: its enabled_plugins file is the node's own (env). */
  plugins(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
    return this.runCli(path.posix.join(path.posix.dirname(this.info.ctlBin), 'rabbitmq-plugins'), args, opts);
  }

  private runCli(bin: string, args: string[], opts: { timeoutMs?: number }): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? 90_000;
    const argv = ['-n', this.info.nodeName, ...args];
    const [cmd, ...pre] = [...this.info.launcher, bin];
    return new Promise((resolve, reject) => {
      const child = spawn(cmd!, [...pre, ...argv], {
        env: childEnv(this.info.env),
        cwd: this.info.dir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(stdout);
        else {
          const why = signal ? `was killed by ${signal} (timeout ${timeoutMs} ms?)` : `exited with code ${code}`;
          reject(new Error(`${path.posix.basename(bin)} ${argv.join(' ')} ${why}:\n${stderr.trim() || stdout.trim()}`));
        }
      });
    });
  }

  async waitForManagement(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'no attempt';
    for (;;) {
      if (this.owned && this.owned.child.exitCode !== null) {
        throw new Error(
          `RabbitMQ node ${this.info.nodeName} exited (code ${this.owned.child.exitCode}) before its management API answered.\n${this.logTail()}`,
        );
      }
      const r = await overviewStatus(this.info);
      if ('status' in r && r.status === 200) {
        const v = (r.body as { management_version?: unknown } | undefined)?.management_version;
        if (typeof v === 'string') this.info.version = v;
        return;
      }
      last = 'status' in r ? `HTTP ${r.status}` : r.error;
      if (Date.now() >= deadline) {
        throw new Error(
          `RabbitMQ management API at ${this.info.managementUrl}/api/overview did not answer 200 within ${timeoutMs} ms (last: ${last}); node ${this.info.nodeName}, dir ${this.info.dir}\n${this.logTail()}`,
        );
      }
      await sleep(250);
    }
  }

  async stopApp(): Promise<void> {
    await this.ctl(['stop_app']);
    const down = await waitFor(async () => {
      const r = await overviewStatus(this.info);
      return !('status' in r && r.status === 200);
    }, 30_000, 200);
    if (!down) throw new Error(`management API still answers after stop_app on ${this.info.nodeName}`);
  }

  async startApp(): Promise<void> {
    await this.ctl(['start_app']);
    await this.waitForManagement(90_000);
  }

  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const beamPid = readPid(this.info.pidFile);
    if (this.owned) {
      const { child, exited } = this.owned;
      if (child.exitCode === null && child.signalCode === null) {
        // The rabbitmq-server script traps TERM and stops the node gracefully.
        tryKill(child.pid, 'SIGTERM');
        if (!(await settlesWithin(exited, 30_000))) {
          this.killGroup('SIGKILL');
          await settlesWithin(exited, 5_000);
        }
      }
    } else if (pidAlive(beamPid)) {
      // Not our child (e.g. a test worker): ask the node to stop.
      await this.ctl(['stop']).catch(() => undefined);
    }
    if (!(await waitFor(() => !pidAlive(beamPid), 15_000))) {
      tryKill(beamPid, 'SIGKILL');
      await waitFor(() => !pidAlive(beamPid), 5_000);
    }
    await this.stopEpmd();
    if (this.owned?.guardian) {
      tryKill(this.owned.guardian.pid, 'SIGKILL');
      this.owned.guardian.stdin?.destroy();
    }
    live.delete(this);
    if (this.owned && !this.owned.keepDir && process.env.KEEP_BROKER_DIR !== '1') {
      fs.rmSync(this.info.dir, { recursive: true, force: true });
    }
  }

  private async stopEpmd(): Promise<void> {
    const epmd = this.owned?.epmd;
    if (epmd && epmd.exitCode === null && epmd.signalCode === null) {
      const gone = new Promise<void>((r) => epmd.once('exit', () => r()));
      tryKill(epmd.pid, 'SIGTERM');
      if (!(await settlesWithin(gone, 3_000))) tryKill(epmd.pid, 'SIGKILL');
    }
    // Whoever started it (us, or the node when ours was gone), make sure the private epmd is gone.
    if (!this.info.sharedEpmd && (await isListening(this.info.epmdPort))) {
      const [cmd, ...pre] = [...this.info.launcher, this.info.epmdBin];
      spawnSync(cmd!, [...pre, '-port', String(this.info.epmdPort), '-kill'], {
        env: childEnv({ ...this.info.env }),
        stdio: 'ignore',
        timeout: 10_000,
      });
    }
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.owned?.child.pid;
    if (pid) {
      try {
        process.kill(-pid, signal); // detached => own process group
      } catch {
        /* gone */
      }
    }
    tryKill(readPid(this.info.pidFile), signal);
  }

  /**
   * Synchronous last-resort kill, for the process 'exit' hook. The guardian is
   * left alone: it sees its pipe close when we are gone and removes the temp dir.
   */
  killNow(): void {
    this.killGroup('SIGKILL');
    tryKill(this.owned?.epmd?.pid, 'SIGKILL');
  }
}

/** Rebuild a controller for an already running broker from plain data (e.g. inject('broker')). */
export function connectBroker(info: BrokerInfo): BrokerHandle {
  return new Controller(info);
}
