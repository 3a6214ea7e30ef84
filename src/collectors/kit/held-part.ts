import type { MetricDef } from '../../model/metric-def.js';
import { type LabelValues, orderedLabelValues, renderLabels, type SampleWriter, toSampleValue } from '../../exposition/sample-sink.js';
import { carried } from './carried.js';
import { PollCadence } from './poll-cadence.js';

interface HeldSample {
  readonly def: MetricDef;
  readonly labels: string;
  readonly value: number;
  /** What the sample belongs to (a node), so that a replay can leave out what is gone. */
  readonly owner: string;
}

/**
 * A costly part of a collector's poll (the bindings list, the node memory breakdowns) fetched
 * every `every` polls (poll-cadence.ts); the polls between write what the last fetch wrote,
 * unchanged, and its age says how old it is. A failed poll changes nothing held.
 */
export class HeldPart {
  private samples: HeldSample[] = [];
  private readonly cadence = new PollCadence();
  private recording: HeldSample[] | undefined;

  static in(carryOver: Map<string, unknown>, key: string): HeldPart {
    return carried(carryOver, `held ${key}`, () => new HeldPart());
  }

  /** Whether this poll fetches the part: the first, then every `every` polls. */
  due(every: number): boolean {
    return this.cadence.due(every);
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
    const fetched = this.recording !== undefined;
    if (this.recording) this.samples = this.recording;
    this.recording = undefined;
    this.cadence.commit(now, fetched);
  }

  /** Seconds since the part held was fetched; undefined when nothing is held (no age without data). */
  ageSeconds(now: number): number | undefined {
    return this.samples.length === 0 ? undefined : this.cadence.ageSeconds(now);
  }

  /** The part switched off: nothing held. */
  clear(): void {
    this.samples = [];
    this.cadence.reset();
    this.recording = undefined;
  }
}

export interface HeldPartWriter {
  add(def: MetricDef, labels: LabelValues, raw: unknown, owner?: string): boolean;
}
