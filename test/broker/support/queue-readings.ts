// The queue collector's broker tests (queues, queue-counters, queue-tiers): its runs against the
// private node, and the same queue's counts as the collector serves them, as the API reports
// them and as rabbitmqctl lists them.
import amqp from 'amqplib';
import { afterAll, beforeAll } from 'vitest';
import type { ManagementClient } from '../../../src/broker/management-client.js';
import { queuesCollector } from '../../../src/collectors/queues/collector.js';
import { clientFor, runCollector, type RunResult } from '../../support/run-collector.js';
import { managementApi, managementRequest } from './management-api.js';
import type { BrokerHandle } from './with-broker.js';

const enc = encodeURIComponent;

export interface Counts {
  messages: number | undefined;
  ready: number | undefined;
  unacked: number | undefined;
  consumers: number | undefined;
}

/** Call in a describeWithBroker body: the client is made before its tests and closed after them. */
export function queueReadings(broker: BrokerHandle) {
  let client: ManagementClient;
  const request = managementRequest(broker);
  const ok = managementApi(broker);
  const connect = (vhost = '/') =>
    amqp.connect({ protocol: 'amqp', hostname: '127.0.0.1', port: broker.amqpPort, username: broker.username, password: broker.password, vhost });
  const collect = (options: Record<string, unknown> = {}, memory?: Map<string, unknown>) =>
    runCollector(queuesCollector, { api: client, options, ...(memory ? { memory } : {}) });
  const served = (r: RunResult, vhost: string, queue: string): Counts => ({
    messages: r.value('rabbitmq_queue_messages', { vhost, queue }),
    ready: r.value('rabbitmq_queue_messages_ready', { vhost, queue }),
    unacked: r.value('rabbitmq_queue_messages_unacked', { vhost, queue }),
    consumers: r.value('rabbitmq_queue_consumers', { vhost, queue }),
  });
  const fromApi = async (vhost: string, queue: string): Promise<Counts> => {
    const q = await ok<Record<string, number>>('GET', `/api/queues/${enc(vhost)}/${enc(queue)}`);
    return { messages: q.messages, ready: q.messages_ready, unacked: q.messages_unacknowledged, consumers: q.consumers };
  };
  const fromCtl = async (vhost: string, queue: string): Promise<Counts> => {
    const out = await broker.ctl(['-q', '--no-table-headers', 'list_queues', '-p', vhost, 'name', 'messages', 'messages_ready', 'messages_unacknowledged', 'consumers']);
    const row = out.split('\n').map((l) => l.split('\t')).find((cols) => cols[0] === queue);
    if (!row) throw new Error(`rabbitmqctl list_queues -p ${vhost} has no ${queue}:\n${out}`);
    const [, messages, ready, unacked, consumers] = row.map(Number);
    return { messages, ready, unacked, consumers };
  };


  beforeAll(() => {
    client = clientFor(broker);
  });
  afterAll(async () => {
    await client?.close();
  });
  return { request, ok, connect, collect, served, fromApi, fromCtl };
}
