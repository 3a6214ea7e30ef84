import { nodeMetrics as n } from '../../src/collectors/nodes/metrics.js';
import type { DashboardSpec } from './grafana.js';
import { scoped, scopedRate } from './promql.js';
import { fillClusterSignals } from './cluster-signal-panels.js';

const byNode = '{{node}}';

export const nodesDashboard: DashboardSpec = {
  uid: 'rabbitmq-exporter-nodes',
  title: 'RabbitMQ / Nodes',
  description: 'Per node: memory breakdown, disk, file descriptors, Erlang processes, run queue, garbage collection, I/O, cluster links and partitions.',
  variables: [],
  fill(l) {
    l.row('Nodes')
      .table({ title: 'Nodes', description: 'Cluster nodes and their settings (type, memory calculation strategy, rates mode).', unit: 'none', span: 12, targets: [{ expr: scoped(n.info) }] })
      .table({ title: 'Uptime', description: 'Time since each node\'s Erlang VM started.', unit: 's', span: 12, targets: [{ expr: scoped(n.uptime) }] });

    l.row('Memory')
      .timeseries({
        title: 'Memory breakdown',
        description: 'Node memory by use, from the management API\'s memory breakdown (binary, code, queue processes, ...).',
        unit: 'bytes',
        stacked: true,
        targets: [{ expr: scoped(n.memoryArea), legend: '{{node}} {{area}}' }],
      })
      .timeseries({
        title: 'Memory used and high watermark',
        description: 'Memory used as RabbitMQ measures it, and the high watermark above which publishers are blocked.',
        unit: 'bytes',
        targets: [
          { expr: scoped(n.memUsed), legend: 'used {{node}}' },
          { expr: scoped(n.memLimit), legend: 'watermark {{node}}' },
        ],
      });

    l.row('Disk and file descriptors')
      .timeseries({
        title: 'Disk free and limit',
        description: 'Free disk space on the data partition, and the limit below which the disk alarm blocks publishers.',
        unit: 'bytes',
        span: 8,
        targets: [
          { expr: scoped(n.diskFree), legend: 'free {{node}}' },
          { expr: scoped(n.diskFreeLimit), legend: 'limit {{node}}' },
        ],
      })
      .timeseries({
        title: 'File descriptors',
        description: 'File descriptors open, and the limit.',
        unit: 'short',
        span: 8,
        targets: [
          { expr: scoped(n.fdUsed), legend: 'open {{node}}' },
          { expr: scoped(n.fdTotal), legend: 'limit {{node}}' },
        ],
      })
      .timeseries({
        title: 'TCP sockets',
        description: 'TCP sockets open and available (RabbitMQ reports them before 4.0 only).',
        unit: 'short',
        span: 8,
        targets: [
          { expr: scoped(n.socketsUsed), legend: 'open {{node}}' },
          { expr: scoped(n.socketsTotal), legend: 'limit {{node}}' },
        ],
      });

    l.row('Erlang VM')
      .timeseries({
        title: 'Erlang processes',
        description: 'Erlang processes running, and the limit (at the limit the node cannot accept connections or create queues).',
        unit: 'short',
        span: 8,
        targets: [
          { expr: scoped(n.procUsed), legend: 'used {{node}}' },
          { expr: scoped(n.procTotal), legend: 'limit {{node}}' },
        ],
      })
      .timeseries({
        title: 'Run queue',
        description: 'Erlang processes waiting to run; persistently above the number of processors means the node is CPU-bound.',
        unit: 'short',
        span: 8,
        targets: [
          { expr: scoped(n.runQueue), legend: 'run queue {{node}}' },
          { expr: scoped(n.processors), legend: 'processors {{node}}' },
        ],
      })
      .timeseries({
        title: 'Garbage collection',
        description: 'Erlang garbage collections and context switches per second.',
        unit: 'ops',
        span: 8,
        targets: [
          { expr: scopedRate(n.gcRuns), legend: 'GC runs {{node}}' },
          { expr: scopedRate(n.contextSwitches), legend: 'context switches {{node}}' },
        ],
      })
      .timeseries({
        title: 'Memory reclaimed by GC',
        description: 'Bytes per second reclaimed by Erlang garbage collection.',
        unit: 'Bps',
        targets: [{ expr: scopedRate(n.gcReclaimed), legend: byNode }],
      });

    l.row('I/O')
      .timeseries({
        title: 'I/O operations',
        description: 'Reads, writes, fsyncs and seeks per second by the persistence layer.',
        unit: 'iops',
        span: 8,
        targets: [
          { expr: scopedRate(n.ioReadOps), legend: 'read {{node}}' },
          { expr: scopedRate(n.ioWriteOps), legend: 'write {{node}}' },
          { expr: scopedRate(n.ioSyncOps), legend: 'sync {{node}}' },
          { expr: scopedRate(n.ioSeekOps), legend: 'seek {{node}}' },
        ],
      })
      .timeseries({
        title: 'I/O bytes',
        description: 'Bytes per second read and written by the persistence layer.',
        unit: 'Bps',
        span: 8,
        targets: [
          { expr: scopedRate(n.ioReadBytes), legend: 'read {{node}}' },
          { expr: scopedRate(n.ioWriteBytes), legend: 'write {{node}}' },
        ],
      })
      .timeseries({
        title: 'I/O latency',
        description: 'Average time of a read, write and fsync over the management API\'s last sampling window.',
        unit: 's',
        span: 8,
        targets: [
          { expr: scoped(n.ioReadTime), legend: 'read {{node}}' },
          { expr: scoped(n.ioWriteTime), legend: 'write {{node}}' },
          { expr: scoped(n.ioSyncTime), legend: 'sync {{node}}' },
        ],
      })
      .timeseries({
        title: 'Message store and queue index',
        description: 'Message store and queue index reads and writes per second.',
        unit: 'ops',
        targets: [
          { expr: scopedRate(n.msgStoreRead), legend: 'store read {{node}}' },
          { expr: scopedRate(n.msgStoreWrite), legend: 'store write {{node}}' },
          { expr: scopedRate(n.queueIndexRead), legend: 'index read {{node}}' },
          { expr: scopedRate(n.queueIndexWrite), legend: 'index write {{node}}' },
        ],
      });

    l.row('Cluster')
      .timeseries({
        title: 'Cluster links and partitions',
        description: 'Inter-node links each node has open, and nodes it sees as partitioned from it (anything above 0 is a partition).',
        unit: 'short',
        targets: [
          { expr: scoped(n.clusterLinks), legend: 'links {{node}}' },
          { expr: scoped(n.partitions), legend: 'partitioned {{node}}' },
        ],
      })
      .timeseries({
        title: 'Inter-node traffic',
        description: 'Bytes per second sent and received over each inter-node link.',
        unit: 'Bps',
        targets: [
          { expr: scopedRate(n.clusterLinkSent), legend: 'sent {{node}} → {{peer}}' },
          { expr: scopedRate(n.clusterLinkReceived), legend: 'received {{node}} ← {{peer}}' },
        ],
      });

    fillClusterSignals(l);
  },
};
