import { z } from 'zod';

/** `collectors.queues.families.rules[]`: a named regular expression that puts queues in a family. */
const familyRuleSchema = z.strictObject({
  /** The family's name: the `family` label of its roll-ups. Several rules may share one. */
  name: z.string().min(1, 'a family needs a name'),
  /** A search on the queue's name (anchor it yourself: `^orders\\.`); the first rule that matches wins. */
  match: z.string().superRefine((pattern, ctx) => {
    try {
      new RegExp(pattern, 'u');
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(error as Error).message}` });
    }
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

/** The rules compiled once per poll; `choose` is called for every queue. */
export class FamilyRules {
  private readonly rules: readonly { family: string; match: RegExp; perQueue: boolean }[];

  constructor(private readonly option: FamiliesOption) {
    this.rules = option.rules.map((rule) => ({ family: rule.name, match: new RegExp(rule.match, 'u'), perQueue: rule.per_queue ?? option.per_queue }));
  }

  /** The queue's family by the first rule that matches, else by the suffix rule; undefined: none. */
  choose(name: string): FamilyChoice | undefined {
    for (const rule of this.rules) if (rule.match.test(name)) return { family: rule.family, perQueue: rule.perQueue };
    if (!this.option.strip_suffixes) return undefined;
    const family = strippedFamily(name);
    return family === undefined ? undefined : { family, perQueue: this.option.per_queue };
  }
}
