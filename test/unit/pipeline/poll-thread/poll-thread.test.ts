// The main thread's side of the poll thread (PollThread) with a fake worker: what it answers,
// what it counts, and that a worker that failed or ended is never used again.
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { SampleSink } from '../../../../src/exposition/sample-sink.js';
import { defineMetrics } from '../../../../src/model/metric-def.js';
import { familyBody } from '../../../../src/exposition/text-format.js';
import { PollThread } from '../../../../src/pipeline/poll-thread/poll-thread.js';
import type { FromThread, ThreadJob, ToThread } from '../../../../src/pipeline/poll-thread/protocol.js';
import { errorToWire, familiesToWire } from '../../../../src/pipeline/poll-thread/wire.js';

const M = defineMetrics('test', { v: { name: 'rabbitmq_test_thread_value', type: 'gauge', help: 'A value.' } });
const JOB = { target: 't#1', setup: {}, collector: 'queues', broker: {}, remainingMs: 1000, logLevel: 'info' } as unknown as ThreadJob;

/** A worker that records what it is sent and answers as the test says. */
class FakeWorker extends EventEmitter {
  readonly sent: ToThread[] = [];
  terminated = false;
  postMessage(message: ToThread): void {
    this.sent.push(message);
  }
  answer(message: FromThread): void {
    this.emit('message', message);
  }
  unref(): void {}
  async terminate(): Promise<number> {
    this.terminated = true;
    return 0;
  }
}

function thread() {
  const workers: FakeWorker[] = [];
  const pollThread = new PollThread(new URL('file:///nowhere.js'), 'json', () => {
    const worker = new FakeWorker();
    workers.push(worker);
    return worker as unknown as Worker;
  });
  return { pollThread, workers };
}

const pollId = (worker: FakeWorker, n = -1) => (worker.sent.filter((m) => m.kind === 'poll').at(n) as { id: number }).id;
/** The worker's last poll answered: done, nothing in it. */
const answerEmpty = (worker: FakeWorker) => worker.answer({ kind: 'done', id: pollId(worker), families: familiesToWire([]), skipped: 0, dropped: [], leftOut: [], counts: { requests: 0, bytesRead: 0 } });

