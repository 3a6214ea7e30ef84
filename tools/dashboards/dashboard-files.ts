import { buildDashboard, type DashboardSpec } from './grafana.js';
import { overviewDashboard } from './overview.js';
import { queuesDashboard } from './queues.js';
import { nodesDashboard } from './nodes.js';
import { connectionsDashboard } from './connections.js';
import { exporterDashboard } from './exporter.js';

export const DASHBOARDS: readonly DashboardSpec[] = [overviewDashboard, queuesDashboard, nodesDashboard, connectionsDashboard, exporterDashboard];

export function dashboardPath(spec: DashboardSpec): string {
  return `dashboards/grafana/${spec.uid.replace(/^rabbitmq-exporter-/, 'rabbitmq-')}.json`;
}

export function dashboardFile(spec: DashboardSpec): string {
  return `${JSON.stringify(buildDashboard(spec), null, 2)}\n`;
}
