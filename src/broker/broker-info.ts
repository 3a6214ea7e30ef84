/**
 * What the exporter knows about the broker, read from /api/overview. The API changed in
 * 3.13 ("variant B": reduced /api/queues, /api/queues/detailed, /api/nodes/{node}/memory as
 * the memory source); older 3.x is "variant A". Statistics can be off on either.
 */
export type ApiVariant = 'A' | 'B';

export interface BrokerInfo {
  managementVersion: string;
  rabbitmqVersion: string;
  productName: string;
  productVersion: string;
  erlangVersion: string;
  clusterName: string;
  /** The node that answered /api/overview (`node`); '' when the answer lacks it. */
  node: string;
  variant: ApiVariant;
  /** management.disable_stats = true: no message_stats, queue_totals, churn or node stats. */
  statisticsDisabled: boolean;
  /**
   * How many objects of each kind the cluster has (`object_totals`: queues, connections...), its
   * numbers only; absent when the answer has none. Read before a collector's first poll, to
   * estimate how big its polls are (Collector.expectedSeries).
   */
  objectTotals?: Readonly<Record<string, number>>;
  /**
   * Which simulator answered, when the "broker" says it is one (`simulation`, a field no RabbitMQ
   * sends; the exporter's demo does): its data are made up. Absent for a real broker.
   */
  simulation?: string;
}

export function parseVersion(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!match) return [0, 0, 0];
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

export function variantOf(managementVersion: string): ApiVariant {
  const [major, minor] = parseVersion(managementVersion);
  return major > 3 || (major === 3 && minor >= 13) ? 'B' : 'A';
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function brokerInfoFromOverview(overview: Record<string, unknown>): BrokerInfo {
  const managementVersion = text(overview.management_version) || text(overview.rabbitmq_version);
  if (!managementVersion) {
    throw new Error('/api/overview has neither management_version nor rabbitmq_version: not a RabbitMQ management API');
  }
  // 3.10 says so explicitly; some versions omit the flag, but then also omit the stats blocks.
  const statisticsDisabled =
    overview.disable_stats === true ||
    (overview.disable_stats === undefined && overview.message_stats === undefined && overview.queue_totals === undefined);
  return {
    managementVersion,
    rabbitmqVersion: text(overview.rabbitmq_version) || managementVersion,
    productName: text(overview.product_name) || 'RabbitMQ',
    productVersion: text(overview.product_version) || text(overview.rabbitmq_version),
    erlangVersion: text(overview.erlang_version),
    clusterName: text(overview.cluster_name),
    node: text(overview.node),
    variant: variantOf(managementVersion),
    statisticsDisabled,
    ...objectTotalsOf(overview.object_totals),
    ...(text(overview.simulation) ? { simulation: text(overview.simulation) } : {}),
  };
}

function objectTotalsOf(totals: unknown): { objectTotals?: Record<string, number> } {
  if (totals === null || typeof totals !== 'object' || Array.isArray(totals)) return {};
  const numbers = Object.entries(totals).filter(([, n]) => typeof n === 'number' && Number.isFinite(n) && n >= 0);
  return numbers.length === 0 ? {} : { objectTotals: Object.fromEntries(numbers) };
}
