import { queueMetrics as M } from './metrics.js';
import { apiPath } from '../../broker/api-path.js';
import { expectList } from '../../broker/expect-list.js';
import type { SampleSink } from '../../exposition/sample-sink.js';
import { carried } from '../kit/carried.js';
import type { BrokerApi } from '../kit/collector.js';
import { PollCadence } from '../kit/poll-cadence.js';
import type { QueueRecord } from './options.js';
import { objectOf } from './series.js';

/** Most exchanges whose bindings one poll reads (dead-letter exchanges and those they bind to). */
const MAX_EXCHANGES = 100;
/** Exchange-to-exchange hops followed from a dead-letter exchange. */
const MAX_HOPS = 3;

const key = (...parts: string[]) => parts.join('\u0000');

/** A queue's dead-letter settings from its effective policy. */
interface DeadLetterSetting {
  exchange?: unknown;
  routingKey?: unknown;
}

/**
 * Dead-letter queues found, not named: each queue's dead-letter exchange (its argument wins over
 * its effective policy, as in RabbitMQ; operator policies cannot set one) and the queues that
 * exchange's bindings lead to. The bindings are read every `every` polls, and only of exchanges
 * that are some queue's dead-letter exchange: a broker without one costs no request.
 */
export class DeadLetterTargets {
  private readonly cadence = new PollCadence();
  /** vhost\0exchange → the dead-letter routing keys queues give it ('' exchange: the queue named). */
  private sources = new Map<string, Set<string | undefined>>();
  private queues = new Set<string>();
  /** vhost\0queue\0exchange of each target found at the last read. */
  private targets = new Set<string>();
  private readKeys = '';
  /**
   * vhost\0queue → its effective policy's dead-letter settings, as last seen: the counts-only list
   * of 3.10 to 4.2.4 has no effective_policy_definition, so the statistics poll's stand in.
   */
  private policies = new Map<string, DeadLetterSetting>();
  private seenPolicies = new Map<string, DeadLetterSetting>();

  static in(carryOver: Map<string, unknown>): DeadLetterTargets {
    const found = carried(carryOver, 'dead-letters', () => new DeadLetterTargets());
    found.sources = new Map();
    found.queues = new Set();
    found.seenPolicies = new Map();
    return found;
  }

  /** One queue of this poll: notes its dead-letter exchange, if it has one. */
  note(queue: QueueRecord): void {
    const vhost = queue.vhost as string;
    const id = key(vhost, queue.name as string);
    this.queues.add(id);
    const args = objectOf(queue.arguments);
    let policy = this.policies.get(id) ?? {};
    if (queue.effective_policy_definition !== undefined) {
      const definition = objectOf(queue.effective_policy_definition);
      policy = { exchange: definition['dead-letter-exchange'], routingKey: definition['dead-letter-routing-key'] };
    }
    this.seenPolicies.set(id, policy);
    const exchange = args['x-dead-letter-exchange'] ?? policy.exchange;
    if (typeof exchange !== 'string') return;
    const routingKey = args['x-dead-letter-routing-key'] ?? policy.routingKey;
    const source = key(vhost, exchange);
    let keys = this.sources.get(source);
    if (!keys) {
      keys = new Set();
      this.sources.set(source, keys);
    }
    keys.add(typeof routingKey === 'string' ? routingKey : undefined);
  }

  /**
   * Reads the bindings when due (the first poll, every `every` polls after, or when the set of
   * dead-letter exchanges changed); a failed read keeps what the last one found.
   */
  async refresh(api: BrokerApi, every: number, now: number): Promise<void> {
    this.policies = this.seenPolicies;
    const readKeys = [...this.sources.keys()].sort().join('\u0001');
    if (!this.cadence.due(Math.max(1, every)) && readKeys === this.readKeys) {
      this.cadence.commit(now, false);
      return;
    }
    const targets = new Set<string>();
    const pending: { vhost: string; exchange: string; origin: string; hops: number }[] = [];
    for (const [source, routingKeys] of this.sources) {
      const [vhost, exchange] = source.split('\u0000') as [string, string];
      if (exchange === '') {
        // The default exchange delivers to the queue its routing key names.
        for (const routingKey of routingKeys) if (routingKey !== undefined && this.queues.has(key(vhost, routingKey))) targets.add(key(vhost, routingKey, ''));
      } else pending.push({ vhost, exchange, origin: exchange, hops: 0 });
    }
    const visited = new Set<string>();
    while (pending.length > 0 && visited.size < MAX_EXCHANGES) {
      const batch = pending.splice(0, MAX_EXCHANGES - visited.size).filter((e) => !visited.has(key(e.vhost, e.exchange, e.origin)));
      for (const e of batch) visited.add(key(e.vhost, e.exchange, e.origin));
      const answers = await Promise.all(batch.map((e) => api.getOptional<unknown>(apiPath('exchanges', e.vhost, e.exchange, 'bindings', 'source'))));
      batch.forEach((e, i) => {
        const answer = answers[i];
        if (answer === undefined) return;
        for (const binding of expectList<Record<string, unknown>>(answer, 'exchange bindings')) {
          const destination = binding.destination;
          if (typeof destination !== 'string') continue;
          if (binding.destination_type === 'queue') targets.add(key(e.vhost, destination, e.origin));
          else if (binding.destination_type === 'exchange' && e.hops < MAX_HOPS) pending.push({ vhost: e.vhost, exchange: destination, origin: e.origin, hops: e.hops + 1 });
        }
      });
    }
    this.targets = targets;
    this.readKeys = readKeys;
    this.cadence.commit(now, true);
  }

  /** rabbitmq_queue_dead_letter_target_info of the targets found, for queues that exist this poll. */
  emit(sink: SampleSink): void {
    for (const target of this.targets) {
      const [vhost, queue, exchange] = target.split('\u0000') as [string, string, string];
      if (this.queues.has(key(vhost, queue))) sink.add(M.deadLetterTarget, { vhost, queue, dead_letter_exchange: exchange }, 1);
    }
  }
}
