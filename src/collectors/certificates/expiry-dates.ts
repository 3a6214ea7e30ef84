import { scalarLabel } from '../kit/label-text.js';

/** One certificate file of a listener and when its first certificate expires. */
export interface CertificateExpiry {
  node: string;
  protocol: string;
  interface: string;
  port: string;
  file: 'certfile' | 'cacertfile';
  /** Unix seconds. */
  expiresAt: number;
}

/** A listener's entry whose dates could not be read, for the log. */
export interface UnreadableCertificate {
  node: string;
  port: string;
  file: 'certfile' | 'cacertfile';
  reason: string;
}

/**
 * The broker prints each notAfter as `YYYY-MM-DD H:MM:SS` in UTC (io_lib `~w` for the hour: no
 * leading zero). Undefined for anything else.
 */
export function parseBrokerDate(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{1,2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

/**
 * The expiry dates of the certificate-expiration check's answer: `{ status: "failed", expired: [...] }`
 * (503) lists each listener with `certfile_expires_on` and `cacertfile_expires_on`, lists of dates,
 * or `{ error: reason }` when the file could not be read; `{ status: "ok" }` lists none.
 */
export function expiryDates(answer: unknown): { dates: CertificateExpiry[]; unreadable: UnreadableCertificate[]; listeners: number } {
  const dates: CertificateExpiry[] = [];
  const unreadable: UnreadableCertificate[] = [];
  const entries = answer !== null && typeof answer === 'object' && Array.isArray((answer as { expired?: unknown }).expired) ? ((answer as { expired: unknown[] }).expired) : [];
  let listeners = 0;
  for (const entry of entries) {
    if (entry === null || typeof entry !== 'object') continue;
    const e = entry as Record<string, unknown>;
    listeners++;
    const where = { node: scalarLabel(e.node), protocol: scalarLabel(e.protocol), interface: scalarLabel(e.interface), port: scalarLabel(e.port) };
    for (const file of ['certfile', 'cacertfile'] as const) {
      const listed = e[`${file}_expires_on`];
      if (Array.isArray(listed)) {
        const seconds = listed.map(parseBrokerDate).filter((s): s is number => s !== undefined);
        if (seconds.length > 0) dates.push({ ...where, file, expiresAt: Math.min(...seconds) });
        else if (listed.length > 0) unreadable.push({ node: where.node, port: where.port, file, reason: JSON.stringify(listed).slice(0, 200) });
      } else if (listed !== undefined && listed !== null) {
        unreadable.push({ node: where.node, port: where.port, file, reason: JSON.stringify(listed).slice(0, 200) });
      }
    }
  }
  return { dates, unreadable, listeners };
}
