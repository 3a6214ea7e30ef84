import { SHOVEL_STATES, shovelMetrics as M } from '../catalogue/shovels.js';
import { columnsParam } from '../client/management-client.js';
import { metricsOf } from '../metrics/metric-def.js';
import { renderLabels } from '../render/text-format.js';
import type { Collector } from './collector.js';
import { emitRecord, fieldsRead, fieldTableOf } from './field-table.js';
import { stringLabel } from './label-text.js';
import { getRemembered, jsonList } from './optional-requests.js';

const PATH = '/api/shovels';
/** Message counts, from 4.1 (absent before). */
const table = fieldTableOf(M);
const COLUMNS = columnsParam(['vhost', 'name', 'type', 'state', 'node', 'src_protocol', 'dest_protocol', ...fieldsRead(table, false)]);
/** States a shovel whose worker runs reports: running, or from 3.13 its flow-control state. */
const RUNNING = new Set(['running', 'flow', 'blocked']);

type Shovel = Record<string, unknown>;

export const shovelsCollector: Collector = {
  name: 'shovels',
  description: `GET ${PATH} (shovel management plugin; absent plugin: no series): state of every shovel, and from 4.1 its message counts.`,
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  metrics: metricsOf(M),
  async collect(ctx) {
    const answer = await getRemembered<unknown>(ctx, {
      path: PATH,
      query: { columns: COLUMNS },
      absentMeans: 'the shovel management plugin is not enabled',
    });
    if (!answer.ok) return;
    // A shovel runs on one node; should two nodes report it, the running one wins.
    const shovels = new Map<string, Shovel>();
    for (const shovel of jsonList<Shovel>(answer.body, PATH)) {
      if (typeof shovel.name !== 'string') {
        ctx.sink.drop('no_name');
        continue;
      }
      const key = JSON.stringify([stringLabel(shovel.vhost), shovel.name]);
      const seen = shovels.get(key);
      if (!seen || (!RUNNING.has(stringLabel(seen.state)) && RUNNING.has(stringLabel(shovel.state)))) shovels.set(key, shovel);
    }
    const counts = { dynamic: new Map<string, number>(), static: new Map<string, number>() };
    const { sink } = ctx;
    for (const shovel of shovels.values()) {
      const state = stringLabel(shovel.state) || 'unknown';
      const type = stringLabel(shovel.type);
      if (type === 'dynamic' || type === 'static') counts[type].set(state, (counts[type].get(state) ?? 0) + 1);
      const id = { vhost: stringLabel(shovel.vhost), shovel: stringLabel(shovel.name) };
      sink.add(M.up, id, RUNNING.has(state) ? 1 : 0);
      const states: readonly string[] = SHOVEL_STATES.includes(state as never) ? SHOVEL_STATES : [...SHOVEL_STATES, state];
      for (const s of states) sink.add(M.state, { ...id, state: s }, s === state ? 1 : 0);
      sink.add(M.info, { ...id, type, node: stringLabel(shovel.node), src_protocol: stringLabel(shovel.src_protocol), dest_protocol: stringLabel(shovel.dest_protocol) }, 1);
      emitRecord(sink, table, shovel, renderLabels(M.up.labels, [id.vhost, id.shovel]), { rates: false });
    }
    for (const [state, count] of counts.dynamic) sink.add(M.dynamic, [state], count);
    for (const [state, count] of counts.static) sink.add(M.static, [state], count);
  },
};
