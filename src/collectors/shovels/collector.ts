import { SHOVEL_STATES, shovelMetrics as M } from './metrics.js';
import { columnsParam } from '../../broker/api-path.js';
import { metricsOf } from '../../model/metric-def.js';
import type { Collector } from '../kit/collector.js';
import { emitRecord, fieldsRead, fieldTableOf } from '../kit/field-table.js';
import { stringLabel } from '../kit/label-text.js';
import { type ApiRecord, listPart, statesWith } from '../kit/records.js';
import { collectParts } from '../kit/optional-requests.js';
import { renderLabels } from '../../exposition/sample-sink.js';

const PATH = '/api/shovels';
/** Message counts, from 4.1 (absent before). */
const table = fieldTableOf(M);
const COLUMNS = columnsParam(['vhost', 'name', 'type', 'state', 'node', 'src_protocol', 'dest_protocol', ...fieldsRead(table, false)]);
/** States a shovel whose worker runs reports: running, or from 3.13 its flow-control state. */
const RUNNING = new Set(['running', 'flow', 'blocked']);

const stateOf = (shovel: ApiRecord) => stringLabel(shovel.state) || 'unknown';
const byStateOf = (type: string) => (shovel: ApiRecord) => (stringLabel(shovel.type) === type ? [stateOf(shovel)] : undefined);

export const shovelsCollector: Collector = {
  name: 'shovels',
  description: `GET ${PATH} (shovel management plugin; absent plugin: no series): state of every shovel, and from 4.1 its message counts.`,
  defaultEnabled: true,
  defaultIntervalMultiplier: 2,
  metrics: metricsOf(M),
  async collect(ctx) {
    const { sink } = ctx;
    await collectParts(ctx, shovelsCollector.name, [
      listPart(ctx, {
        path: PATH,
        query: { columns: COLUMNS },
        optional: { absentMeans: 'the shovel management plugin is not enabled' },
        identity: (shovel) => (typeof shovel.name === 'string' ? JSON.stringify([stringLabel(shovel.vhost), shovel.name]) : undefined),
        // A shovel runs on one node; should two nodes report it, the running one wins.
        prefer: (shovel, kept) => !RUNNING.has(stringLabel(kept.state)) && RUNNING.has(stringLabel(shovel.state)),
        each: (shovel) => {
          const state = stateOf(shovel);
          const id = { vhost: stringLabel(shovel.vhost), shovel: stringLabel(shovel.name) };
          sink.add(M.up, id, RUNNING.has(state) ? 1 : 0);
          for (const s of statesWith(SHOVEL_STATES, state)) sink.add(M.state, { ...id, state: s }, s === state ? 1 : 0);
          sink.add(M.info, { ...id, type: stringLabel(shovel.type), node: stringLabel(shovel.node), src_protocol: stringLabel(shovel.src_protocol), dest_protocol: stringLabel(shovel.dest_protocol) }, 1, shovel);
          emitRecord(sink, table, shovel, renderLabels(M.up.labels, [id.vhost, id.shovel]), { rates: false });
        },
        aggregations: [
          { group: byStateOf('dynamic'), families: [{ metric: M.dynamic }] },
          { group: byStateOf('static'), families: [{ metric: M.static }] },
        ],
      }),
    ]);
  },
};
