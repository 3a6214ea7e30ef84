// Which programs are installed here: a usable rabbitmq-server (on the host, or a root file system
// of a newer Debian suite that can be built, see rootfs.ts), rabbitmqctl and epmd.
import fs from 'node:fs';
import path from 'node:path';
import { rootfsUnavailableReason } from './rootfs.js';
import { brokerVersion } from './versions.js';

export interface BrokerAvailability {
  available: boolean;
  reason?: string;
  serverBin?: string;
  ctlBin?: string;
  epmdBin?: string;
}

export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function which(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extraDirs].filter(Boolean);
  for (const d of dirs) {
    const p = path.join(d, name);
    if (isExecutable(p)) return p;
  }
  return undefined;
}

/**
 * Can a node of `version` run here? For the chroot versions the root file system need not be
 * built yet (global setup builds it), only buildable.
 */
export function brokerAvailability(version = '3.10'): BrokerAvailability {
  const { suite } = brokerVersion(version);
  if (suite) {
    const reason = rootfsUnavailableReason(suite);
    if (reason) return { available: false, reason };
    return { available: true, serverBin: '/usr/lib/rabbitmq/bin/rabbitmq-server', ctlBin: '/usr/lib/rabbitmq/bin/rabbitmqctl' };
  }
  return hostBrokerAvailability();
}

/** Is a usable rabbitmq-server (plus rabbitmqctl and epmd) installed on the host? */
function hostBrokerAvailability(): BrokerAvailability {
  let serverBin: string | undefined;
  const override = process.env.RABBITMQ_SERVER_BIN;
  if (override) {
    if (!isExecutable(override)) {
      return { available: false, reason: `rabbitmq-server is not installed at RABBITMQ_SERVER_BIN=${override}` };
    }
    serverBin = override;
  } else {
    const candidates = ['/usr/lib/rabbitmq/bin/rabbitmq-server'];
    const onPath = which('rabbitmq-server', ['/usr/sbin', '/usr/local/sbin']);
    if (onPath) candidates.push(onPath);
    for (const c of candidates) {
      if (!isExecutable(c)) continue;
      let real = c;
      try {
        real = fs.realpathSync(c);
      } catch {
        /* keep c */
      }
      // Debian's /usr/sbin/rabbitmq-server is a wrapper that su's to the rabbitmq user.
      if (path.basename(real) === 'rabbitmq-script-wrapper') continue;
      serverBin = c;
      break;
    }
    if (!serverBin) return { available: false, reason: 'rabbitmq-server is not installed' };
  }
  const ctlBin = path.join(path.dirname(serverBin), 'rabbitmqctl');
  if (!isExecutable(ctlBin)) {
    return { available: false, reason: `rabbitmqctl not found next to ${serverBin}` };
  }
  const epmdBin = which('epmd', ['/usr/lib/erlang/bin']);
  if (!epmdBin) return { available: false, reason: 'epmd (Erlang) is not installed' };
  return { available: true, serverBin, ctlBin, epmdBin };
}
