import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

/**
 * Whether a broker accepts connections, asked with undici's connector (the one the client's Pool
 * uses, with the same TLS options and connect timeout), without building a Pool. A target whose
 * broker refuses connections is probed on each poll instead of building and dropping a Pool every
 * time (~60 kB of garbage per poll; 10,000 such targets stalled the exporter in major collections).
 * It fails with exactly the error the Pool's connection would have met, so failure kinds and
 * messages stay the same; it resolves with the connection once it (and its TLS handshake)
 * succeeded, for the Pool built next to take as its first.
 */
export class ListeningProbe {
  private readonly target: buildConnector.Options;

  constructor(
    url: URL,
    private readonly connect: buildConnector.connector,
  ) {
    this.target = { host: url.host, hostname: bareHostname(url.hostname), protocol: url.protocol, port: url.port };
  }

  /** Resolves with the connection the broker accepted; rejects with the connection's error, or the signal's reason once it aborts. */
  probe(signal: AbortSignal): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
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
        if (settled || error) connected?.destroy();
        if (settled) return;
        settled = true;
        if (error || !connected) reject(error ?? new Error('the connector gave no connection'));
        else resolve(connected as Socket);
      }) as unknown as Socket | undefined;
    });
  }
}

/** `[::1]` → `::1`, as undici's client does before it connects. */
function bareHostname(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, hostname.indexOf(']')) : hostname;
}
