import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import type { MetricDef } from '../../../src/model/metric-def.js';
import { NODE_TARGET_FAMILIES } from '../../../src/pipeline/node-share.js';
import { NODE_TOTALS } from '../../../src/pipeline/node-totals.js';
import { REPO_ROOT } from '../../support/fixtures.js';

/**
 * Every metric row is served by some test: it is in a golden exposition (test/fixtures/golden/,
 * rendered from recorded answers), or a test names it where it checks what is served. A row added
 * without either fails here, naming it.
 */

const THIS_FILE = 'test/unit/project/rows-tested.test.ts';

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
    .filter(keep);
}

/** The families a golden exposition serves: each `# TYPE` line's name. */
const inGoldens = new Set(
  filesUnder('test/fixtures/golden', (path) => path.endsWith('.prom')).flatMap((path) => [...readFileSync(join(REPO_ROOT, path), 'utf8').matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!)),
);

/** Test sources that name families without serving them: upstream's names, and this list. */
const NAMING_ONLY = [THIS_FILE, 'test/unit/content/'];

/** The test sources (not fixtures: those are what the broker answers, not what the exporter serves). */
const testSources = filesUnder('test', (path) => /\.test\.ts$/.test(path) && !NAMING_ONLY.some((prefix) => path.startsWith(prefix))).map((path) => ({
  path,
  text: readFileSync(join(REPO_ROOT, path), 'utf8'),
}));

/** Every family the exporter can serve under its own names: the catalogue's rows, their rate gauges, and what node targets add. */
function rows(): MetricDef[] {
  const all = new Map<string, MetricDef>();
  for (const def of [...catalogue(COLLECTORS), ...NODE_TARGET_FAMILIES]) {
    all.set(def.name, def);
    if (def.rate) all.set(def.rate.name, def.rate);
  }
  return [...all.values()];
}

const DISTRIBUTION = "samples only on a node with distribution links to other nodes; the recorded plugin answers are single nodes'";
const MSACC_EXTRA = "a state of microstate accounting's extra mode (an emulator built with it); the recorded nodes count the default states only";
const NOT_ON_QUEUES = "no broker here lists the field in a queue's message_stats (publish, deliver*, get*, ack, redeliver: test/broker/kbudde-facts.test.ts); exchanges and channels have it";

/** Rows no test serves yet, each with why: a debt that only shrinks (the second test fails on a stale entry). */
const NOT_YET_SERVED: Readonly<Record<string, string>> = {
  erlang_vm_dist_node_queue_size_bytes: DISTRIBUTION,
  erlang_vm_dist_node_state: DISTRIBUTION,
  erlang_vm_dist_port_input_bytes: DISTRIBUTION,
  erlang_vm_dist_port_memory_bytes: DISTRIBUTION,
  erlang_vm_dist_port_output_bytes: DISTRIBUTION,
  erlang_vm_dist_port_queue_size_bytes: DISTRIBUTION,
  erlang_vm_dist_proc_heap_size_words: DISTRIBUTION,
  erlang_vm_dist_proc_memory_bytes: DISTRIBUTION,
  erlang_vm_dist_proc_message_queue_len: DISTRIBUTION,
  erlang_vm_dist_proc_min_bin_vheap_size_words: DISTRIBUTION,
  erlang_vm_dist_proc_min_heap_size_words: DISTRIBUTION,
  erlang_vm_dist_proc_reductions: DISTRIBUTION,
  erlang_vm_dist_proc_stack_size_words: DISTRIBUTION,
  erlang_vm_dist_proc_status: DISTRIBUTION,
  erlang_vm_dist_proc_total_heap_size_words: DISTRIBUTION,
  erlang_vm_dist_recv_avg_bytes: DISTRIBUTION,
  erlang_vm_dist_recv_bytes: DISTRIBUTION,
  erlang_vm_dist_recv_cnt: DISTRIBUTION,
  erlang_vm_dist_recv_dvi_bytes: DISTRIBUTION,
  erlang_vm_dist_recv_max_bytes: DISTRIBUTION,
  erlang_vm_dist_send_avg_bytes: DISTRIBUTION,
  erlang_vm_dist_send_bytes: DISTRIBUTION,
  erlang_vm_dist_send_cnt: DISTRIBUTION,
  erlang_vm_dist_send_max_bytes: DISTRIBUTION,
  erlang_vm_dist_send_pend_bytes: DISTRIBUTION,
  erlang_vm_msacc_alloc_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_bif_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_busy_wait_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_ets_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_gc_full_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_nif_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_send_seconds_total: MSACC_EXTRA,
  erlang_vm_msacc_timers_seconds_total: MSACC_EXTRA,
  rabbitmq_queue_messages_confirmed_per_second: NOT_ON_QUEUES,
  rabbitmq_queue_messages_confirmed_total: NOT_ON_QUEUES,
  rabbitmq_queue_messages_dropped_unroutable_per_second: NOT_ON_QUEUES,
  rabbitmq_queue_messages_dropped_unroutable_total: NOT_ON_QUEUES,
  rabbitmq_queue_messages_returned_unroutable_per_second: NOT_ON_QUEUES,
  rabbitmq_queue_messages_returned_unroutable_total: NOT_ON_QUEUES,
};

function testsNaming(name: string): string[] {
  const word = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
  return testSources.filter((source) => word.test(source.text)).map((source) => source.path);
}

/** A node target's row is made from another row (src/pipeline/node-totals.ts): served when that one is (test/unit/server/node-targets.test.ts serves the making). */
const madeFrom = new Map<MetricDef, MetricDef>(NODE_TOTALS.map((total) => [total.def, total.from]));

function tested(def: MetricDef): boolean {
  const from = madeFrom.get(def);
  if (from) return tested(from);
  return inGoldens.has(def.name) || testsNaming(def.name).length > 0;
}

describe('every metric row is served by a test', () => {
  it('is in a golden exposition, or a test names it', () => {
    const untested = rows()
      .filter((def) => !tested(def) && !(def.name in NOT_YET_SERVED))
      .map((def) => `${def.name} (${def.owner})`);
    expect(untested, 'rows no test serves: add a test that serves each value (or its recorded answers to a golden case)').toEqual([]);
  });

  it('lists no row as untested that a test serves now, or that is no row', () => {
    const byName = new Map(rows().map((def) => [def.name, def]));
    const stale = Object.keys(NOT_YET_SERVED).filter((name) => !byName.has(name) || tested(byName.get(name)!));
    expect(stale, 'take them out of NOT_YET_SERVED').toEqual([]);
  });
});
