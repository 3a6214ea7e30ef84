/** Why a request to the management API produced no usable answer. */
export type ManagementErrorKind =
  | 'http_status' // the broker answered, but not 2xx
  | 'timeout' // connect, headers, body or total deadline passed
  | 'network' // refused, reset, DNS, TLS handshake, truncated transfer
  | 'malformed_json' // 2xx, but the body is not JSON
  | 'too_large' // the body is over the configured cap
  | 'aborted'; // the poll that asked for it was cancelled

export class ManagementError extends Error {
  override readonly name = 'ManagementError';
  constructor(
    readonly kind: ManagementErrorKind,
    /** Path and query of the request; never carries credentials. */
    readonly path: string,
    /** What went wrong, without the path. */
    readonly detail: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`GET ${path}: ${detail}`, options);
  }

  /** The path without its query (columns= lists are long), for log lines. */
  get pathname(): string {
    const q = this.path.indexOf('?');
    return q < 0 ? this.path : this.path.slice(0, q);
  }

  /** A short, label-safe word for logs and metrics. */
  get reason(): string {
    return this.kind === 'http_status' ? `http_${this.status}` : this.kind;
  }
}
