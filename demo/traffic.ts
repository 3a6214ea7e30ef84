/**
 * The demo cluster's traffic: what its records say `seconds` after the demo started. Each queue
 * has a steady publish rate and a depth that rises and drains in a slow wave of its own; what is
 * not in the queue was delivered, so every counter only grows and the rates the API reports are
 * the derivatives of the counts. Exchanges, channels, connections, nodes and the overview add up
 * or follow their queues. Deterministic: the same seconds give the same figures.
 */
import type { SimulatedData } from '../test/support/management-simulator.js';

type Rec = Record<string, unknown>;

/** One queue's traffic: messages per second in, the depth wave's height and period, its phase, how it is consumed. */
export interface QueueFlow {
  publishPerSecond: number;
  waveMessages: number;
  periodSeconds: number;
  phase: number;
  unacked: number;
  /** Consumed in auto-ack mode (deliver_no_ack, nothing unacknowledged), else with manual acks. */
  autoAck: boolean;
}

/**
 * Queue i's flow. One queue in five is idle; the others publish 1-12 messages/s. A depth of
 * `wave * (1 - cos)/2` drains at most `wave * π / period` messages/s, kept under the publish rate,
 * so deliveries never go backwards.
 */
export function queueFlow(i: number): QueueFlow {
  if (i % 5 === 4) return { publishPerSecond: 0, waveMessages: 0, periodSeconds: 1, phase: 0, unacked: 0, autoAck: false };
  const publishPerSecond = 1 + (i % 12);
  const periodSeconds = 120 + (i % 7) * 60;
  const waveMessages = Math.floor((0.9 * publishPerSecond * periodSeconds) / Math.PI);
  const autoAck = i % 4 === 1;
  return { publishPerSecond, waveMessages, periodSeconds, phase: ((i * 37) % 100) / 100, unacked: autoAck ? 0 : i % 4, autoAck };
}

export interface QueueFigures {
  published: number;
  delivered: number;
  /** Of `delivered`, those in auto-ack mode. */
  deliveredAutoAck: number;
  ready: number;
  unacked: number;
  publishRate: number;
  deliverRate: number;
  depthRate: number;
}

/** Queue i's counts and counters `seconds` after the start. */
export function queueFigures(i: number, seconds: number): QueueFigures {
  const f = queueFlow(i);
  const angle = 2 * Math.PI * (seconds / f.periodSeconds + f.phase);
  const start = (f.waveMessages * (1 - Math.cos(2 * Math.PI * f.phase))) / 2;
  const depth = (f.waveMessages * (1 - Math.cos(angle))) / 2;
  const depthRate = (f.waveMessages * Math.PI * Math.sin(angle)) / f.periodSeconds;
  // The queue held `start` messages when the demo began: they were published before it. What was
  // published and is no longer in the queue was delivered: that grows strictly (see queueFlow), and
  // is rounded down as a whole so that rounding never takes a counter back.
  const before = 1000 * (i % 10);
  const published = before + Math.floor(start + f.publishPerSecond * seconds);
  const delivered = before + Math.floor(start + f.publishPerSecond * seconds - depth);
  const ready = Math.round(depth);
  const deliveredAutoAck = f.autoAck ? delivered : 0;
  return { published, delivered, deliveredAutoAck, ready, unacked: f.unacked, publishRate: f.publishPerSecond, deliverRate: f.publishPerSecond - depthRate, depthRate };
}

const rate = (value: number) => ({ rate: Math.round(value * 10) / 10 });

/** Sets a counter and its `_details.rate`, as the API gives them. */
function counter(record: Rec, field: string, value: number, perSecond: number): void {
  record[field] = value;
  record[`${field}_details`] = rate(perSecond);
}

function statsOf(record: Rec): Rec {
  record.message_stats = record.message_stats && typeof record.message_stats === 'object' ? record.message_stats : {};
  return record.message_stats as Rec;
}

/** Figures of several queues added up (a vhost's, an exchange's, the cluster's). */
type Sums = QueueFigures;

const noSums = (): Sums => ({ published: 0, delivered: 0, deliveredAutoAck: 0, ready: 0, unacked: 0, publishRate: 0, deliverRate: 0, depthRate: 0 });

function addTo(sums: Sums, q: QueueFigures): void {
  sums.published += q.published;
  sums.delivered += q.delivered;
  sums.deliveredAutoAck += q.deliveredAutoAck;
  sums.ready += q.ready;
  sums.unacked += q.unacked;
  sums.publishRate += q.publishRate;
  sums.deliverRate += q.deliverRate;
  sums.depthRate += q.depthRate;
}

