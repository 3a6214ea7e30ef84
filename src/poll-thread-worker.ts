// The poll thread's entry (src/pipeline/poll-thread/poll-thread.ts starts it): polls what the main thread asks for.
import { parentPort } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ManagementClient } from './broker/management-client.js';
import { Deadline } from './broker/deadline.js';
import { Redactor } from './broker/redactor.js';
import { collectorByName } from './collectors/registry.js';
import type { TargetSetup } from './config/exporter-config.js';
import { targetCredentials } from './config/redacted-config.js';
import { createLogger } from './log.js';
import type { RenderedFamily } from './exposition/text-format.js';
import { ONE_SHARD, TargetShare } from './model/shard-assignment.js';
import { collectHere, sinkProfileOf } from './pipeline/collect-once.js';
import type { ClientCounts, FromThread, ToThread } from './pipeline/poll-thread/protocol.js';
import { errorToWire, familiesToWire } from './pipeline/poll-thread/wire.js';
import { targetClient } from './pipeline/target-client.js';
import { type TargetProfile, targetProfile } from './profiles/profiles.js';

/** What the thread keeps of a target from poll to poll. */
interface TargetHere {
  readonly client: ManagementClient;
  readonly share: TargetShare;
  readonly profile: TargetProfile | undefined;
  readonly log: Logger;
  /** Per collector: its carry-over, and the families of its last successful poll here. */
  readonly carryOver: Map<string, Map<string, unknown>>;
  readonly lastServed: Map<string, readonly RenderedFamily[]>;
  /** The client's counts as last told to the main thread. */
  readonly reported: { requests: number; bytesRead: number };
}

const port = parentPort;
if (!port) throw new Error('src/poll-thread-worker.ts runs only as the poll thread (a worker thread)');

const targets = new Map<string, TargetHere>();
const polls = new Map<number, Deadline>();
const STOPPED = new Error('the poll was stopped on the main thread');

port.on('message', (message: ToThread) => {
  switch (message.kind) {
    case 'poll':
      void poll(message);
      break;
    case 'abort':
      polls.get(message.id)?.abort(STOPPED);
      break;
    case 'forget':
      forget(message.target);
      break;
  }
});

async function poll(job: Extract<ToThread, { kind: 'poll' }>): Promise<void> {
  const { id } = job;
  // The poll's deadline is kept here too: the request in flight is cancelled at it by this thread's
  // own clock, not only once the main thread's abort has crossed over (late on a loaded machine).
  const deadline = new Deadline(Math.max(0, job.remainingMs));
  polls.set(id, deadline);
  const target = targetOf(job.target, job.setup, job.logFormat);
  const { client } = target;
  const config = job.setup.collectors.find((c) => c.name === job.collector);
  let reply: FromThread;
  let moved: ArrayBuffer[] = [];
  try {
    if (!config) throw new Error(`the target's setup has no collector named ${JSON.stringify(job.collector)}`);
    const collector = collectorByName(job.collector);
    target.log.level = job.logLevel;
    let carryOver = target.carryOver.get(collector.name);
    if (!carryOver) {
      carryOver = new Map();
      target.carryOver.set(collector.name, carryOver);
    }
    const result = await collectHere({
      collector,
      client,
      signal: deadline.signal,
      broker: job.broker,
      share: target.share,
      profile: sinkProfileOf(target.profile, collector, job.broker),
      log: target.log.child({ collector: collector.name }),
      options: config.options,
      carryOver,
      limits: { deadlineAt: performance.now() + job.remainingMs, timeoutMs: config.timeoutMs, maxAgeMs: config.maxAgeMs },
      lastServed: target.lastServed.get(collector.name),
    });
    target.lastServed.set(collector.name, result.families);
    const families = familiesToWire(result.families);
    moved = [families.bytes];
    reply = { kind: 'done', id, families, skipped: result.skipped, dropped: [...result.dropped], leftOut: result.leftOut, counts: unreported(target) };
  } catch (error) {
    reply = { kind: 'failed', id, error: errorToWire(error), counts: unreported(target) };
  } finally {
    deadline.end();
    polls.delete(id);
  }
  port?.postMessage(reply, moved);
}

/**
 * What the target's client counted since the last reply told: the target's polls here may overlap
 * (several collectors), so each reply carries the counts since the one before, not since its own start.
 */
function unreported(target: TargetHere): ClientCounts {
  const { client, reported } = target;
  const counts = { requests: client.requests - reported.requests, bytesRead: client.bytesRead - reported.bytesRead };
  reported.requests = client.requests;
  reported.bytesRead = client.bytesRead;
  return counts;
}

/** The target's client and carry-over, made at its first poll here. */
function targetOf(key: string, setup: TargetSetup, logFormat: 'json' | 'logfmt'): TargetHere {
  const known = targets.get(key);
  if (known) return known;
  const name = setup.target.name;
  const redactor = new Redactor(targetCredentials(setup.target));
  const made: TargetHere = {
    client: targetClient(setup.target, redactor),
    share: new TargetShare(setup.sharding ?? ONE_SHARD, name),
    profile: targetProfile(setup.naming, setup.profiles),
    log: createLogger('info', { format: logFormat, redactor: () => redactor }).child({ target: name }),
    carryOver: new Map(),
    lastServed: new Map(),
    reported: { requests: 0, bytesRead: 0 },
  };
  targets.set(key, made);
  return made;
}

function forget(key: string): void {
  const known = targets.get(key);
  targets.delete(key);
  void known?.client.close();
}
