// Issue 29: the queue collector may poll in the poll thread (collectors.queues.poll_thread), off the
// thread that serves scrapes. The built exporter (the thread runs the built worker module) against
// the simulated management API: the same series as a poll on the main thread, its failures and
// deadlines reported as they are there, and the thread's requests counted among the exporter's own.
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../../harness/eventually.js';
import { startExporter, type ExporterProcess } from '../../harness/exporter-process.js';
import { startSimulator, type Simulator } from '../../support/management-simulator.js';

let sim: Simulator | undefined;
let exporters: ExporterProcess[] = [];
afterEach(async () => {
  await Promise.all(exporters.map((e) => e.stop()));
  exporters = [];
  await sim?.close();
});

const DISABLED = ['nodes', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers', 'streams', 'health_checks', 'limits', 'federation', 'shovels', 'feature_flags', 'inventory'];

function config(s: Simulator, queues: readonly string[]): string {
  return [
    'poll:',
    '  interval: 1s',
    '  jitter: 0',
    'target:',
    `  url: ${s.url}`,
    `  username: ${s.username}`,
    `  password: ${s.password}`,
    'collectors:',
    '  queues:',
    '    interval: 1s',
    ...queues.map((line) => `    ${line}`),
    ...DISABLED.map((c) => `  ${c}:\n    enabled: false`),
    '',
  ].join('\n');
}

async function start(s: Simulator, queues: readonly string[]): Promise<ExporterProcess> {
  const exporter = await startExporter({ configYaml: config(s, queues) });
  exporters.push(exporter);
  return exporter;
}

const queuesSucceeded = (exporter: ExporterProcess) => async () => ((await exporter.value('rabbitmq_exporter_collector_success{collector="queues"}')) === 1 ? true : undefined);

/** The per-queue and per-vhost lines of the queue collector, in the order served. */
async function queueLines(exporter: ExporterProcess): Promise<string[]> {
  const { text } = await exporter.metrics();
  return text.split('\n').filter((line) => line.startsWith('rabbitmq_queue'));
}

it('serves the same queue series from the poll thread as from the main thread', async () => {
  sim = await startSimulator({ queues: 600, vhosts: 3, consumers: 40 });
  // Every poll reads the statistics: the counts-only polls between take consumers from another list.
  const [onMain, inThread] = [await start(sim, ['stats_every: 1', 'poll_thread: false']), await start(sim, ['stats_every: 1', 'poll_thread: true'])];
  await eventually(queuesSucceeded(onMain), 20_000, 'the main thread poll to succeed');
  await eventually(queuesSucceeded(inThread), 20_000, 'the poll thread poll to succeed');
  const [main, thread] = [await queueLines(onMain), await queueLines(inThread)];
  expect(main.length).toBeGreaterThan(600 * 10);
  const [mainSet, threadSet] = [new Set(main), new Set(thread)];
  const onlyMain = main.filter((l) => !threadSet.has(l));
  const onlyThread = thread.filter((l) => !mainSet.has(l));
  expect({ onlyMain, onlyThread }).toEqual({ onlyMain: [], onlyThread: [] });
  expect(thread).toEqual(main);
  // The thread's requests are counted with the target's own: without them its answers would be the
  // overview's alone, under 1% of the bytes of a poller of the lists as well. Per request, since the
  // two have not polled equally often (on a loaded machine one polled eleven times the other's bytes).
  const bytesPerRequest = async (exporter: ExporterProcess) => {
    const text = (await exporter.metrics()).text;
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return value('rabbitmq_exporter_management_response_bytes_total') / value('rabbitmq_exporter_management_requests_total');
  };
  const [mainAverage, threadAverage] = [await bytesPerRequest(onMain), await bytesPerRequest(inThread)];
  expect(mainAverage).toBeGreaterThan(0);
  expect(threadAverage).toBeGreaterThan(mainAverage / 10);
}, 60_000);

it('reports a refused answer in the poll thread as the main thread does, and polls again once it is answered', async () => {
  sim = await startSimulator({ queues: 50, vhosts: 2 });
  const exporter = await start(sim, ['poll_thread: true']);
  await eventually(queuesSucceeded(exporter), 20_000, 'the first poll to succeed');
  sim.fault(/^\/api\/queues/, { kind: 'status', status: 503 });
  await eventually(async () => ((await exporter.value('rabbitmq_exporter_collector_success{collector="queues"}')) === 0 ? true : undefined), 20_000, 'the poll to fail');
  const failure = exporter
    .logs()
    .split('\n')
    .find((line) => line.includes('"collector":"queues"') && line.includes('"reason":"http_503"'));
  expect(failure, exporter.logs()).toBeDefined();
  expect(failure).toContain('/api/queues');
  sim.fault(/^\/api\/queues/, undefined);
  await eventually(queuesSucceeded(exporter), 30_000, 'the poll to succeed again');
}, 60_000);

it('ends a poll in the thread at its deadline: the request is cancelled there, not left to hang', async () => {
  sim = await startSimulator({ queues: 50, vhosts: 2 });
  const exporter = await start(sim, ['poll_thread: true', 'timeout: 2s']);
  await eventually(queuesSucceeded(exporter), 20_000, 'the first poll to succeed');
  // The list of vhosts is asked under the poll's own deadline (each vhost's queues under a shorter one of their own).
  sim.fault(/^\/api\/vhosts/, { kind: 'stall' });
  await eventually(
    async () => (exporter.logs().includes("the poll's deadline of 2000 ms passed") ? true : undefined),
    20_000,
    'the poll to fail at its deadline',
  ).catch((error) => {
    throw new Error(`${error}\n${exporter.logs().split('\n').filter((l) => l.includes('queues')).slice(-5).join('\n')}`);
  });
  // The thread's collect ended with the cancelled request's own error: the main thread did not
  // have to give up on a collect that ignored its deadline.
  expect(exporter.logs()).not.toContain('the collector did not stop');
  sim.fault(/^\/api\/vhosts/, undefined);
  await eventually(queuesSucceeded(exporter), 30_000, 'the poll to succeed again');
}, 60_000);

it('poll_thread: auto moves a collector to the poll thread once one of its polls served poll_thread_from_series series', async () => {
  sim = await startSimulator({ queues: 20, vhosts: 2 });
  const exporter = await start(sim, ['stats_every: 1', 'poll_thread: auto', 'poll_thread_from_series: 2000']);
  const moved = () => exporter.logs().includes('its polls move to the poll thread');
  await eventually(queuesSucceeded(exporter), 20_000, 'the first poll to succeed');
  expect((await queueLines(exporter)).length).toBeLessThan(2000);
  // Two polls more (1 s apart), still on the main thread: no thread was started for it.
  const lastSuccess = async () => (await exporter.value('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}')) ?? 0;
  const before = await lastSuccess();
  await eventually(async () => ((await lastSuccess()) >= before + 1.9 ? true : undefined), 20_000, 'two more polls');
  expect(moved()).toBe(false);
  const threadsBefore = exporter.threads();
  // 400 queues more: the next poll serves over 2,000 series, and the one after polls in the thread.
  const original = sim.data.queues.slice();
  for (let i = 0; i < 20; i++) sim.data.queues.push(...original.map((q) => ({ ...q, name: `${String(q.name)}-more-${i}` })));
  sim.changed();
  await eventually(async () => (moved() ? true : undefined), 20_000, 'the collector to move to the poll thread');
  expect(exporter.logs()).toMatch(/"collector":"queues".*"poll_thread_from_series":2000.*its polls move to the poll thread/);
  const atMove = await lastSuccess();
  await eventually(async () => ((await lastSuccess()) >= atMove + 1.9 ? true : undefined), 20_000, 'two polls in the poll thread');
  // The poll thread is one thread more in the process, started by the move.
  expect(exporter.threads()).toBe(threadsBefore + 1);
  expect(await exporter.value('rabbitmq_exporter_collector_success{collector="queues"}')).toBe(1);
  const lines = await queueLines(exporter);
  expect(lines.filter((l) => l.startsWith('rabbitmq_queue_messages_ready{')).length).toBe(420);
}, 60_000);

it('poll_thread: auto puts a big collector in the poll thread before its first poll, by the broker queue count', async () => {
  sim = await startSimulator({ queues: 420, vhosts: 2 });
  // 420 queues × the families a queue may have: over 2,000 series expected.
  const [ahead, onMain] = [await start(sim, ['stats_every: 1', 'poll_thread: auto', 'poll_thread_from_series: 2000']), await start(sim, ['stats_every: 1', 'poll_thread: false'])];
  await eventually(queuesSucceeded(ahead), 20_000, 'the first poll to succeed');
  await eventually(queuesSucceeded(onMain), 20_000, 'the main thread poll to succeed');
  const queueLogs = ahead
    .logs()
    .split('\n')
    .filter((line) => line.includes('"collector":"queues"'));
  const moves = queueLogs.filter((line) => line.includes('its polls move to the poll thread'));
  expect(moves).toHaveLength(1);
  expect(moves[0]).toMatch(/"expected_series":\d+.*"poll_thread_from_series":2000.*by the broker's object_totals/);
  // Before its first poll: the queue collector's first line.
  expect(queueLogs[0]).toBe(moves[0]);
  expect(ahead.threads()).toBe(onMain.threads() + 1);
  const lines = await queueLines(ahead);
  expect(lines.filter((l) => l.startsWith('rabbitmq_queue_messages_ready{')).length).toBe(420);
  expect(lines).toEqual(await queueLines(onMain));
}, 60_000);

it('serves the same queue series from the poll thread as from the main thread across polls that depend on carry-over', async () => {
  // Each exporter has a simulator of its own with the same records, so each one's polls can be
  // counted by the requests it made. stats_every: 3: two counts-only polls between statistics
  // polls stand in the held statistics; a counter that goes down stays at its height (an offset
  // kept from poll to poll); a vhost whose list fails is told apart from deleted queues.
  const sims = [await startSimulator({ queues: 300, vhosts: 3 }), await startSimulator({ queues: 300, vhosts: 3 })];
  const closeSims = () => Promise.all(sims.map((s) => s.close()));
  // Counts-only polls count consumers from /api/consumers: make each queue's own count agree with
  // that list, as the broker's do.
  for (const s of sims) {
    const listed = new Map<string, number>();
    for (const c of s.data.consumers) {
      const q = c.queue as { name: string; vhost: string };
      listed.set(`${q.vhost}/${q.name}`, (listed.get(`${q.vhost}/${q.name}`) ?? 0) + 1);
    }
    for (const q of s.data.queues) q.consumers = listed.get(`${String(q.vhost)}/${String(q.name)}`) ?? 0;
    s.changed();
  }
  try {
    const [onMain, inThread] = [await start(sims[0]!, ['stats_every: 3', 'poll_thread: false']), await start(sims[1]!, ['stats_every: 3', 'poll_thread: true'])];
    const published = (s: Simulator) => (s.data.queues[0]!.message_stats as { publish: number });
    const change = (what: (s: Simulator) => void) => {
      for (const s of sims) {
        what(s);
        s.changed();
      }
    };
    /** Statistics lists of vhost `/` asked so far: one per statistics poll. */
    const statisticsPolls = (s: Simulator) => s.requests.filter((r) => r.startsWith('/api/queues/%2F') && !r.includes('disable_stats')).length;
    /** Once each exporter has started two statistics polls since now (so finished one), and then a counts-only one. */
    const afterAStatisticsPoll = async () => {
      const since = sims.map(statisticsPolls);
      await eventually(async () => (sims.every((s, i) => statisticsPolls(s) >= since[i]! + 2) ? true : undefined), 30_000, 'a statistics poll of each exporter');
    };
    /** The queue lines of both, sampled three times a second apart (over a statistics poll and counts-only ones): all alike. */
    const alike = async (what: string, check: (lines: string[]) => void) => {
      await eventually(
        async () => {
          const samples: string[][] = [];
          // The statistics' age grows between polls and the query's mode is the last poll's (a
          // statistics or a counts-only one); every other line must hold still.
          const changing = ['rabbitmq_queue_statistics_age_seconds', 'rabbitmq_queue_query_info'];
          const held = async (e: ExporterProcess) => (await queueLines(e)).filter((l) => !changing.some((name) => l.startsWith(name)));
          for (let i = 0; i < 3; i++) {
            samples.push(await held(onMain), await held(inThread));
            await new Promise((r) => setTimeout(r, 1000));
          }
          for (const [i, sample] of samples.entries()) {
            const first = new Set(samples[0]);
            const differing = sample.filter((l) => !first.has(l));
            if (differing.length > 0 || sample.length !== samples[0]!.length) throw new Error(`sample ${i} (${i % 2 ? 'poll thread' : 'main thread'}) differs from the first in ${differing.length} lines, e.g. ${differing.slice(0, 3).join('; ')}`);
          }
          check(samples[0]!);
          return true;
        },
        30_000,
        `the main thread's and the poll thread's queue series to be alike over polls (${what})`,
      );
    };
    const line = (lines: string[], prefix: string) => lines.find((l) => l.startsWith(prefix));
    const q0Published = 'rabbitmq_queue_messages_published_total{vhost="/",queue="q0"';

    change((s) => (published(s).publish = 5000));
    await eventually(queuesSucceeded(onMain), 20_000, 'the main thread poll to succeed');
    await eventually(queuesSucceeded(inThread), 20_000, 'the poll thread poll to succeed');
    await afterAStatisticsPoll();
    await alike('steady', (lines) => {
      expect(lines.length).toBeGreaterThan(300 * 10);
      expect(line(lines, q0Published)).toMatch(/ 5000$/);
    });

    change((s) => (published(s).publish = 1000));
    await afterAStatisticsPoll();
    // Served at its height: the decrease is an offset each thread keeps from poll to poll.
    await alike('a counter went down', (lines) => expect(line(lines, q0Published)).toMatch(/ 5000$/));

    change((s) => (published(s).publish = 1500));
    await afterAStatisticsPoll();
    await alike('it grew again', (lines) => expect(line(lines, q0Published)).toMatch(/ 5500$/));

    for (const s of sims) s.fault('/api/queues/vh1', { kind: 'status', status: 500 });
    await afterAStatisticsPoll();
    await alike('a vhost failed', (lines) => expect(lines.some((l) => l.includes('vhost="vh1"'))).toBe(true));
    const vh1Failed = /^rabbitmq_exporter_collector_vhost_failed\{collector="queues",vhost="vh1",reason="[^"]+"\} 1$/m;
    for (const exporter of [onMain, inThread]) expect((await exporter.metrics()).text).toMatch(vh1Failed);

    for (const s of sims) s.fault('/api/queues/vh1', undefined);
    await afterAStatisticsPoll();
    await alike('the vhost answered again', (lines) => expect(line(lines, q0Published)).toMatch(/ 5500$/));
  } finally {
    await Promise.all(exporters.map((e) => e.stop()));
    exporters = [];
    await closeSims();
  }
}, 180_000);
