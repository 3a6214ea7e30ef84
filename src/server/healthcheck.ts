import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { endianness } from 'node:os';
import { pathToFileURL } from 'node:url';

/**
 * The container's HEALTHCHECK: asks /-/healthy on the sockets the exporter process really listens
 * on, read from /proc, so it follows the port however it was set (--web.listen-address, the config
 * file's web.listen_address, a port chosen by the system) without knowing the configuration.
 * Plain HTTP first, then HTTPS when the listener speaks TLS (a web config with tls_server_config);
 * the certificate is not verified: this checks that the process answers, not who it is. A listener
 * that requires client certificates cannot be checked this way.
 *
 * Usage: node dist/src/server/healthcheck.js [PID]  (default: the processes running dist/src/main.js)
 * Exit 0 when one of them answers 200, else 1 with the reason on stderr (shown by `docker inspect`).
 */

export interface Endpoint {
  host: string;
  port: number;
}

const MAIN = /(^|\/)dist\/src\/main\.js$/;
const LISTEN = '0A';
const TIMEOUT_MS = 3000;

/** The processes whose command line runs the exporter's dist/src/main.js (not this one). */
export function exporterPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').some((arg) => MAIN.test(arg));
      } catch {
        return false; // gone since the listing, or not ours to read
      }
    })
    .map(Number);
}

/** The TCP sockets `pid` listens on, as addresses to connect to from inside its network namespace. */
export function listeningEndpoints(pid: number): Endpoint[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1] as string);
    } catch {
      // closed since the listing
    }
  }
  const found: Endpoint[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (!local || state !== LISTEN || !inode || !inodes.has(inode)) continue;
      const [hexAddress, hexPort] = local.split(':') as [string, string];
      found.push({ host: connectableHost(decodeAddress(hexAddress)), port: Number.parseInt(hexPort, 16) });
    }
  }
  return found;
}

/**
 * /proc/net/tcp{,6} print each 32-bit word of the (network order) address as a native integer:
 * on little-endian machines the bytes of every word come out reversed.
 */
export function decodeAddress(hex: string, order = endianness()): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const wordBytes = (hex.slice(word, word + 8).match(/../g) ?? []).map((b) => Number.parseInt(b, 16));
    bytes.push(...(order === 'LE' ? wordBytes.reverse() : wordBytes));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') return bytes.slice(12).join('.'); // IPv4-mapped
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** A wildcard listener is reached on loopback; the exporter listens dual-stack, so 127.0.0.1 serves `::` too. */
function connectableHost(address: string): string {
  return address === '0.0.0.0' || address === '::' ? '127.0.0.1' : address;
}

/** The status of GET /-/healthy, or the connection's error. */
function ask(endpoint: Endpoint, tls: boolean): Promise<number> {
  const request = tls ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: endpoint.host, port: endpoint.port, path: '/-/healthy', timeout: TIMEOUT_MS, rejectUnauthorized: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Exit status and explanation of one health check. */
export async function check(pids: number[]): Promise<{ healthy: boolean; report: string }> {
  if (pids.length === 0) return { healthy: false, report: 'no process runs dist/src/main.js' };
  const lines: string[] = [];
  for (const pid of pids) {
    let endpoints: Endpoint[];
    try {
      endpoints = listeningEndpoints(pid);
    } catch (error) {
      lines.push(`pid ${pid}: cannot read its sockets (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    if (endpoints.length === 0) lines.push(`pid ${pid}: listens on no TCP port`);
    for (const endpoint of endpoints) {
      const where = `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
      for (const tls of [false, true]) {
        const scheme = tls ? 'https' : 'http';
        try {
          const status = await ask(endpoint, tls);
          if (status === 200) return { healthy: true, report: `${scheme}://${where}/-/healthy: 200` };
          lines.push(`${scheme}://${where}/-/healthy: ${status}`);
          // A TLS listener answers plain HTTP with 400 ("Client sent an HTTP request to an HTTPS server."): try HTTPS.
          if (!tls && status === 400) continue;
          break; // it speaks this protocol: the other would not do better
        } catch (error) {
          lines.push(`${scheme}://${where}/-/healthy: ${(error as Error).message}`);
        }
      }
    }
  }
  return { healthy: false, report: lines.join('\n') };
}

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg !== undefined && !/^\d+$/.test(arg)) {
    process.stderr.write(`usage: healthcheck [PID]: "${arg}" is not a process id\n`);
    process.exit(1);
  }
  const { healthy, report } = await check(arg === undefined ? exporterPids() : [Number(arg)]);
  (healthy ? process.stdout : process.stderr).write(`${report}\n`);
  process.exit(healthy ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
