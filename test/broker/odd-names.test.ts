// Names a real broker accepts that the exporter must bound or tell apart. Measured on 3.10.8:
// the HTTP API creates vhosts with names of any length (a queue name over 255 bytes is refused
// with 400), and vhosts whose names are not valid UTF-8 (the bytes ED A0 80 of a lone surrogate,
// or FF), which /api/vhosts then lists as "vh\uFFFD" both: two vhosts, one name.
// Measured on 4.0.5 and 4.3.6: such vhosts are created all the same, but the broker can no longer
// list them: its JSON encoder (thoas, since 3.11; 3.10 has jsx) throws invalid_byte, so
// /api/vhosts, /api/exchanges, /api/bindings, /api/permissions (and /api/queues once such a vhost
// holds a queue) answer 500 with an empty body until the vhost is deleted. rabbitmqctl list_vhosts
// fails on every version. Those vhosts exist only inside the test that needs them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManagementError } from '../../src/broker/errors.js';
import type { ManagementClient } from '../../src/broker/management-client.js';
import { queuesCollector } from '../../src/collectors/queues/collector.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { vhostsCollector } from '../../src/collectors/vhosts/collector.js';
import { samples } from '../support/parse-exposition.js';
import { clientFor, runCollector } from '../support/run-collector.js';
import { eventually } from '../harness/eventually.js';
import { startExporter } from '../harness/exporter-process.js';
import { checkMetricsWithPromtool } from '../harness/promtool.js';
import { atLeast } from '../harness/broker/versions.js';
import { managementApi, managementRequest } from './support/management-api.js';
import { describeWithBroker } from './support/with-broker.js';

const enc = encodeURIComponent;
/** Vhost names that are not valid UTF-8, percent-encoded as sent: a lone surrogate's bytes, and FF. */
const NOT_UTF8 = ['vh%ED%A0%80', 'vh%FF'];