/** deliver_get, split into deliver (manual ack) and deliver_no_ack, acks and redeliveries; rates in the same shares. */
function writeDeliveries(stats: Rec, q: QueueFigures): void {
  const autoShare = q.delivered > 0 ? q.deliveredAutoAck / q.delivered : 0;
  const manual = q.delivered - q.deliveredAutoAck;
  counter(stats, 'deliver_get', q.delivered, q.deliverRate);
  counter(stats, 'deliver', manual, q.deliverRate * (1 - autoShare));
  counter(stats, 'deliver_no_ack', q.deliveredAutoAck, q.deliverRate * autoShare);
  counter(stats, 'ack', Math.max(0, manual - q.unacked), q.deliverRate * (1 - autoShare));
  counter(stats, 'redeliver', Math.floor(manual / 1000), (q.deliverRate * (1 - autoShare)) / 1000);
}

function writeQueue(record: Rec, q: QueueFigures, nowSeconds: number): void {
  record.messages_ready = q.ready;
  record.messages_unacknowledged = q.unacked;
  record.messages = q.ready + q.unacked;
  record.messages_details = rate(q.depthRate);
  record.messages_ready_details = rate(q.depthRate);
  record.messages_unacknowledged_details = rate(0);
  record.message_bytes = (q.ready + q.unacked) * 512;
  record.message_bytes_ready = q.ready * 512;
  record.message_bytes_unacknowledged = q.unacked * 512;
  record.memory = 20_000 + q.ready * 600;
  // The head message waited about as long as the queue takes to publish its depth.
  if (q.ready > 0) record.head_message_timestamp = Math.floor(nowSeconds - q.ready / Math.max(1, q.publishRate));
  else delete record.head_message_timestamp;
  const stats = statsOf(record);
  counter(stats, 'publish', q.published, q.publishRate);
  writeDeliveries(stats, q);
}

/** Writes the figures of `seconds` after the start into the simulator's records; `nowSeconds`: that moment's Unix time. */
export function applyTraffic(data: SimulatedData, seconds: number, nowSeconds: number): void {
  const total = noSums();
  const perExchange = data.exchanges.map(noSums);
  const perVhost = new Map<unknown, Sums>();
  data.queues.forEach((record, i) => {
    const q = queueFigures(i, seconds);
    writeQueue(record, q, nowSeconds);
    addTo(total, q);
    const exchange = perExchange[i % Math.max(1, perExchange.length)];
    if (exchange) addTo(exchange, q);
    const vhost = perVhost.get(record.vhost) ?? noSums();
    addTo(vhost, q);
    perVhost.set(record.vhost, vhost);
  });
  for (const vhost of data.vhosts) {
    const sums = perVhost.get(vhost.name) ?? noSums();
    vhost.messages = sums.ready + sums.unacked;
    vhost.messages_details = rate(sums.depthRate);
    vhost.messages_ready = sums.ready;
    vhost.messages_ready_details = rate(sums.depthRate);
    vhost.messages_unacknowledged = sums.unacked;
    vhost.messages_unacknowledged_details = rate(0);
    counter(vhost, 'recv_oct', sums.published * 512, sums.publishRate * 512);
    counter(vhost, 'send_oct', sums.delivered * 512, sums.deliverRate * 512);
    const stats = statsOf(vhost);
    counter(stats, 'publish', sums.published, sums.publishRate);
    writeDeliveries(stats, sums);
  }
  data.exchanges.forEach((record, i) => {
    const sums = perExchange[i]!;
    const stats = statsOf(record);
    counter(stats, 'publish_in', sums.published, sums.publishRate);
    counter(stats, 'publish_out', sums.published, sums.publishRate);
  });
  const overview = data.overview;
  overview.queue_totals = {
    messages: total.ready + total.unacked,
    messages_details: rate(total.depthRate),
    messages_ready: total.ready,
    messages_ready_details: rate(total.depthRate),
    messages_unacknowledged: total.unacked,
    messages_unacknowledged_details: rate(0),
  };
  const stats = statsOf(overview);
  counter(stats, 'publish', total.published, total.publishRate);
  counter(stats, 'confirm', total.published, total.publishRate);
  writeDeliveries(stats, total);
  counter(stats, 'disk_writes', Math.floor(total.published / 4), total.publishRate / 4);
  counter(stats, 'disk_reads', Math.floor(total.delivered / 20), total.deliverRate / 20);
  applyClientTraffic(data, total, seconds);
  applyNodeTraffic(data, total, seconds);
}

