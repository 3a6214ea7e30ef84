// Every queue rolled up with per-queue series off: the queue list asks only for the columns the
// roll-ups and aggregates read, and serves the same roll-ups as the wide answer; the family of a
// name is remembered from poll to poll and forgotten once the name is no longer listed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FamilyRules } from '../../../../src/collectors/queues/family-rules.js';
import { queueOptionsSchema } from '../../../../src/collectors/queues/options.js';
import { planQueueQuery } from '../../../../src/collectors/queues/plan.js';
import { BROKER_3_10_8, type RunResult } from '../../../support/run-collector.js';
import { BROKER_3_13, CONSUMERS, FULL, listRoute, run, TOTALS, VH1, type Q } from './queue-fixtures.js';

/** Every queue in a family with per_queue off: rules, the suffix rule, and `unmatched` for the rest. */
const ROLLED_UP = { rules: [{ name: 'low', match: '^q[1-3]\\d*$' }], strip_suffixes: true, per_queue: false, unmatched: 'other' };
/** The same families, but a rule (matching no queue here) keeps its queues' series: the wide list. */
const WIDE = { ...ROLLED_UP, rules: [...ROLLED_UP.rules, { name: 'kept', match: '^never$', per_queue: true }] };

const planOf = (options: Record<string, unknown>, statsDue = true, broker = BROKER_3_10_8) =>
  planQueueQuery({ broker, options: queueOptionsSchema.parse(options), log: undefined as never, carryOver: new Map() }, statsDue);
const columnsOf = (options: Record<string, unknown>, statsDue = true) => String(planOf(options, statsDue).query.columns).split(',');

describe('the columns asked for when every queue is rolled up', () => {
  it('narrows only when no queue can have per-queue series and nothing else reads every queue', () => {
    expect(planOf({ families: ROLLED_UP }).rollUpOnly).toBe(true);
    expect(planOf({ families: { ...ROLLED_UP, unmatched: undefined } }).rollUpOnly).toBe(false);
    expect(planOf({ families: { ...ROLLED_UP, per_queue: true } }).rollUpOnly).toBe(false);
    expect(planOf({ families: WIDE }).rollUpOnly).toBe(false);
    expect(planOf({ families: ROLLED_UP, signals: true }).rollUpOnly).toBe(false);
    expect(planOf({ families: ROLLED_UP, quorum_placement: true }).rollUpOnly).toBe(false);
    expect(planOf({}).rollUpOnly).toBe(false);
  });

  it('asks for identity, counts, the aggregates\' and the families\' fields, and nothing per queue', () => {
    expect(columnsOf({ families: ROLLED_UP }).sort()).toEqual(
      ['name', 'vhost', 'type', 'state', 'node', 'leader', 'messages', 'messages_ready', 'messages_unacknowledged', 'message_bytes', 'memory', 'consumers', 'message_stats.publish', 'message_stats.deliver_get', 'message_stats.ack', 'head_message_timestamp'].sort(),
    );
    // node and leader for the per-node counts (rabbitmq_vhost_queues_per_node), while info is on.
    expect(columnsOf({ families: ROLLED_UP }, false).sort()).toEqual(['name', 'vhost', 'type', 'state', 'node', 'leader', 'messages', 'messages_ready', 'messages_unacknowledged'].sort());
    expect(columnsOf({ families: ROLLED_UP, info: false }, false).sort()).toEqual(['name', 'vhost', 'type', 'state', 'messages', 'messages_ready', 'messages_unacknowledged'].sort());
    const wide = columnsOf({ families: WIDE });
    for (const field of ['arguments', 'message_stats.redeliver', 'messages_ram', 'idle_since', 'policy']) expect(wide).toContain(field);
    expect(planOf({ families: ROLLED_UP, mode: 'detailed' }, true, BROKER_3_13).path).toBe('/api/queues');
    expect(planOf({ families: ROLLED_UP, mode: 'full' }).query.columns).toBeDefined();
  });
});

/** The recorded queues of two vhosts, some renamed so each way into a family is taken; `polls` changes counts and counters. */
function brokerQueues(poll: number): Q[] {
  const list = structuredClone([...FULL, ...VH1]) as Q[];
  for (const [i, q] of list.entries()) {
    if (i % 17 === 0) q.name = `plain-${String.fromCharCode(97 + (i % 26))}${i % 3 === 0 ? '' : 'x'}`;
    const stats = q.message_stats as Record<string, number> | undefined;
    if (stats && i % 3 === poll % 3) for (const key of ['publish', 'deliver_get', 'ack']) if (typeof stats[key] === 'number') stats[key] += 10 * poll;
    if (i % 5 === poll % 5) q.messages = (q.messages as number) + poll;
  }
  // A queue gone in the later polls: its counts stay in its family's counters.
  return poll > 1 ? list.slice(1) : list;
}