/** A thread with a fake clock for its watchdog, and one poll in it whose signal has aborted. */
function abortedPoll() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const t = thread();
  const controller = new AbortController();
  const polled = t.pollThread.collect(JOB, controller.signal, () => undefined);
  return { ...t, polled, abort: () => controller.abort() };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('PollThread', () => {
  it('resolves a poll with its families as the thread rendered them, and reports the poll\'s request counts only', async () => {
    const { pollThread, workers } = thread();
    const counts: { requests: number; bytesRead: number }[] = [];
    const polled = pollThread.collect(JOB, new AbortController().signal, (c) => counts.push(c));
    const sink = new SampleSink();
    sink.add(M.v, [], 7);
    workers[0]!.answer({ kind: 'done', id: pollId(workers[0]!), families: familiesToWire(sink.finish()), skipped: 1, dropped: [['duplicate', 2]], leftOut: [], counts: { requests: 3, bytesRead: 100 } });
    const result = await polled;
    expect(result.families.map((f) => familyBody(f).toString('utf8'))).toEqual(['rabbitmq_test_thread_value 7\n']);
    expect(result.skipped).toBe(1);
    expect(result.dropped.get('duplicate')).toBe(2);
    expect(counts).toEqual([{ requests: 3, bytesRead: 100 }]);
    // A second poll in the same worker: its own counts, not the thread's since it started.
    const again = pollThread.collect(JOB, new AbortController().signal, (c) => counts.push(c));
    workers[0]!.answer({ kind: 'failed', id: pollId(workers[0]!), error: errorToWire(new ManagementError('timeout', '/api/queues', 'no answer')), counts: { requests: 1, bytesRead: 0 } });
    await expect(again).rejects.toThrow('no answer');
    expect(counts).toEqual([{ requests: 3, bytesRead: 100 }, { requests: 1, bytesRead: 0 }]);
    expect(workers).toHaveLength(1);
  });

  it('sends an abort when the poll\'s signal aborts', async () => {
    const { pollThread, workers } = thread();
    const controller = new AbortController();
    const polled = pollThread.collect(JOB, controller.signal, () => undefined);
    controller.abort();
    expect(workers[0]!.sent.map((m) => m.kind)).toEqual(['poll', 'abort']);
    workers[0]!.answer({ kind: 'failed', id: pollId(workers[0]!), error: errorToWire(new Error('aborted')), counts: { requests: 0, bytesRead: 0 } });
    await expect(polled).rejects.toThrow('aborted');
  });

  it.each([
    ['fails', (w: FakeWorker) => w.emit('error', new Error('out of memory')), 'the poll thread failed: out of memory'],
    ['ends', (w: FakeWorker) => w.emit('exit', 1), 'the poll thread ended (exit code 1)'],
  ])('a worker that %s fails the polls in it, and the next poll starts a new one', async (_what, end, message) => {
    const { pollThread, workers } = thread();
    const first = pollThread.collect(JOB, new AbortController().signal, () => undefined);
    const second = pollThread.collect({ ...JOB, target: 't#2' }, new AbortController().signal, () => undefined);
    end(workers[0]!);
    await expect(first).rejects.toThrow(message);
    await expect(second).rejects.toThrow(message);
    const next = pollThread.collect(JOB, new AbortController().signal, () => undefined);
    expect(workers).toHaveLength(2);
    expect(workers[1]!.sent.map((m) => m.kind)).toEqual(['poll']);
    // The dead worker is sent nothing more, not even the new poll's messages.
    expect(workers[0]!.sent.map((m) => m.kind)).toEqual(['poll', 'poll']);
    answerEmpty(workers[1]!);
    await expect(next).resolves.toMatchObject({ skipped: 0 });
  });

  it('a thread stuck in a poll past its deadline and the grace is replaced: every poll in it fails, the next starts a new thread', async () => {
    const { pollThread, workers, polled: stuck, abort } = abortedPoll();
    const otherTarget = pollThread.collect({ ...JOB, target: 't#2', collector: 'connections' }, new AbortController().signal, () => undefined);
    const rejected = [stuck, otherTarget].map((p) => p.then(() => 'resolved', (e: Error) => e.message));
    abort();
    vi.advanceTimersByTime(1_999);
    expect(workers[0]!.terminated).toBe(false);
    vi.advanceTimersByTime(1);
    expect(workers[0]!.terminated).toBe(true);
    expect(await Promise.all(rejected)).toEqual(Array(2).fill('the poll thread was stuck in a poll of queues past its deadline and was replaced'));
    // The ended thread's exit, coming later, fails nothing of the new thread's.
    const next = pollThread.collect(JOB, new AbortController().signal, () => undefined);
    expect(workers).toHaveLength(2);
    workers[0]!.emit('exit', 1);
    answerEmpty(workers[1]!);
    await expect(next).resolves.toMatchObject({ skipped: 0 });
  });

  it('a poll that answers after its abort, within the grace, leaves the thread in place', async () => {
    const { workers, polled, abort } = abortedPoll();
    abort();
    vi.advanceTimersByTime(500);
    workers[0]!.answer({ kind: 'failed', id: pollId(workers[0]!), error: errorToWire(new Error('aborted')), counts: { requests: 0, bytesRead: 0 } });
    await expect(polled).rejects.toThrow('aborted');
    vi.advanceTimersByTime(5_000);
    expect(workers[0]!.terminated).toBe(false);
  });

  it('stop terminates the worker; forget tells it which target to let go', async () => {
    const { pollThread, workers } = thread();
    void pollThread.collect(JOB, new AbortController().signal, () => undefined).catch(() => undefined);
    pollThread.forget('t#1');
    expect(workers[0]!.sent.at(-1)).toEqual({ kind: 'forget', target: 't#1' });
    await pollThread.stop();
    expect(workers[0]!.terminated).toBe(true);
  });
});
