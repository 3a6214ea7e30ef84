/**
 * Records rabbitmq_prometheus's `/metrics/detailed` answers of a real node into
 * test/fixtures/plugin-<version>/ (statistics on) and plugin-<version>-stats-disabled/, one file
 * per family, as the plugin served them (text format, unchanged). Not a test: run on purpose, e.g.
 *
 *   RECORD_FIXTURES=4.0 npx vitest run --project record test/record/record-plugin.record.ts
 */
import fs from 'node:fs';
import amqp from 'amqplib';
import { it } from 'vitest';
import { startBroker } from '../harness/broker/broker.js';
import { managementApi } from '../broker/support/management-api.js';
import { sleep } from './recorder.js';
import { PLUGIN_FAMILIES } from '../../src/collectors/plugin/collector.js';
import { queueCounterFamilies } from '../../src/collectors/plugin/queue-counters.js';
import { parseVersion } from '../../src/broker/broker-info.js';

const version = process.env.RECORD_FIXTURES ?? '';
const STATS_OFF = ['management.disable_stats = true', 'management_agent.disable_metrics_collector = true'];
export const RECORDED_FAMILIES = [
  'queue_coarse_metrics', 'queue_consumer_count', 'queue_metrics', 'queue_delivery_metrics', 'queue_exchange_metrics',
  'exchange_metrics', 'channel_queue_metrics', 'channel_exchange_metrics', 'channel_queue_exchange_metrics',
  'auth_attempt_metrics', 'auth_attempt_detailed_metrics', 'ra_metrics', 'node_coarse_metrics',
  'connection_churn_metrics', 'queue_churn_metrics', 'channel_churn_metrics', 'vhost_status', 'exchange_names', 'exchange_bindings',
  'stream_consumer_metrics', 'stream_publisher_metrics',
];

it.skipIf(!version)(`records rabbitmq_prometheus of RabbitMQ ${version}`, async () => {
  for (const statsOn of [true, false]) {
    const broker = await startBroker({ version, nodeNamePrefix: 'rmqexp-record', extraConfig: statsOn ? [] : STATS_OFF });
    let conn: amqp.ChannelModel | undefined;
    try {
      const dir = `test/fixtures/plugin-${broker.version!.replace(/\.\d+$/, '.x')}${statsOn ? '' : '-stats-disabled'}`;
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      const api = managementApi(broker);
      await api('PUT', '/api/queues/%2F/px.classic', { durable: true, arguments: { 'x-queue-type': 'classic' } });
      await api('PUT', '/api/queues/%2F/px.quorum', { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await api('PUT', '/api/queues/%2F/px.dlx-source', { durable: true, arguments: { 'x-message-ttl': 1, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': 'px.classic' } });
      conn = await amqp.connect(broker.amqpUrl);
      const ch = await conn.createConfirmChannel();
      for (let i = 0; i < 7; i++) ch.sendToQueue('px.classic', Buffer.from(`c${i}`), { persistent: true });
      for (let i = 0; i < 4; i++) ch.sendToQueue('px.quorum', Buffer.from(`q${i}`), { persistent: true });
      for (let i = 0; i < 2; i++) ch.sendToQueue('px.dlx-source', Buffer.from(`d${i}`));
      await ch.waitForConfirms();
      const consumer = await conn.createChannel();
      await consumer.prefetch(10);
      let delivered = 0;
      await consumer.consume('px.classic', (m) => { if (m && delivered++ < 3) consumer.ack(m); }, { noAck: false });
      await consumer.get('px.quorum', { noAck: true });
      await sleep(8_000);
      for (const family of RECORDED_FAMILIES) {
        const res = await fetch(`${broker.prometheusUrl}/metrics/detailed?family=${family}`);
        fs.writeFileSync(`${dir}/${family}.prom`, res.ok ? await res.text() : `# HTTP ${res.status}\n${await res.text()}`);
      }
      // The one request the plugin collector makes with statistics off (with them on, without the queue families).
      const asked = [...PLUGIN_FAMILIES, ...queueCounterFamilies(parseVersion(broker.version!)[0])];
      const combined = await fetch(`${broker.prometheusUrl}/metrics/detailed?${asked.map((f) => `family=${f}`).join('&')}`);
      fs.writeFileSync(`${dir}/collector-detailed.prom`, await combined.text());
      const all = await fetch(`${broker.prometheusUrl}/metrics`);
      fs.writeFileSync(`${dir}/metrics.prom`, await all.text());
      fs.writeFileSync(`${dir}/README.md`, `# rabbitmq_prometheus of RabbitMQ ${broker.version}${statsOn ? '' : ', statistics disabled'}\n\nRecorded ${new Date().toISOString().slice(0, 10)} by test/record/record-plugin.record.ts (\`RECORD_FIXTURES=${version} npx vitest run --project record test/record/record-plugin.record.ts\`) from private node \`${broker.nodeName}\`${statsOn ? '' : ` with \`${STATS_OFF.join('` and `')}\``}.\nState: queues \`px.classic\` (7 published, a consumer with prefetch 10 that acked 3), \`px.quorum\` (4 published, one basic.get without ack), \`px.dlx-source\` (2 published, ttl 1 ms, dead-lettered to px.classic). One file per family: \`GET /metrics/detailed?family=<name>\`; \`metrics.prom\` is \`GET /metrics\`.\n`);
    } finally {
      await conn?.close().catch(() => undefined);
      await broker.stop();
    }
  }
});