/** The counts-only list of the same queues: the fields 3.10.8's has (its recorded answer's). */
function totalsOf(poll: number): Q[] {
  const fields = Object.keys(TOTALS[0]!);
  return brokerQueues(poll).map((q) => Object.fromEntries(fields.filter((f) => f in q).map((f) => [f, q[f]])));
}

const ROLL_UP_SERIES = /^rabbitmq_(queue_family_|vhost_queues_by_depth|queue_series_rolled_up|vhost_queue)/;
const rollUps = (r: RunResult) => r.familyNames.filter((name) => ROLL_UP_SERIES.test(name)).map((name) => [name, r.family(name).map((s) => [s.labels, s.value])]);

async function polls(families: Record<string, unknown>) {
  const memory = new Map<string, unknown>();
  const out: RunResult[] = [];
  for (let poll = 0; poll < 4; poll++) {
    const queues = (query: Record<string, string>) => listRoute(query.disable_stats === 'true' ? totalsOf(poll) : brokerQueues(poll))(query);
    const { result } = run({ '/api/queues': queues, '/api/consumers': CONSUMERS }, { per_vhost: false, stats_every: 2, families }, { memory });
    out.push(await result);
  }
  return out;
}

describe('roll-ups from the narrow answer', () => {
  it('equal those from the wide answer, poll after poll, statistics polls and counts-only polls', async () => {
    const narrow = await polls(ROLLED_UP);
    const wide = await polls(WIDE);
    expect(narrow[0]!.requests.find((c) => c.path === '/api/queues')!.query!.columns).not.toContain('arguments');
    expect(wide[0]!.requests.find((c) => c.path === '/api/queues')!.query!.columns).toContain('arguments');
    for (const [i, r] of narrow.entries()) {
      expect(rollUps(r).length).toBeGreaterThan(5);
      expect(rollUps(r)).toEqual(rollUps(wide[i]!));
      // Nothing per queue is served.
      expect(r.familyNames.filter((name) => name.startsWith('rabbitmq_queue_') && !ROLL_UP_SERIES.test(name) && r.family(name).some((s) => s.labels.queue !== undefined))).toEqual([]);
    }
    expect(narrow[0]!.value('rabbitmq_queue_family_queues', { vhost: 'vh0', family: 'other' })).toBeGreaterThan(0);
  });
});

describe('the family of a name is remembered', () => {
  afterEach(() => vi.restoreAllMocks());

  it('runs the rules once per name, and again for a name listed anew after it was dropped', () => {
    const rules = new FamilyRules(queueOptionsSchema.parse({ families: { rules: [{ name: 'a', match: '^a' }, { name: 'b', match: '^b' }], per_queue: false } }).families!);
    const tests = vi.spyOn(RegExp.prototype, 'test');
    const poll = (names: string[], ends = true) => {
      tests.mockClear();
      rules.begin();
      const chosen = names.map((name) => rules.choose(name)?.family);
      if (ends) rules.commit();
      return { chosen, tests: tests.mock.calls.length };
    };
    expect(poll(['a1', 'b1', 'c1'])).toEqual({ chosen: ['a', 'b', undefined], tests: 5 });
    expect(poll(['a1', 'b1', 'c1', 'a1'])).toEqual({ chosen: ['a', 'b', undefined, 'a'], tests: 0 });
    // b1 is not listed: dropped at the end of the poll.
    expect(poll(['a1'])).toEqual({ chosen: ['a'], tests: 0 });
    expect(poll(['b1'])).toEqual({ chosen: ['b'], tests: 2 });
    // A poll that fails (no commit) drops nothing; the next one that ends drops what it did not list.
    expect(poll(['c1'], false)).toEqual({ chosen: [undefined], tests: 2 });
    expect(poll(['b1'])).toEqual({ chosen: ['b'], tests: 0 });
    expect(poll(['c1', 'a1'])).toEqual({ chosen: [undefined, 'a'], tests: 3 });
  });

  it('makes one choice per family by the suffix rule, not one per queue', () => {
    const rules = new FamilyRules(queueOptionsSchema.parse({ families: { strip_suffixes: true, per_queue: false } }).families!);
    rules.begin();
    const [a, b] = [rules.choose('orders.1'), rules.choose('orders.2')];
    expect(a).toEqual({ family: 'orders', perQueue: false });
    expect(b).toBe(a);
    rules.commit();
    rules.begin();
    expect(rules.choose('orders.3')).toBe(a);
  });
});
