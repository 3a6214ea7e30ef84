import { getPath } from '../kit/field-table.js';
import { scalarLabel } from '../kit/label-text.js';
import type { Aggregation, ApiRecord } from '../kit/records.js';
import { eachInTurns } from '../kit/in-turns.js';
import type { MetricDef } from '../../model/metric-def.js';

/** The client properties counted, in label order after vhost and user. */
export const CLIENT_FIELDS = ['product', 'version', 'platform'] as const;
type ClientField = (typeof CLIENT_FIELDS)[number];

/** The label value that stands for every value beyond the cap. */
export const OTHER = 'other';

/**
 * Bounds the distinct values of each client property served as a label. Values admitted on the
 * last poll and seen again keep their place (a series does not flip to "other" while its clients
 * stay connected); free places go to the new values with the most connections, ties by name; the
 * rest are counted as "other". A value no connection has any more gives its place up.
 */
export class ClientValueCap {
  private admitted = new Map<ClientField, Set<string>>();

  constructor(private readonly max: number) {}

  /** Decides this poll's admitted values from the records that will be counted. */
  async admit(records: Iterable<ApiRecord>): Promise<void> {
    const counts = new Map<ClientField, Map<string, number>>(CLIENT_FIELDS.map((f) => [f, new Map()]));
    await eachInTurns(records, (record) => {
      const properties = clientPropertiesOf(record);
      if (!properties) return;
      for (const field of CLIENT_FIELDS) {
        const value = scalarLabel(properties[field]);
        const seen = counts.get(field)!;
        seen.set(value, (seen.get(value) ?? 0) + 1);
      }
    });
    const next = new Map<ClientField, Set<string>>();
    for (const field of CLIENT_FIELDS) {
      const seen = counts.get(field)!;
      const kept = new Set([...(this.admitted.get(field) ?? [])].filter((v) => seen.has(v)).slice(0, this.max));
      const newcomers = [...seen.entries()].filter(([v]) => !kept.has(v)).sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
      for (const [value] of newcomers) {
        if (kept.size >= this.max) break;
        kept.add(value);
      }
      next.set(field, kept);
    }
    this.admitted = next;
  }

  /** A record's label values (vhost, user, then the capped properties), or undefined when it carries no client properties. */
  labelsOf(record: ApiRecord): string[] | undefined {
    const properties = clientPropertiesOf(record);
    if (!properties) return undefined;
    return [scalarLabel(record.vhost), scalarLabel(record.user), ...CLIENT_FIELDS.map((field) => this.capped(field, scalarLabel(properties[field])))];
  }

  private capped(field: ClientField, value: string): string {
    return this.admitted.get(field)?.has(value) ? value : OTHER;
  }
}

/**
 * client_properties when the record has them as a table. With management statistics disabled the
 * connection records carry none (3.10.8, 4.0.5): such records are not counted, never as "".
 */
function clientPropertiesOf(record: ApiRecord): Record<string, unknown> | undefined {
  const properties = getPath(record, ['client_properties']);
  return properties !== null && typeof properties === 'object' && !Array.isArray(properties) ? (properties as Record<string, unknown>) : undefined;
}

/** The aggregation counting connections by client: `admit` must have seen the same records first. */
export function byClientAggregation(cap: ClientValueCap, metric: MetricDef): Aggregation {
  return { group: (r) => cap.labelsOf(r), families: [{ metric }] };
}
