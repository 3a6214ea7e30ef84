import { defineMetrics, type MetricSpec } from '../../model/metric-def.js';

/**
 * The Erlang VM families rabbitmq_prometheus serves on a node's `GET /metrics` (prometheus.erl's
 * VM collectors), as RabbitMQ 3.10, 4.0 and 4.3 name them: name, the plugin's type, its labels
 * (as recorded in test/fixtures/plugin-VERSION/metrics.prom; a single node serves no distribution
 * sample, so erlang_vm_dist_* carry prometheus.erl's `peer`, and `type` for its processes).
 * The management API has none of them, and the plugin's Erlang dashboards (Erlang-BEAM,
 * Erlang-Distribution, Erlang-Memory-Allocators) read them per node. 4.3 renamed several
 * (erlang_vm_memory_bytes_total → erlang_vm_memory_bytes, ..._runtime_milliseconds →
 * ..._runtime_seconds_total): each is relayed under the name its broker gives it.
 */
const PLUGIN_FAMILIES: readonly (readonly [name: string, type: 'gauge' | 'counter', labels: readonly string[]])[] = [
  ['erlang_vm_allocators', 'gauge', ['alloc', 'instance_no', 'kind', 'usage']],
  ['erlang_vm_atom_count', 'gauge', []],
  ['erlang_vm_atom_limit', 'gauge', []],
  ['erlang_vm_atoms', 'gauge', []],
  ['erlang_vm_dirty_cpu_schedulers', 'gauge', []],
  ['erlang_vm_dirty_cpu_schedulers_online', 'gauge', []],
  ['erlang_vm_dirty_io_schedulers', 'gauge', []],
  ['erlang_vm_dist_node_queue_size_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_node_state', 'gauge', ['peer']],
  ['erlang_vm_dist_port_input_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_port_memory_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_port_output_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_port_queue_size_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_proc_heap_size_words', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_memory_bytes', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_message_queue_len', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_min_bin_vheap_size_words', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_min_heap_size_words', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_reductions', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_stack_size_words', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_status', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_proc_total_heap_size_words', 'gauge', ['peer', 'type']],
  ['erlang_vm_dist_recv_avg_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_recv_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_recv_cnt', 'gauge', ['peer']],
  ['erlang_vm_dist_recv_dvi_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_recv_max_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_send_avg_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_send_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_send_cnt', 'gauge', ['peer']],
  ['erlang_vm_dist_send_max_bytes', 'gauge', ['peer']],
  ['erlang_vm_dist_send_pend_bytes', 'gauge', ['peer']],
  ['erlang_vm_ets_limit', 'gauge', []],
  ['erlang_vm_logical_processors', 'gauge', []],
  ['erlang_vm_logical_processors_available', 'gauge', []],
  ['erlang_vm_logical_processors_online', 'gauge', []],
  ['erlang_vm_memory_atom_bytes', 'gauge', ['usage']],
  ['erlang_vm_memory_atom_bytes_total', 'gauge', ['usage']],
  ['erlang_vm_memory_bytes', 'gauge', ['kind']],
  ['erlang_vm_memory_bytes_total', 'gauge', ['kind']],
  ['erlang_vm_memory_dets_tables', 'gauge', []],
  ['erlang_vm_memory_ets_tables', 'gauge', []],
  ['erlang_vm_memory_processes_bytes', 'gauge', ['usage']],
  ['erlang_vm_memory_processes_bytes_total', 'gauge', ['usage']],
  ['erlang_vm_memory_system_bytes', 'gauge', ['usage']],
  ['erlang_vm_memory_system_bytes_total', 'gauge', ['usage']],
  ['erlang_vm_msacc_alloc_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_aux_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_bif_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_busy_wait_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_check_io_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_emulator_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_ets_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_gc_full_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_gc_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_nif_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_other_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_port_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_send_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_sleep_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_msacc_timers_seconds_total', 'counter', ['type', 'id']],
  ['erlang_vm_port_count', 'gauge', []],
  ['erlang_vm_port_limit', 'gauge', []],
  ['erlang_vm_ports', 'gauge', []],
  ['erlang_vm_process_count', 'gauge', []],
  ['erlang_vm_process_limit', 'gauge', []],
  ['erlang_vm_processes', 'gauge', []],
  ['erlang_vm_schedulers', 'gauge', []],
  ['erlang_vm_schedulers_online', 'gauge', []],
  ['erlang_vm_statistics_bytes_output_total', 'counter', []],
  ['erlang_vm_statistics_bytes_received_total', 'counter', []],
  ['erlang_vm_statistics_context_switches', 'counter', []],
  ['erlang_vm_statistics_context_switches_total', 'counter', []],
  ['erlang_vm_statistics_dirty_cpu_run_queue_length', 'gauge', []],
  ['erlang_vm_statistics_dirty_io_run_queue_length', 'gauge', []],
  ['erlang_vm_statistics_garbage_collection_bytes_reclaimed', 'counter', []],
  ['erlang_vm_statistics_garbage_collection_bytes_reclaimed_total', 'counter', []],
  ['erlang_vm_statistics_garbage_collection_number_of_gcs', 'counter', []],
  ['erlang_vm_statistics_garbage_collection_number_of_gcs_total', 'counter', []],
  ['erlang_vm_statistics_garbage_collection_words_reclaimed', 'counter', []],
  ['erlang_vm_statistics_garbage_collection_words_reclaimed_total', 'counter', []],
  ['erlang_vm_statistics_reductions_total', 'counter', []],
  ['erlang_vm_statistics_run_queues_length', 'gauge', []],
  ['erlang_vm_statistics_runtime_milliseconds', 'counter', []],
  ['erlang_vm_statistics_runtime_seconds_total', 'counter', []],
  ['erlang_vm_statistics_wallclock_time_milliseconds', 'counter', []],
  ['erlang_vm_statistics_wallclock_time_seconds_total', 'counter', []],
  ['erlang_vm_thread_pool_size', 'gauge', []],
  ['erlang_vm_wordsize_bytes', 'gauge', []],
];

/**
 * A counter whose name lacks `_total` (3.10 and 4.0 name some so) is served as a gauge: an
 * OpenMetrics counter's samples must end in `_total`, and rate() reads a gauge alike.
 */
function spec(name: string, type: 'gauge' | 'counter', labels: readonly string[]): MetricSpec & { name: string } {
  const served = type === 'counter' && !name.endsWith('_total') ? 'gauge' : type;
  const asGauge = served === type ? '' : ' A counter, served as a gauge: its name lacks _total.';
  return {
    name,
    type: served,
    labels: [...labels, 'node'],
    option: 'erlang_vm',
    relayed: true,
    help: `The node's ${name}, relayed as its rabbitmq_prometheus serves it on GET /metrics, with the node's name added (node).${asGauge} Only with erlang_vm (and the plugin collector).`,
  };
}

export const erlangVmMetrics = defineMetrics('plugin', Object.fromEntries(PLUGIN_FAMILIES.map(([name, type, labels]) => [name, spec(name, type, labels)])));
