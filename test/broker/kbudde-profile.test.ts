// Issue 15: the exporter started with --naming=kbudde against the private node serves kbudde's
// names with the broker's own values, and nothing under the native names but its own health series.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../support/parse-exposition.js';
import { eventually, startExporter, type ExporterProcess } from '../support/exporter-process.js';
import { checkMetricsWithPromtool } from './support/promtool.js';
import { managementApi } from './support/management-api.js';
import { describeWithBroker, getBroker, type BrokerHandle } from './support/with-broker.js';

type Json = Record<string, unknown>;

// One version is enough: the profile only renames what the native tests check on every version.
describe.skipIf(getBroker()?.brokerVersion !== '3.10')('kbudde profile, RabbitMQ 3.10 only', () => {
  describeWithBroker('the exporter with --naming=kbudde', (broker: BrokerHandle) => {
    let exporter: ExporterProcess;

    beforeAll(async () => {
      exporter = await startExporter({
        configYaml: `poll:\n  interval: 1s\ntarget:\n  url: ${broker.managementUrl}\n  username: ${broker.username}\n  password: ${broker.password}\n`,
        args: ['--naming=kbudde'],
      });
    }, 60_000);

    afterAll(async () => {
      await exporter?.stop();
    }, 30_000);

    it('serves kbudde\'s node and overview families with the broker\'s values and labels, and no native family', async () => {
      const api = managementApi(broker);
      const overview = await api<Json>('GET', '/api/overview');
      const cluster = overview.cluster_name as string;
      const node = `cluster="${cluster}",node="${broker.nodeName}",self="1"`;
      // A node just started reports only `running` until its first statistics: wait for those.
      await eventually(() => exporter.value(`rabbitmq_node_mem_alarm{${node}}`), 30_000, 'rabbitmq_node_mem_alarm of the node');
      const text = (await exporter.metrics()).text;
      const values = samples(text);
      const record = (await api<Json[]>('GET', '/api/nodes')).find((n) => n.name === broker.nodeName)!;
      for (const field of ['fd_total', 'mem_limit', 'disk_free_limit']) expect(typeof record[field], field).toBe('number');

      expect(values.get(`rabbitmq_running{${node}}`)).toBe(1);
      expect(values.get(`rabbitmq_fd_available{${node}}`)).toBe(record.fd_total);
      expect(values.get(`rabbitmq_node_mem_limit{${node}}`)).toBe(record.mem_limit);
      expect(values.get(`rabbitmq_node_disk_free_limit{${node}}`)).toBe(record.disk_free_limit);
      expect(values.get(`rabbitmq_node_mem_alarm{${node}}`)).toBe(0);
      expect(values.get(`rabbitmq_partitions{${node}}`)).toBe(0);
      expect(values.has(`rabbitmq_queues{cluster="${cluster}"}`)).toBe(true);

      // Native names are not served, except the exporter's own health series; rabbitmq_up and
      // rabbitmq_exporter_build_info only with kbudde's labels.
      for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) {
        expect(line, 'a native family under the kbudde profile').not.toMatch(/^rabbitmq_(up|queue_messages|process_open_fds|node_running)[ ]|^rabbitmq_(queue_messages|process_open_fds|node_running)\{|nodejs_version=/);
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
