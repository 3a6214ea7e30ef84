import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

/**
 * Whether a broker accepts connections, asked with undici's own connector (the one a Pool uses,
 * with the same TLS options and connect timeout), without building a Pool. A target whose broker
 * refuses connections is probed on each poll instead of building and dropping a Pool every time
 * (~60 kB of garbage per poll; 10,000 such targets stalled the exporter in major collections).
 * It fails with exactly the error the Pool's connection would have met, so failure kinds and
 * messages stay the same; it resolves once a connection (and TLS handshake) succeeds, and closes it.
 */
export class ListeningProbe {
  private readonly connect: buildConnector.connector;
  private readonly target: buildConnector.Options;

  constructor(url: URL, options: buildConnector.BuildOptions) {
    this.connect = buildConnector(options);
    this.target = { host: url.host, hostname: bareHostname(url.hostname), protocol: url.protocol, port: url.port };
  }

  /** Resolves when the broker accepted a connection; rejects with the connection's error, or the signal's reason once it aborts. */
  probe(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      let settled = false;
      const onAbort = () => {
        settled = true;
        socket?.destroy();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      // undici's connector returns the socket it connects, though its type says void.
      const socket = this.connect(this.target, (error, connected) => {
        signal.removeEventListener('abort', onAbort);
        connected?.destroy();
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve();
      }) as unknown as Socket | undefined;
    });
  }
}

/** `[::1]` → `::1`, as undici's client does before it connects. */
function bareHostname(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, hostname.indexOf(']')) : hostname;
}
