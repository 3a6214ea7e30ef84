// The scale benchmark's knobs: BENCH_SCALE_QUEUES (10000,100000), BENCH_SCALE_VHOSTS (10),
// BENCH_SCALE_POLLS (measured polls per phase, 3), BENCH_SCALE_CHANGES (fractions of queues
// changed per poll, 0,0.1,1), BENCH_SCALE_INTERVAL (queue poll interval, 15s), BENCH_RESULTS_DIR (bench/results),
// BENCH_SCALE_SIGNALS (1: the queue collector's signals option on; results in scale-signals.json),
// BENCH_SCALE_FAMILIES (1: every queue rolled up by the suffix rule, per-queue series off; results in scale-families.json),
// BENCH_SCALE_POLL_THREAD (unset: the default, poll_thread: auto; 1: true, results in scale-poll-thread.json; 0: false, in scale-main-thread.json),
// BENCH_SCALE_NODE_ARGS (Node's own flags for the exporter's process, space-separated; none by default).
export const SIZES = (process.env.BENCH_SCALE_QUEUES || '10000,100000').split(',').map(Number);
export const VHOSTS = Number(process.env.BENCH_SCALE_VHOSTS || 10);
export const POLLS = Number(process.env.BENCH_SCALE_POLLS || 3);
export const CHANGES = (process.env.BENCH_SCALE_CHANGES || '0,0.1,1').split(',').map(Number);
export const INTERVAL = process.env.BENCH_SCALE_INTERVAL || '15s';
/** The fraction of queues changing per poll while /metrics latency is measured. */
export const LATENCY_CHANGE = 0.1;
/** The queue collector's signals option (docs/signals.md): its cost is measured by a run of its own. */
export const SIGNALS = process.env.BENCH_SCALE_SIGNALS === '1';
/**
 * The queue collector's families (docs/queues.md): the simulator's queues (q0, q1, ...) all in family
 * `q` of their vhost by the suffix rule, their per-queue series off: issue 29's series target.
 */
export const FAMILIES = process.env.BENCH_SCALE_FAMILIES === '1';
/**
 * `collectors.queues.poll_thread` (docs/configuration.md): the poll off the thread that serves
 * scrapes, always or never. Undefined: the default (auto: there once its polls are big).
 */
export const POLL_THREAD: boolean | undefined = ({ '1': true, '0': false } as const)[process.env.BENCH_SCALE_POLL_THREAD ?? ''];
/**
 * Its settings: `unmatched` (a family for names the suffix rule leaves out; none here) makes every
 * queue rolled up, so the list asks only for the roll-ups' columns (docs/queues.md).
 */
export const FAMILIES_SETTINGS = { strip_suffixes: true, per_queue: false, unmatched: 'other' } as const;
/** Node's own flags for the measured exporter (V8's heap settings, say), named in the results' command. */
export const NODE_ARGS = (process.env.BENCH_SCALE_NODE_ARGS || '').split(' ').filter((arg) => arg !== '');
