// What the queue collector's tests (this folder) share: recorded answers of RabbitMQ 3.10.8
// (test/fixtures), a fake list endpoint that answers as 3.10.8's does, and a run of the collector.
import { spawnSync } from 'node:child_process';
import { brokerInfoFromOverview, type BrokerInfo } from '../../../../src/broker/broker-info.js';
import { ManagementError } from '../../../../src/broker/errors.js';
import { queuesCollector } from '../../../../src/collectors/queues/collector.js';
import { fakeApi, type FakeRoute } from '../../../support/fake-broker-api.js';
import { project } from '../../../support/list-projection.js';
import { loadFixture } from '../../../support/fixtures.js';
import { BROKER_3_10_8, runCollector, type RunResult } from '../../../support/run-collector.js';

export type Q = Record<string, unknown>;
export interface PageFixture {
  items: Q[];
  page_count: number;
}

export const FULL = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-page1.json').items; // 100 queues of vh0
export const VH1 = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-vh1-page1.json').items; // 100 queues of vh1
export const TOTALS = loadFixture<PageFixture>('rabbitmq-3.10.8/queues-disable-stats-page1.json').items;
export const CONSUMERS = loadFixture<Q[]>('rabbitmq-3.10.8/consumers-vh0.json'); // 10 consumers in vh0
export const BACKLOG = loadFixture<Q>('rabbitmq-3.10.8/queue-single-backlog.json');
export const SD = 'rabbitmq-3.10.8-stats-disabled';
export const SD_OVERVIEW = loadFixture<Record<string, unknown>>(`${SD}/overview.json`);
export const SD_PLAIN = loadFixture<PageFixture>(`${SD}/queues-page1.json`).items;
export const SD_TOTALS = loadFixture<PageFixture>(`${SD}/queues-disable-stats-totals-page1.json`).items;
export const SD_VHOSTS = loadFixture<{ name: string }[]>(`${SD}/vhosts.json`);
export const QUORUM2 = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-quorum2.json');
export const QUORUM2_DOWN = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-quorum2-rabbit2-down.json');
export const ON_RABBIT2 = loadFixture<Q>('rabbitmq-3.10.8-cluster/queue-on-rabbit2.json');

export const BROKER_STATS_OFF: BrokerInfo = brokerInfoFromOverview(SD_OVERVIEW);
export const BROKER_3_13: BrokerInfo = { ...BROKER_3_10_8, managementVersion: '3.13.7', rabbitmqVersion: '3.13.7', productVersion: '3.13.7', variant: 'B' };

// ---------------------------------------------------------------------------------------------
// A fake broker list endpoint that behaves like 3.10.8's: `columns=` keeps only the listed
// (dotted) paths (support/list-projection.ts), `page`/`page_size` answer a page object, `name`+`use_regex` filter only paged
// requests, `disable_stats=true` without `enable_queue_totals` drops the counts.

export function listRoute(items: Q[]): (query: Record<string, string>) => unknown {
  return (query) => {
    let list = items;
    if (query.columns) list = list.map((item) => project(item, query.columns!));
    if (query.page === undefined) return list;
    if (query.name !== undefined) {
      const re = query.use_regex === 'true' ? new RegExp(query.name) : undefined;
      list = list.filter((q) => (re ? re.test(String(q.name)) : String(q.name).includes(query.name!)));
    }
    const page = Number(query.page);
    const size = Number(query.page_size ?? 100);
    const pageCount = Math.ceil(list.length / size);
    if (page > Math.max(pageCount, 1)) throw new ManagementError('http_status', '/api/queues', 'HTTP 400 (bad_request: page_out_of_range)', 400);
    const slice = list.slice((page - 1) * size, page * size);
    return { items: slice, page, page_count: pageCount, page_size: size, item_count: slice.length, filtered_count: list.length, total_count: items.length };
  };
}

export function run(routes: Record<string, FakeRoute>, options: Record<string, unknown> = {}, extra: { broker?: BrokerInfo; memory?: Map<string, unknown> } = {}) {
  const api = fakeApi(routes);
  const result = runCollector(queuesCollector, { api, options, ...extra });
  return { api, result };
}

export const series = (r: RunResult, name: string) => r.family(name).length;
export const warnings = (r: RunResult) => r.logs.filter((l) => l.level === 40);

export function promtool(text: string): { ok: boolean; output: string } | undefined {
  if (spawnSync('which', ['promtool']).status !== 0) return undefined;
  const p = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { ok: p.status === 0, output: `${p.stdout}${p.stderr}` };
}

export const q0 = { vhost: 'vh0', queue: 'q0' };
export const q10 = { vhost: 'vh0', queue: 'q10' };
