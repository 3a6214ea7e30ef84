// Issue 15: the exporter started with --naming=kbudde against the private node serves kbudde's
// names with the broker's own values, and nothing under the native names but its own health series.
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../support/parse-exposition.js';
import { eventually } from '../harness/eventually.js';
import { afterFirstPolls, startExporter, type ExporterProcess } from '../harness/exporter-process.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { managementApi, managementRequest } from './support/management-api.js';
import { describeWithBroker, getBroker, type BrokerHandle } from './support/with-broker.js';

type Json = Record<string, unknown>;

// One version is enough: the profile only renames what the native tests check on every version.
describe.skipIf(getBroker()?.brokerVersion !== '3.10')('kbudde profile, RabbitMQ 3.10 only', () => {
  describeWithBroker('the exporter with --naming=kbudde', (broker: BrokerHandle) => {
    let exporter: ExporterProcess;

    // A queue of its own, so that a native queue family would show if the profile let one through.
    const queue = 'kb-native-check';

    beforeAll(async () => {
      await managementApi(broker)('PUT', `/api/queues/%2F/${queue}`, { durable: true });
      exporter = await startExporter({
        configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}\n`,
        args: ['--naming=kbudde'],
      });
    }, 60_000);

    afterAll(async () => {
      await exporter?.stop();
      await managementRequest(broker)('DELETE', `/api/queues/%2F/${queue}`);
    }, 30_000);

    it('serves kbudde\'s node, memory and overview families with the broker\'s values and labels, and no native family', async () => {
      const api = managementApi(broker);
      const overview = await api<Json>('GET', '/api/overview');
      const cluster = overview.cluster_name as string;
      const node = `cluster="${cluster}",node="${broker.nodeName}",self="1"`;
      // A node just started reports only `running` until its first statistics: wait for those.
      await eventually(() => exporter.value(`rabbitmq_node_mem_alarm{${node}}`), 30_000, 'rabbitmq_node_mem_alarm of the node');
      // rabbitmq_module_up of a module appears with its collector's first poll: read once every one has polled.
      // Read once every module has polled and the queue module has served the test's queue: on a loaded
      // machine a module's first poll can fail (as fresh-clone CI's text without the queue suggests), and a text without
      // the queue would let a native queue family pass unseen. The queue module's own test checks its labels.
      const ownQueue = `\nrabbitmq_queue_messages{cluster="${cluster}",vhost="/",queue="${queue}",`;
      const text = await eventually(async () => {
        const polled = await afterFirstPolls(exporter, 30_000);
        return polled.includes(ownQueue) ? polled : undefined;
      }, 30_000, `kbudde's series of ${queue}`);
      const values = samples(text);
      const record = (await api<Json[]>('GET', '/api/nodes')).find((n) => n.name === broker.nodeName)!;
      for (const field of ['fd_total', 'mem_limit', 'disk_free_limit']) expect(typeof record[field], field).toBe('number');

      expect(values.get(`rabbitmq_running{${node}}`)).toBe(1);
      expect(values.get(`rabbitmq_fd_available{${node}}`)).toBe(record.fd_total);
      expect(values.get(`rabbitmq_node_mem_limit{${node}}`)).toBe(record.mem_limit);
      expect(values.get(`rabbitmq_node_disk_free_limit{${node}}`)).toBe(record.disk_free_limit);
      expect(values.get(`rabbitmq_node_mem_alarm{${node}}`)).toBe(0);
      expect(values.get(`rabbitmq_partitions{${node}}`)).toBe(0);
      // Milliseconds, the API's own number, of the last poll (at most a few seconds before the record was read).
      const uptime = values.get(`rabbitmq_uptime{${node}}`)!;
      expect(Number.isInteger(uptime), String(uptime)).toBe(true);
      expect(record.uptime as number).toBeGreaterThanOrEqual(uptime);
      expect((record.uptime as number) - uptime).toBeLessThan(10_000);
      expect(values.has(`rabbitmq_queues{cluster="${cluster}"}`)).toBe(true);

      // The memory module: one family per area of the node's breakdown that kbudde has a name for.
      const breakdown = (await api<{ memory: Record<string, unknown> }>('GET', `/api/nodes/${encodeURIComponent(broker.nodeName)}/memory`)).memory;
      const named = (area: string) => area !== 'total' && area !== 'strategy' && area !== 'connection_readers' && !/^(quorum|stream)_|^metadata_store/.test(area);
      const expected = [...Object.keys(breakdown).filter(named), ...Object.keys(breakdown.total as object).map((m) => `total_${m}`)].map((a) => `rabbitmq_memory_${a}_bytes`);
      const served = [...values.keys()].filter((k) => k.startsWith('rabbitmq_memory_')).map((k) => k.slice(0, k.indexOf('{')));
      expect(served.sort()).toEqual(expected.sort());
      for (const family of served) expect(values.has(`${family}{${node}}`), family).toBe(true);
      // Loaded code changes rarely: its value is the API's once a poll has seen the same.
      await eventually(
        async () => {
          const code = (await api<{ memory: { code: number } }>('GET', `/api/nodes/${encodeURIComponent(broker.nodeName)}/memory`)).memory.code;
          return (await exporter.value(`rabbitmq_memory_code_bytes{${node}}`)) === code ? true : undefined;
        },
        15_000,
        'rabbitmq_memory_code_bytes equal to the API\'s memory.code',
      );

      // Native names are not served, except the exporter's own health series; rabbitmq_up and
      // rabbitmq_exporter_build_info only with kbudde's labels. rabbitmq_queue_messages is kbudde's too
      // (with `cluster` first) whenever the broker holds a queue left by another file: the native one
      // starts with `vhost`.
      for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) {
        expect(line, 'a native family under the kbudde profile').not.toMatch(/^rabbitmq_(up|queue_messages|process_open_fds|node_running)[ ]|^rabbitmq_queue_messages\{vhost=|^rabbitmq_(process_open_fds|node_running)\{|nodejs_version=/);
      }
      // kbudde's rabbitmq_up is the AND of its modules' last polls.
      const moduleUp = [...values].filter(([k]) => k.startsWith('rabbitmq_module_up{')).map(([, value]) => value);
      expect(moduleUp.length).toBeGreaterThan(3);
      expect(values.get(`rabbitmq_up{cluster="${cluster}",node="${broker.nodeName}"}`)).toBe(Math.min(...moduleUp));
      expect(values.get('rabbitmq_exporter_collector_success{collector="nodes"}')).toBe(1);

      const lint = await checkMetricsWithPromtool(text);
      expect(lint.ok, lint.output).toBe(true);
    });
  });
});

/** The queues of the queue module's test: durable or not, with the policy or not, of each type. */
const POLICY = 'kq-policy';
const QUEUES = [
  { name: 'kq.durable', type: 'classic', durable: true, policy: POLICY, published: 6 },
  { name: 'kq.transient', type: 'classic', durable: false, policy: '', published: 2 },
  { name: 'kq.quorum', type: 'quorum', durable: true, policy: POLICY, published: 4 },
  { name: 'kq.stream', type: 'stream', durable: true, policy: '', published: 3 },
];
/** Delivered to a manual-ack consumer from kq.durable, and to an auto-ack one from kq.transient. */
const MANUAL_ACK = 2;
/** What each queue holds then (a stream keeps what it was sent). */
const MESSAGES: Record<string, number> = { 'kq.durable': 6 - MANUAL_ACK, 'kq.transient': 0, 'kq.quorum': 4, 'kq.stream': 3 };

// Every version: which fields the counts-only list carries differs (a stream's node, 3.10's quorum
// queue node), and the profile's labels must not change between the polls that ask for it and the others.
describeWithBroker('the exporter with --naming=kbudde: the queue module', (broker: BrokerHandle) => {
  const api = managementApi(broker);
  let exporter: ExporterProcess;

  beforeAll(async () => {
    await api('PUT', `/api/policies/%2F/${POLICY}`, { pattern: '^kq\\.(durable|quorum)$', 'apply-to': 'queues', definition: { 'max-length': 100000 } });
    for (const q of QUEUES) await api('PUT', `/api/queues/%2F/${q.name}`, { durable: q.durable, arguments: { 'x-queue-type': q.type } });
    const connection = await amqp.connect(broker.amqpUrl);
    try {
      const channel = await connection.createConfirmChannel();
      for (const q of QUEUES) for (let i = 0; i < q.published; i++) channel.sendToQueue(q.name, Buffer.from(`m${i}`), { persistent: q.durable });
      await channel.waitForConfirms();
      // Manual ack: MANUAL_ACK deliveries held unacknowledged by the prefetch, the consumer cancelled, then acknowledged.
      const manual = await connection.createChannel();
      await manual.prefetch(MANUAL_ACK);
      const held: amqp.ConsumeMessage[] = [];
      const { consumerTag } = await manual.consume('kq.durable', (m) => m && held.push(m), { noAck: false });
      await eventually(async () => (held.length === MANUAL_ACK ? true : undefined), 10_000, 'the manual-ack deliveries');
      await manual.cancel(consumerTag);
      for (const m of held) manual.ack(m);
      // Auto ack: every message of kq.transient.
      const auto = await connection.createChannel();
      let received = 0;
      const autoTag = (await auto.consume('kq.transient', () => void received++, { noAck: true })).consumerTag;
      await eventually(async () => (received === 2 ? true : undefined), 10_000, 'the auto-ack deliveries');
      await auto.cancel(autoTag);
      // Statistics arrive every few seconds: wait until the API has counted every delivery. The
      // channels stay open until then: a closed channel's last counts are lost when the broker's
      // core metrics GC runs before the management collector's tick.
      await eventually(
        async () => {
          const records = await api<Json[]>('GET', '/api/queues/%2F');
          const record = (name: string) => records.find((r) => r.name === name) ?? {};
          const stats = (name: string) => (record(name).message_stats ?? {}) as Json;
          // A quorum queue's record has its node, policy and counts only from its first stats tick on.
          const counted = QUEUES.every((q) => record(q.name).messages === MESSAGES[q.name] && record(q.name).node !== undefined);
          return counted && stats('kq.durable').deliver === MANUAL_ACK && stats('kq.durable').ack === MANUAL_ACK && stats('kq.transient').deliver_no_ack === 2 ? true : undefined;
        },
        30_000,
        'the API\'s delivery counts',
      );
    } finally {
      await connection.close();
    }
    exporter = await startExporter({
      configYaml: [
        'poll:\n  interval: 1s',
        `target:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}`,
        // Statistics every other poll: the polls between ask for counts only.
        'collectors:\n  queues:\n    stats_every: 2\n    rates: true\n',
      ].join('\n'),
      args: ['--naming=kbudde'],
    });
  }, 90_000);

  afterAll(async () => {
    await exporter?.stop();
    const request = managementRequest(broker);
    for (const q of QUEUES) await request('DELETE', `/api/queues/%2F/${q.name}`);
    await request('DELETE', `/api/policies/%2F/${POLICY}`);
  }, 30_000);

  it('serves each queue with kbudde\'s labels (durable, policy, self) and the API\'s values, and keeps the labels across the counts-only polls', async () => {
    const overview = await api<Json>('GET', '/api/overview');
    const cluster = overview.cluster_name as string;
    const labelsOf = (q: (typeof QUEUES)[number], node: string) =>
      `cluster="${cluster}",vhost="/",queue="${q.name}",durable="${q.durable}",policy="${q.policy}",self="${node === broker.nodeName ? 1 : 0}"`;
    const records = new Map((await api<Json[]>('GET', '/api/queues/%2F')).map((r) => [r.name as string, r]));
    for (const q of QUEUES) {
      expect(records.get(q.name)?.policy ?? '', q.name).toBe(q.policy);
      expect(records.get(q.name)?.node, q.name).toBe(broker.nodeName);
    }
    const durable = labelsOf(QUEUES[0]!, broker.nodeName);
    await eventually(() => exporter.value(`rabbitmq_queue_messages_delivered_total{${durable}}`), 30_000, 'kq.durable\'s manual-ack deliveries');

    // Series of the kq.* queues, at three successive polls of the queue collector (one of them counts only).
    const queueSeries = (text: string) => [...samples(text)].filter(([key]) => /^rabbitmq_queue_[a-z_]+\{.*queue="kq\./.test(key));
    const polls: Map<string, number>[] = [];
    let lastPoll: number | undefined;
    await eventually(
      async () => {
        const text = (await exporter.metrics()).text;
        const at = samples(text).get('rabbitmq_exporter_collector_last_success_timestamp_seconds{collector="queues"}');
        if (at !== undefined && at !== lastPoll) {
          lastPoll = at;
          polls.push(new Map(queueSeries(text)));
        }
        return polls.length >= 3 ? true : undefined;
      },
      30_000,
      'three polls of the queue collector',
    );
    // Each family of each queue has the same labels at every poll. (Not every family at every poll:
    // a stream's counts are not in 3.10's counts-only list, in either profile.) rabbitmq_queue_state's
    // `state` label is the queue's state, which the broker itself changes: a classic queue reports
    // idle_since while its process hibernates and not once it wakes (seen: kq.durable idle at one
    // statistics poll, running at the next), so that label is checked against the same poll's
    // idle_since series instead.
    const STATE = /,state="([^"]*)"/;
    const labelSets = (poll: Map<string, number>) => {
      const byQueue = new Map<string, string>();
      for (const key of poll.keys()) byQueue.set(`${key.slice(0, key.indexOf('{'))} ${/queue="([^"]*)"/.exec(key)![1]}`, key.replace(STATE, ''));
      return byQueue;
    };
    const [first, ...others] = polls as [Map<string, number>, ...Map<string, number>[]];
    const firstSets = labelSets(first);
    expect(firstSets.size).toBeGreaterThan(QUEUES.length * 5);
    for (const other of others) {
      for (const [familyQueue, key] of labelSets(other)) if (firstSets.has(familyQueue)) expect(key).toBe(firstSets.get(familyQueue));
    }
    for (const poll of polls) {
      for (const q of QUEUES) {
        const labels = labelsOf(q, broker.nodeName);
        const states = [...poll.keys()].filter((k) => k.startsWith(`rabbitmq_queue_state{${labels},`)).map((k) => STATE.exec(k)![1]);
        // kbudde's idle: a running queue that reports idle_since, served at the same poll; quorum and
        // stream queues never report it.
        const idle = poll.has(`rabbitmq_queue_idle_since_seconds{${labels}}`);
        expect(q.type === 'classic' || !idle, q.name).toBe(true);
        expect(states, q.name).toEqual([idle ? 'idle' : 'running']);
      }
    }

    for (const q of QUEUES) {
      const labels = labelsOf(q, broker.nodeName);
      const record = records.get(q.name)!;
      const stats = (record.message_stats ?? {}) as Json;
      expect(first.get(`rabbitmq_queue_messages{${labels}}`), q.name).toBe(record.messages);
      expect(first.get(`rabbitmq_queue_messages_ready{${labels}}`), q.name).toBe(record.messages_ready);
      expect(first.get(`rabbitmq_queue_messages_unacknowledged{${labels}}`), q.name).toBe(record.messages_unacknowledged);
      expect(first.get(`rabbitmq_queue_consumers{${labels}}`), q.name).toBe(0);
      if (q.type !== 'stream') expect(first.get(`rabbitmq_queue_messages_published_total{${labels}}`), q.name).toBe(stats.publish);
    }
    const transient = labelsOf(QUEUES[1]!, broker.nodeName);
    // kbudde's meaning: delivered_total is manual-ack deliveries (deliver), auto-ack ones are _noack.
    expect(first.get(`rabbitmq_queue_messages_delivered_total{${durable}}`)).toBe(MANUAL_ACK);
    expect(first.get(`rabbitmq_queue_messages_ack_total{${durable}}`)).toBe(MANUAL_ACK);
    expect(first.get(`rabbitmq_queue_messages_delivered_noack_total{${transient}}`)).toBe(2);
    const durableStats = records.get('kq.durable')!.message_stats as Json;
    expect(first.get(`rabbitmq_queue_messages_delivered_noack_total{${durable}}`)).toBe(durableStats.deliver_no_ack);
    expect(durableStats.deliver_no_ack ?? 0).toBe(0);
    // Quorum and stream queues: their members.
    expect(first.get(`rabbitmq_queue_member_nodes_len{${labelsOf(QUEUES[2]!, broker.nodeName)}}`)).toBe(1);
    // The rate gauges (collectors.queues.rates).
    expect(first.has(`rabbitmq_queue_messages_publish_rate{${durable}}`)).toBe(true);
    expect(first.has(`rabbitmq_queue_messages_deliver_rate{${durable}}`)).toBe(true);
    // No native queue family.
    for (const key of first.keys()) expect(key).not.toMatch(/^rabbitmq_queue_(messages_unacked|info|running|process_memory_bytes)\{/);

    const lint = await checkMetricsWithPromtool((await exporter.metrics()).text);
    expect(lint.ok, lint.output).toBe(true);
  });
});
