// The queue collector's state as the exporter's landing page shows it: a request of a few kB that
// renders no exposition, so following the polls this way costs the exporter next to nothing.
import { request } from 'undici';

export interface QueueStatus {
  condition: string;
  /** Date.now() of the last successful poll's end, undefined before the first. */
  lastSuccessAt: number | undefined;
  lastDurationSeconds: number | undefined;
}

const ROW = /<tr class="condition-(\w+)"><td>queues<\/td><td class="condition">\w+<\/td><td>[^<]*<\/td><td>[^<]*<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/;

export async function queueStatus(exporterUrl: string): Promise<QueueStatus> {
  const res = await request(`${exporterUrl}/`);
  const html = await res.body.text();
  const askedAt = Date.now();
  const row = ROW.exec(html);
  if (!row) throw new Error(`the landing page (HTTP ${res.statusCode}) has no row for the queues collector`);
  const ago = /^([\d.]+) s ago$/.exec(row[2]!);
  const duration = /^([\d.]+) s$/.exec(row[3]!);
  return {
    condition: row[1]!,
    lastSuccessAt: ago ? askedAt - Number(ago[1]) * 1000 : undefined,
    lastDurationSeconds: duration ? Number(duration[1]) : undefined,
  };
}
