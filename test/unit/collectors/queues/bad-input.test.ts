// The queue collector against recorded answers of RabbitMQ 3.10.8 (test/fixtures). Every
// literal below was read off the fixture JSON by hand (jq/python), not from the collector.
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { type Q, FULL, run, series, promtool } from './queue-fixtures.js';

function without(record: Q, key: string): Q {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

describe('queues: bad input', () => {
  const base = { ...FULL[1]!, message_stats: undefined };
  const ODD: Q[] = [
    { ...base, vhost: '/', name: 'say "hi"\\now\nplease', messages: 1 },
    { ...base, vhost: 'a b%', name: 'with spaces  ', messages: 2 },
    { ...base, vhost: 'вхост', name: 'очередь "x" \\ y', messages: 3 },
    without({ ...base, vhost: '/', messages: 99 }, 'name'),
    without({ ...base, name: 'no-vhost', messages: 99 }, 'vhost'),
    { ...base, vhost: '/', name: 42, messages: 99 }, // a name that is not a string
    null,
    { ...base, vhost: '/', name: 'weird-values', messages: null, messages_ready: '12', messages_unacknowledged: ' 7 ', consumers: 'many', memory: true, message_stats: { publish: '15', ack: null } },
  ] as Q[];

  it('escapes label values exactly and keeps non-ASCII as is', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    const lines = r.text.split('\n').filter((l) => l.startsWith('rabbitmq_queue_messages{'));
    expect(lines).toEqual([
      'rabbitmq_queue_messages{vhost="/",queue="say \\"hi\\"\\\\now\\nplease"} 1',
      'rabbitmq_queue_messages{vhost="a b%",queue="with spaces  "} 2',
      'rabbitmq_queue_messages{vhost="вхост",queue="очередь \\"x\\" \\\\ y"} 3',
    ]);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'say "hi"\\now\nplease' })).toBe(1);
    const check = promtool(r.text);
    if (check) expect(check, check.output).toEqual({ ok: true, output: '' });
  });

  it('serves a queue whose argument is a table with a toString key, and every other queue', async () => {
    const poisoned = JSON.parse('{"x-dead-letter-exchange": {"toString": 1}, "x-max-length": [{"valueOf": 2}]}') as Record<string, unknown>;
    const r = await run({ '/api/queues': [{ ...base, vhost: '/', name: 'poisoned', messages: 5, arguments: poisoned }, { ...base, vhost: '/', name: 'plain', messages: 6 }] }, { per_vhost: false }).result;
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'poisoned' })).toBe(5);
    expect(r.value('rabbitmq_queue_messages', { vhost: '/', queue: 'plain' })).toBe(6);
    const info = r.family('rabbitmq_queue_info').find((s) => s.labels.queue === 'poisoned')!.labels;
    expect(info.x_dead_letter_exchange).toBe('[object Object]');
  });

  it('skips records without a string name or vhost', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    expect(series(r, 'rabbitmq_queue_info')).toBe(4);
    expect(r.family('rabbitmq_queue_messages').map((s) => s.value)).not.toContain(99);
    expect(r.text).not.toContain('no-vhost');
    expect(r.family('rabbitmq_vhost_queues').reduce((n, s) => n + s.value, 0)).toBe(4);
  });

  it('null is skipped (not 0), numeric strings are numbers, other strings are skipped', async () => {
    const r = await run({ '/api/queues': ODD }, { per_vhost: false }).result;
    const w = { vhost: '/', queue: 'weird-values' };
    expect(r.value('rabbitmq_queue_messages', w)).toBeUndefined();
    expect(r.value('rabbitmq_queue_messages_ready', w)).toBe(12);
    expect(r.value('rabbitmq_queue_messages_unacked', w)).toBe(7);
    expect(r.value('rabbitmq_queue_consumers', w)).toBeUndefined();
    expect(r.value('rabbitmq_queue_messages_published_total', w)).toBe(15);
    expect(r.value('rabbitmq_queue_messages_acked_total', w)).toBeUndefined();
    expect(r.skipped).toBeGreaterThanOrEqual(3);
    // '/' classic: three queues with messages 1, null, and the odd one: 1 in all.
    expect(r.value('rabbitmq_vhost_queue_messages', { vhost: '/', type: 'classic' })).toBe(1);
    expect(r.value('rabbitmq_vhost_queue_messages_ready', { vhost: '/', type: 'classic' })).toBe(12);
  });

  it('a page answer without items fails the poll with a clear error', async () => {
    const paged = run({ '/api/queues': { page: 1, page_count: 1, error: 'weird' } }, { per_vhost: false, page_size: 100 }).result;
    await expect(paged).rejects.toThrow(/\/api\/queues.*page 1.*(items|page)/);
    const whole = run({ '/api/queues': { error: 'weird' } }, { per_vhost: false }).result;
    await expect(whole).rejects.toThrow(/\/api\/queues did not answer a JSON list/);
    const nul = run({ '/api/queues': null }, { per_vhost: false }).result;
    await expect(nul).rejects.toThrow(/\/api\/queues did not answer a JSON list/);
    const vhosts = run({ '/api/vhosts': { not: 'a list' } }).result;
    await expect(vhosts).rejects.toThrow(/\/api\/vhosts did not answer a JSON list/);
  });

  it('a failing request fails the poll (the error is the ManagementError)', async () => {
    const r = run({ '/api/queues': () => { throw new ManagementError('http_status', '/api/queues', 'HTTP 500', 500); } }, { per_vhost: false }).result;
    await expect(r).rejects.toBeInstanceOf(ManagementError);
  });
});
