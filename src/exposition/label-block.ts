import { boundedLabelValue } from '../model/label-value.js';
import { escapeLabelValue, renderLabels } from './text-format.js';

/**
 * One object's label set (a queue's vhost and name), rendered once and kept with the object's
 * state for as long as its values stay the same: a poll writes its series from `text` and the
 * values, and the shard scope and naming profiles read the values here, never the rendered text.
 * All of one object's series are written together (SampleSink.addToBlock): its duplicate check
 * is one per object, not one per series.
 */
export class LabelBlock {
  private readonly keptText: string | undefined;
  private servedValues: Map<string, string> | undefined;

  constructor(
    readonly names: readonly string[],
    /** The raw values, in the order of `names`. */
    readonly values: readonly string[],
    /**
     * Whether the rendered labels are kept (the default) or rendered again whenever asked for: for
     * a block of many labels written into one family only, whose lines are kept rendered in chunks
     * (block-chunks.ts) and rendered again only when the chunk changes.
     */
    keepText = true,
  ) {
    this.keptText = keepText ? renderLabels(names, values) : undefined;
  }

  /** `{vhost="a",queue="b"}`: the rendered labels, shared by every series of the object. */
  get text(): string {
    return this.keptText ?? renderLabels(this.names, this.values);
  }

  /** The raw value of `label`; undefined when the block has no such label. */
  valueOf(label: string): string | undefined {
    const at = this.names.indexOf(label);
    return at < 0 ? undefined : this.values[at];
  }

  /** Each label's value as served (bounded and escaped), by name: what a naming profile copies. */
  get served(): ReadonlyMap<string, string> {
    this.servedValues ??= new Map(this.names.map((name, i) => [name, escapeLabelValue(boundedLabelValue(this.values[i] ?? ''))]));
    return this.servedValues;
  }
}
