import { z } from 'zod';
import { patternProblem } from '../kit/safe-pattern.js';

/** `collectors.queues.families.rules[]`: a named regular expression that puts queues in a family. */
const familyRuleSchema = z.strictObject({
  /** The family's name: the `family` label of its roll-ups. Several rules may share one. */
  name: z.string().min(1, 'a family needs a name'),
  /** A search on the queue's name (anchor it yourself: `^orders\\.`); the first rule that matches wins. */
  match: z.string().superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(pattern)}: ${problem}` });
  }),
  /** Serve its queues' per-queue series too (default: the families' per_queue). */
  per_queue: z.boolean().optional(),
});

/**
 * `collectors.queues.families` (docs/queues.md, "Families"): absent, no roll-ups. Rules first;
 * a queue no rule matches falls to the suffix rule when `strip_suffixes` is on.
 */
export const familiesOptionSchema = z
  .strictObject({
    rules: z.array(familyRuleSchema).default([]),
    /** A queue no rule matches: its family is its name without numeric or UUID suffixes (orders.42 → orders). */
    strip_suffixes: z.boolean().default(false),
    /**
     * The family of a queue neither a rule nor the suffix rule puts in one (unset: such a queue is
     * in no family and keeps its per-queue series).
     */
    unmatched: z.string().min(1, 'the family of unmatched queues needs a name').optional(),
    /** Serve the per-queue series of queues in a family (rules may say otherwise for theirs). */
    per_queue: z.boolean().default(true),
    /** Serve rabbitmq_vhost_queues_by_depth. */
    depth_buckets: z.boolean().default(true),
  })
  .optional();

export type FamiliesOption = NonNullable<z.infer<typeof familiesOptionSchema>>;

/** A queue's family and whether its per-queue series are served. */
export interface FamilyChoice {
  readonly family: string;
  readonly perQueue: boolean;
}

/** A trailing UUID, or digits, with the separator before it. */
const SUFFIX = /[._:-]?(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)$/i;
/** Server-named queues (amq.gen-<random>) are one family. */
const SERVER_NAMED = /^amq\.gen-/;

/** The family of a queue name by the suffix rule; undefined when the name has no suffix to strip. */
export function strippedFamily(name: string): string | undefined {
  if (SERVER_NAMED.test(name)) return 'amq.gen';
  let stem = name;
  for (let next = stem.replace(SUFFIX, ''); next !== stem; next = stem.replace(SUFFIX, '')) stem = next;
  return stem !== name && stem !== '' ? stem : undefined;
}

/**
 * True when the families leave no queue its per-queue series: every queue is in a family
 * (`unmatched` catches the rest) and none has `per_queue` on. The collector then asks only for
 * what the roll-ups and aggregates read (plan.ts).
 */
export function rollsUpEveryQueue(option: FamiliesOption | undefined): boolean {
  return option !== undefined && option.unmatched !== undefined && !option.per_queue && option.rules.every((rule) => rule.per_queue !== true);
}

/**
 * The rules compiled once, kept from poll to poll; `choose` is called for every queue of every
 * poll, so a name's family is remembered (its entry made once, stamped with each poll that lists
 * it): `commit` drops the names the poll did not list.
 */
export class FamilyRules {
  private readonly rules: readonly { choice: FamilyChoice; match: RegExp }[];
  private readonly unmatched: FamilyChoice | undefined;
  private readonly known = new Map<string, { readonly choice: FamilyChoice | undefined; seen: number }>();
  /** The suffix rule's choices, one per family (not one per queue), of the names known. */
  private stripped = new Map<string, FamilyChoice>();
  private poll = 0;

  constructor(private readonly option: FamiliesOption) {
    this.rules = option.rules.map((rule) => ({ choice: { family: rule.name, perQueue: rule.per_queue ?? option.per_queue }, match: new RegExp(rule.match, 'u') }));
    this.unmatched = option.unmatched === undefined ? undefined : { family: option.unmatched, perQueue: option.per_queue };
  }

  /** Starts a poll. */
  begin(): void {
    this.poll++;
  }

  /** The queue's family by the first rule that matches, else by the suffix rule, else `unmatched`; undefined: none. */
  choose(name: string): FamilyChoice | undefined {
    const entry = this.known.get(name);
    if (entry) {
      entry.seen = this.poll;
      return entry.choice;
    }
    const choice = this.match(name);
    this.known.set(name, { choice, seen: this.poll });
    return choice;
  }

  /** Ends a successful poll: the names it did not list are forgotten. */
  commit(): void {
    const stripped = new Map<string, FamilyChoice>();
    for (const [name, entry] of this.known) {
      if (entry.seen !== this.poll) this.known.delete(name);
      else if (entry.choice && this.stripped.get(entry.choice.family) === entry.choice) stripped.set(entry.choice.family, entry.choice);
    }
    this.stripped = stripped;
  }

  private match(name: string): FamilyChoice | undefined {
    for (const rule of this.rules) if (rule.match.test(name)) return rule.choice;
    const family = this.option.strip_suffixes ? strippedFamily(name) : undefined;
    if (family === undefined) return this.unmatched;
    let choice = this.stripped.get(family);
    if (!choice) {
      choice = { family, perQueue: this.option.per_queue };
      this.stripped.set(family, choice);
    }
    return choice;
  }
}