describeWithBroker('odd names on a real broker', (broker) => {
  let client: ManagementClient;
  // Paths are sent as given: already percent-encoded.
  const request = managementRequest(broker);
  const http = async (method: string, path: string, body?: unknown): Promise<number> => (await request(method, path, body)).status;
  const ok = managementApi(broker);
  const longA = `${'v'.repeat(300)}-a`;
  const longB = `${'v'.repeat(300)}-b`;
  const created: string[] = [];
  const createVhost = async (encoded: string) => {
    await ok('PUT', `/api/vhosts/${encoded}`, {});
    created.push(encoded);
    await ok('PUT', `/api/permissions/${encoded}/${enc(broker.username)}`, { configure: '.*', write: '.*', read: '.*' });
  };
  const deleteVhost = async (encoded: string) => {
    await ok('DELETE', `/api/vhosts/${encoded}`);
    created.splice(created.indexOf(encoded), 1);
  };
  /** Does the broker's JSON encoder refuse names that are not UTF-8 (thoas, 3.11+), or replace their bytes (jsx, 3.10)? */
  const refusesBadUtf8 = () => atLeast(broker.version!, '3.11');

  beforeAll(async () => {
    client = clientFor(broker);
    for (const [name, queue] of [[longA, 'qa'], [longB, 'qb']] as const) {
      await createVhost(enc(name));
      await ok('PUT', `/api/queues/${enc(name)}/${queue}`, { durable: false });
    }
  });

  afterAll(async () => {
    for (const encoded of [...created]) await http('DELETE', `/api/vhosts/${encoded}`);
    await client?.close();
  });

  it('a queue name over 255 bytes is refused by the broker: long names come from vhosts (and clients)', async () => {
    expect(await http('PUT', `/api/queues/%2F/${'q'.repeat(300)}`, { durable: false })).toBe(400);
  });

  it('300-byte vhost names are served bounded to 256 bytes, still two vhosts, and promtool accepts the exposition', async () => {
    const r = await runCollector(queuesCollector, { api: client, options: { per_vhost: true } });
    const long = r.family('rabbitmq_queue_info').filter((s) => s.labels.vhost!.startsWith('vvv'));
    expect(long.map((s) => s.labels.queue).sort()).toEqual(['qa', 'qb']);
    const vhosts = long.map((s) => s.labels.vhost!);
    expect(new Set(vhosts).size).toBe(2);
    for (const vhost of vhosts) {
      expect(Buffer.byteLength(vhost)).toBe(256);
      expect(vhost).toMatch(/^v{243}~[0-9a-f]{12}$/);
    }
    // The per-vhost requests used the full names: each queue is found in its vhost.
    expect(r.value('rabbitmq_queue_query_info', { mode: 'columns', per_vhost: 'true', paged: 'false' })).toBe(1);
    expect(r.dropped).toEqual({ no_name: 0, duplicate: 0 });
    const check = await checkMetricsWithPromtool(r.text);
    expect(check.output).toBe('');
    expect(check.ok).toBe(true);
  });

  it('before 3.11, two vhosts the API lists under one name are one series and one counted duplicate, not a failed poll', async () => {
    for (const encoded of NOT_UTF8) await createVhost(encoded);
    try {
      if (refusesBadUtf8()) {
        // The broker cannot list them (see the top of the file): the next test covers this version.
        expect(await http('GET', '/api/vhosts?columns=name')).toBe(500);
        return;
      }
      const r = await runCollector(vhostsCollector, { api: client });
      const replaced = r.family('rabbitmq_vhost_info').filter((s) => s.labels.vhost === 'vh\uFFFD');
      expect(replaced).toHaveLength(1);
      expect(r.dropped).toEqual({ no_name: 0, duplicate: 1 });
      for (const s of r.family('rabbitmq_vhost_info')) expect(Buffer.byteLength(s.labels.vhost!)).toBeLessThanOrEqual(256);
      const check = await checkMetricsWithPromtool(r.text);
      expect(check.output).toBe('');
      expect(check.ok).toBe(true);
    } finally {
      for (const encoded of NOT_UTF8) await deleteVhost(encoded);
    }
  });

  it('from 3.11, while a vhost name is not UTF-8 the lists that name it fail with 500: those collectors fail naming the path, the others and the exporter carry on', async () => {
    if (!refusesBadUtf8()) {
      // 3.10 lists them with U+FFFD (the test above): nothing fails.
      await createVhost(NOT_UTF8[1]!);
      try {
        expect(await http('GET', '/api/vhosts?columns=name')).toBe(200);
      } finally {
        await deleteVhost(NOT_UTF8[1]!);
      }
      return;
    }
    const exporter = await startExporter({
      configYaml: `
poll:
  interval: 1s
  jitter: 0
  backoff_max: 1s
target:
  url: ${broker.managementUrl}
  username: ${broker.username}
  password_file: /dev/null
`,
      env: { RABBITMQ_PASSWORD: broker.password },
    });
    const success = async () => {
      const values = samples((await exporter.metrics()).text);
      const byCollector = new Map<string, number>();
      for (const c of COLLECTORS) {
        const value = values.get(`rabbitmq_exporter_collector_success{collector="${c.name}"}`);
        if (value !== undefined) byCollector.set(c.name, value);
      }
      return { samples: values, byCollector };
    };
    try {
      // Every collector the exporter runs by default has polled once, all of them successfully.
      const before = await eventually(async () => {
        const s = await success();
        return s.byCollector.size > 0 && [...s.byCollector.values()].every((v) => v === 1) && s.byCollector.has('vhosts') ? s : undefined;
      }, 30_000, 'every collector to succeed once');
      for (const encoded of NOT_UTF8) await createVhost(encoded);
      try {
        // The broker itself: an empty 500, and rabbitmqctl cannot list them either.
        expect(await request('GET', '/api/vhosts')).toEqual({ status: 500, text: '' });
        await expect(broker.ctl(['-q', 'list_vhosts', 'name'])).rejects.toThrow(/exited with code/);

        // The collectors, one by one: those whose lists name the vhost fail with the path and the
        // status, a ManagementError (no TypeError, no crash); every other succeeds.
        const failures: Record<string, string> = {};
        for (const c of COLLECTORS) {
          const outcome = await runCollector(c, { api: client }).then(
            () => 'ok',
            (error: unknown) => (error instanceof ManagementError ? `${error.pathname} ${error.reason}` : `not a ManagementError: ${String(error)}`),
          );
          if (outcome !== 'ok') failures[c.name] = outcome;
        }
        expect(failures).toEqual({
          // per_vhost auto lists the vhosts first; with per_vhost false, /api/queues answers while no queue is in such a vhost
          queues: '/api/vhosts http_500',
          exchanges: '/api/exchanges http_500',
          vhosts: '/api/vhosts http_500',
        });
        const failing = Object.keys(failures);

        // The running exporter: those collectors report failure, the others keep succeeding; the
        // log warns once per cause (the same "HTTP 500" for all three) and the landing page names
        // each collector's failing path.
        const during = await eventually(async () => {
          const s = await success();
          return failing.every((name) => s.byCollector.get(name) === 0) ? s : undefined;
        }, 30_000, `${failing.join(', ')} to report failure`);
        expect(during.samples.get('rabbitmq_up')).toBe(1);
        for (const [name, _value] of before.byCollector) if (!failing.includes(name)) expect(during.byCollector.get(name), name).toBe(1);
        const warnings = exporter
          .logs()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: string; msg: string; collector?: string; path?: string; reason?: string })
          .filter((l) => l.msg === 'poll failed' && l.level === 'warn');
        expect(warnings.length).toBeGreaterThan(0);
        for (const w of warnings) expect(`${w.path} ${w.reason}`).toBe(failures[w.collector!]);
        const landing = await (await fetch(`${exporter.url}/`)).text();
        for (const path of ['/api/vhosts', '/api/exchanges']) expect(landing).toContain(`${path}: HTTP 500`);
      } finally {
        for (const encoded of NOT_UTF8) await deleteVhost(encoded);
      }
      // Deleted, the vhosts no longer break the lists: the failing collectors succeed again.
      await eventually(async () => {
        const s = await success();
        return [...s.byCollector.values()].every((v) => v === 1) ? s : undefined;
      }, 30_000, 'every collector to succeed again after the vhosts are deleted');
    } finally {
      await exporter.stop();
    }
  });
});