/** Connections and channels carry the publishes between them, about 512 bytes a message. */
function applyClientTraffic(data: SimulatedData, total: Sums, seconds: number): void {
  const share = (n: number) => 1 / Math.max(1, n);
  for (const c of data.connections) {
    counter(c, 'recv_oct', Math.floor(total.published * 512 * share(data.connections.length)), total.publishRate * 512 * share(data.connections.length));
    counter(c, 'send_oct', Math.floor(total.delivered * 512 * share(data.connections.length)), total.deliverRate * 512 * share(data.connections.length));
    c.recv_cnt = Math.floor(total.published * share(data.connections.length));
    c.send_cnt = Math.floor(total.delivered * share(data.connections.length));
  }
  // Odd channels publish, even ones consume.
  const half = share(Math.ceil(data.channels.length / 2));
  data.channels.forEach((ch, i) => {
    const stats = statsOf(ch);
    if (i % 2 === 1) {
      counter(stats, 'publish', Math.floor(total.published * half), total.publishRate * half);
      counter(stats, 'confirm', Math.floor(total.published * half), total.publishRate * half);
    } else {
      // Each kind of delivery shared out by itself, so that no counter goes back by a rounding.
      const part = (n: number) => Math.floor(n * half);
      const autoAck = part(total.deliveredAutoAck);
      const delivered = part(total.delivered - total.deliveredAutoAck) + autoAck;
      writeDeliveries(stats, { ...total, delivered, deliveredAutoAck: autoAck, unacked: part(total.unacked), deliverRate: total.deliverRate * half });
    }
  });
  const churn = (data.overview.churn_rates ?? {}) as Rec;
  counter(churn, 'connection_created', data.connections.length + Math.floor(seconds / 30), 1 / 30);
  counter(churn, 'connection_closed', Math.floor(seconds / 30), 1 / 30);
  counter(churn, 'channel_created', data.channels.length + Math.floor(seconds / 10), 0.1);
  counter(churn, 'channel_closed', Math.floor(seconds / 10), 0.1);
  data.overview.churn_rates = churn;
}

/** Each node: memory and descriptors that breathe with the depth, counters that grow with the traffic. */
function applyNodeTraffic(data: SimulatedData, total: Sums, seconds: number): void {
  const n = Math.max(1, data.nodes.length);
  data.nodes.forEach((node, k) => {
    const wave = Math.sin((2 * Math.PI * seconds) / 300 + k);
    node.mem_used = Math.round(180e6 + k * 20e6 + (total.ready + total.unacked) * 600 / n + 10e6 * wave);
    node.mem_used_details = rate(0);
    node.fd_used = 60 + Math.round(data.connections.length / n) + Math.round(5 * wave);
    node.sockets_used = Math.round(data.connections.length / n);
    node.proc_used = 600 + Math.round(data.queues.length / n) * 3;
    node.uptime = Math.round((3600 + seconds) * 1000);
    node.run_queue = Math.max(0, Math.round(2 * wave));
    const busy = total.publishRate / n;
    counter(node, 'io_write_count', Math.floor((total.published / n) / 8), busy / 8);
    counter(node, 'io_write_bytes', Math.floor((total.published / n) * 512), busy * 512);
    counter(node, 'io_read_count', Math.floor((total.delivered / n) / 40), busy / 40);
    counter(node, 'io_read_bytes', Math.floor((total.delivered / n) * 64), busy * 64);
    counter(node, 'io_sync_count', Math.floor((total.published / n) / 100), busy / 100);
    counter(node, 'gc_num', Math.floor(seconds * 900 + k * 1e5), 900);
    counter(node, 'gc_bytes_reclaimed', Math.floor(seconds * 4e7 + k * 1e9), 4e7);
    counter(node, 'context_switches', Math.floor(seconds * 5000 + k * 1e6), 5000);
    counter(node, 'msg_store_write_count', Math.floor((total.published / n) / 4), busy / 4);
    counter(node, 'msg_store_read_count', Math.floor((total.delivered / n) / 20), busy / 20);
    counter(node, 'queue_index_write_count', Math.floor((total.published / n) / 4), busy / 4);
    counter(node, 'queue_index_read_count', Math.floor((total.delivered / n) / 20), busy / 20);
    counter(node, 'connection_created', Math.floor((data.connections.length + seconds / 30) / n), 1 / 30 / n);
    counter(node, 'channel_created', Math.floor((data.channels.length + seconds / 10) / n), 0.1 / n);
    const links = Array.isArray(node.cluster_links) ? (node.cluster_links as Rec[]) : [];
    for (const link of links) {
      link.send_bytes = Math.floor((seconds + 3600) * 2e4 + k * 1e6);
      link.recv_bytes = Math.floor((seconds + 3600) * 1.8e4 + k * 1e6);
    }
  });
}
