import type { MetricDef } from '../../model/metric-def.js';
import { type LabelValues, orderedLabelValues, type SampleWriter, toSampleValue } from '../../model/sample-sink.js';
import { renderLabels } from '../../model/text-format.js';
import { carried } from './carried.js';

interface HeldSample {
  readonly def: MetricDef;
  readonly labels: string;
  readonly value: number;
  /** What the sample belongs to (a node), so that a replay can leave out what is gone. */
  readonly owner: string;
}

/**
 * A costly part of a collector's poll (the bindings list, the node memory breakdowns) fetched
 * every `every` polls; the polls between write what the last fetch wrote, unchanged, and its age
 * says how old it is. A failed poll changes nothing held.
 */
export class HeldPart {
  private samples: HeldSample[] = [];
  /** Successful polls since (and including) the one that fetched the part. */
  private polls: number | undefined;
  private fetchedAt = 0;
  private recording: HeldSample[] | undefined;

  static in(carryOver: Map<string, unknown>, key: string): HeldPart {
    return carried(carryOver, `held ${key}`, () => new HeldPart());
  }

  /** Whether this poll fetches the part: the first, then every `every` polls. */
  due(every: number): boolean {
    return this.polls === undefined || this.polls >= every;
  }

  /** A writer for a poll that fetches the part: what it writes is passed on and recorded. */
  recorder(sink: SampleWriter): HeldPartWriter {
    const recording: HeldSample[] = [];
    this.recording = recording;
    return {
      add(def, labels, raw, owner = '') {
        const rendered = renderLabels(def.labels, orderedLabelValues(def, labels));
        if (!sink.addRendered(def, rendered, raw)) return false;
        recording.push({ def, labels: rendered, value: toSampleValue(raw)!, owner });
        return true;
      },
    };
  }

  /** Writes what the last fetch wrote; `keeps`: whether an owner is still there (default all). */
  replay(sink: SampleWriter, keeps: (owner: string) => boolean = () => true): void {
    for (const s of this.samples) if (keeps(s.owner)) sink.addRendered(s.def, s.labels, s.value);
  }

  /** Ends a successful poll: keeps what a fetching poll recorded. */
  commit(now: number): void {
    if (this.recording) {
      this.samples = this.recording;
      this.recording = undefined;
      this.fetchedAt = now;
      this.polls = 1;
    } else if (this.polls !== undefined) {
      this.polls++;
    }
  }

  /** Seconds since the part held was fetched; undefined when nothing is held (no age without data). */
  ageSeconds(now: number): number | undefined {
    return this.polls === undefined || this.samples.length === 0 ? undefined : Math.max(0, now - this.fetchedAt) / 1000;
  }

  /** The part switched off: nothing held. */
  clear(): void {
    this.samples = [];
    this.polls = undefined;
    this.recording = undefined;
  }
}

export interface HeldPartWriter {
  add(def: MetricDef, labels: LabelValues, raw: unknown, owner?: string): boolean;
}
