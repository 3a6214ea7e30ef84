import type { MetricDef } from '../model/metric-def.js';
import type { NamingProfile, ProfiledFamily } from './naming-profile.js';
import { boundedLabelValue } from '../model/label-value.js';
import { escapeLabelValue } from './text-format.js';

/**
 * A naming profile other than the native one, with what its labels need of this poll's broker:
 * the cluster's name and the node that answered /api/overview (both from BrokerInfo).
 */
export interface SinkProfile {
  readonly names: NamingProfile;
  readonly clusterName: string;
  readonly node: string;
  /** `self` is "lb" on every series: the node answering changes from request to request (behind a load balancer). */
  readonly loadBalanced?: boolean;
  /** Families left out although the profile serves them (its settings exclude them). */
  readonly excluded?: ReadonlySet<MetricDef>;
}

const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Turns a native rendered label set into a profile family's, in that family's label order. */
export class Relabeling {
  private readonly cluster: string;
  private readonly node: string;
  private readonly loadBalanced: boolean;
  /** A record's families share one rendered label set: it is parsed once. */
  private lastRendered: string | undefined;
  private lastValues: ReadonlyMap<string, string> = new Map<string, string>();
  /** The last label set served, for the families of that record with the same labels and sources. */
  private lastKey: string | undefined;
  private lastRecord: object | undefined;
  private lastServed = '';

  constructor(profile: SinkProfile) {
    this.cluster = escapeLabelValue(boundedLabelValue(profile.clusterName));
    this.node = escapeLabelValue(boundedLabelValue(profile.node));
    this.loadBalanced = profile.loadBalanced === true;
  }

  /**
   * The label set as the profile's family serves it; `record`: where its field labels are read.
   * `served`: the native labels' values as served (a LabelBlock's), else read from `renderedLabels`.
   */
  labelsOf(family: ProfiledFamily, renderedLabels: string, record: object | undefined, served?: ReadonlyMap<string, string>): string {
    if (family.labels.length === 0) return '';
    // A record's families mostly share one served label set: built once for all of them.
    if (family.labelsKey === this.lastKey && renderedLabels === this.lastRendered && record === this.lastRecord) return this.lastServed;
    if (family.readsRecord && record === undefined) {
      throw new Error(`${family.def.name}: its labels are read from the broker's record, and none was passed with the sample`);
    }
    const values = this.valuesOf(renderedLabels, served);
    const parts = family.labels.map((source, i) => {
      const name = family.def.labels[i];
      if (source.from === 'cluster') return `${name}="${this.cluster}"`;
      if (source.from === 'self') {
        if (this.loadBalanced) return `${name}="lb"`;
        const node = source.path ? escapedField(record, source.path) : values.get('node');
        return `${name}="${node === this.node ? '1' : '0'}"`;
      }
      if (source.from === 'field') return `${name}="${escapedField(record, source.path)}"`;
      if (source.from === 'derived') return `${name}="${escapeLabelValue(boundedLabelValue(source.label.value((record ?? {}) as Record<string, unknown>)))}"`;
      if (source.from === 'node') return `${name}="${this.node}"`;
      return `${name}="${values.get(source.name) ?? ''}"`;
    });
    this.lastKey = family.labelsKey;
    this.lastRecord = record;
    this.lastServed = `{${parts.join(',')}}`;
    return this.lastServed;
  }

  /** The (escaped) value of one label of a native rendered label set; '' when it has none. */
  valueOf(renderedLabels: string, label: string, served?: ReadonlyMap<string, string>): string {
    return this.valuesOf(renderedLabels, served).get(label) ?? '';
  }

  private valuesOf(renderedLabels: string, served: ReadonlyMap<string, string> | undefined): ReadonlyMap<string, string> {
    if (renderedLabels !== this.lastRendered) {
      this.lastRendered = renderedLabels;
      this.lastValues = served ?? new Map([...renderedLabels.matchAll(LABEL_PAIR)].map((m) => [m[1]!, m[2]!]));
      this.lastKey = undefined;
    }
    return this.lastValues;
  }
}

/** A record's field as a label value, escaped: text, numbers and booleans as they print (`true`), else ''. */
function escapedField(record: object | undefined, path: readonly string[]): string {
  let value: unknown = record;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  const text = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
  return escapeLabelValue(boundedLabelValue(text));
}

/**
 * A value times a profile's factor. The row's value may itself be a field divided (ms → s: 22990 ms
 * is 22.99 s), and 22.99 × 1000 is 22990.000000000004: rounded to 15 significant digits, the most a
 * double always holds, the field's own value comes back.
 */
export function scaledValue(value: number, scale: number): number {
  const product = value * scale;
  return Number.isFinite(product) ? Number(product.toPrecision(15)) : product;
}

