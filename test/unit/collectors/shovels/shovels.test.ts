import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { shovelsCollector } from '../../../../src/collectors/shovels/collector.js';
import { fakeApi, type FakeRoute, NOT_FOUND } from '../../../support/fake-broker-api.js';
import { loadFixture } from '../../../support/fixtures.js';
import { runCollector } from '../../../support/run-collector.js';

// sh1 and sh-bad as a real 3.10.8 answered (with ?columns=); the others crafted after the plugin's
// formatting: terminated, a static shovel (no vhost), and 4.1's flow state with message counts.
const SHOVELS = [
  { node: 'rabbit@vm', name: 'sh-bad', vhost: '/', type: 'dynamic', state: 'starting' },
  { node: 'rabbit@vm', name: 'sh1', vhost: '/', type: 'dynamic', state: 'running', src_protocol: 'amqp091', dest_protocol: 'amqp091' },
  { node: 'rabbit@vm', name: 'sh-dead', vhost: 'vh1', type: 'dynamic', state: 'terminated' },
  { node: 'rabbit@vm', name: 'legacy', type: 'static', state: 'running', src_protocol: 'amqp091', dest_protocol: 'amqp10' },
  {
    node: 'rabbit2@vm',
    name: 'sh41',
    vhost: '/',
    type: 'dynamic',
    state: 'flow',
    src_protocol: 'amqp091',
    dest_protocol: 'local',
    forwarded: 1234,
    pending: 7,
  },
];

const STATES = ['starting', 'running', 'flow', 'blocked', 'terminated'];

describe('shovels collector', () => {
  it('serves nothing when no shovel exists (recorded 3.10.8 answer)', async () => {
    const api = fakeApi({ '/api/shovels': loadFixture('rabbitmq-3.10.8/shovels.json') });
    const r = await runCollector(shovelsCollector, { api });
    expect(r.samples.size).toBe(0);
    expect(api.calls[0]?.query).toEqual({ columns: 'vhost,name,type,state,node,src_protocol,dest_protocol,forwarded,pending' });
  });

  it('serves up 1 for running shovels (running, flow, blocked) and 0 for starting and terminated ones', async () => {
    const r = await runCollector(shovelsCollector, { api: fakeApi({ '/api/shovels': SHOVELS }) });
    expect([...r.samples].filter(([k]) => k.startsWith('rabbitmq_shovel_up'))).toEqual([
      ['rabbitmq_shovel_up{vhost="/",shovel="sh-bad"}', 0],
      ['rabbitmq_shovel_up{vhost="/",shovel="sh1"}', 1],
      ['rabbitmq_shovel_up{vhost="vh1",shovel="sh-dead"}', 0],
      ['rabbitmq_shovel_up{vhost="",shovel="legacy"}', 1],
      ['rabbitmq_shovel_up{vhost="/",shovel="sh41"}', 1],
    ]);
  });

  it('serves the state as a set of 0/1 series, one per state, and the metadata on the info series only', async () => {
    const r = await runCollector(shovelsCollector, { api: fakeApi({ '/api/shovels': SHOVELS }) });
    const states = (shovel: string) =>
      r.family('rabbitmq_shovel_state').filter((s) => s.labels.shovel === shovel).map((s) => [s.labels.state, s.value]);
    expect(states('sh-dead')).toEqual(STATES.map((s) => [s, s === 'terminated' ? 1 : 0]));
    expect(states('sh41')).toEqual(STATES.map((s) => [s, s === 'flow' ? 1 : 0]));
    expect(r.family('rabbitmq_shovel_info').map((s) => s.labels)).toEqual([
      { vhost: '/', shovel: 'sh-bad', type: 'dynamic', node: 'rabbit@vm', src_protocol: '', dest_protocol: '' },
      { vhost: '/', shovel: 'sh1', type: 'dynamic', node: 'rabbit@vm', src_protocol: 'amqp091', dest_protocol: 'amqp091' },
      { vhost: 'vh1', shovel: 'sh-dead', type: 'dynamic', node: 'rabbit@vm', src_protocol: '', dest_protocol: '' },
      { vhost: '', shovel: 'legacy', type: 'static', node: 'rabbit@vm', src_protocol: 'amqp091', dest_protocol: 'amqp10' },
      { vhost: '/', shovel: 'sh41', type: 'dynamic', node: 'rabbit2@vm', src_protocol: 'amqp091', dest_protocol: 'local' },
    ]);
    expect(r.family('rabbitmq_shovel_up').every((s) => Object.keys(s.labels).join() === 'vhost,shovel')).toBe(true);
  });

  it('reads the message counts as any field row: a null count is skipped and counted, never served as 0', async () => {
    const shovel = { node: 'rabbit@vm', name: 'odd', vhost: '/', type: 'dynamic', state: 'running', forwarded: null, pending: '3' };
    const r = await runCollector(shovelsCollector, { api: fakeApi({ '/api/shovels': [shovel] }) });
    expect(r.family('rabbitmq_shovel_forwarded_messages_total')).toEqual([]);
    expect(r.skipped).toBe(1);
    expect(r.value('rabbitmq_shovel_pending_messages', { vhost: '/', shovel: 'odd' })).toBe(3);
  });

  it('serves the message counts of 4.1+, and counts by type and state under the plugin\'s names', async () => {
    const r = await runCollector(shovelsCollector, { api: fakeApi({ '/api/shovels': SHOVELS }) });
    expect(r.family('rabbitmq_shovel_forwarded_messages_total')).toEqual([
      { name: 'rabbitmq_shovel_forwarded_messages_total', labels: { vhost: '/', shovel: 'sh41' }, value: 1234 },
    ]);
    expect(r.value('rabbitmq_shovel_pending_messages', { vhost: '/', shovel: 'sh41' })).toBe(7);
    expect(r.family('rabbitmq_shovel_dynamic').map((s) => [s.labels.status, s.value])).toEqual([
      ['starting', 1],
      ['running', 1],
      ['terminated', 1],
      ['flow', 1],
    ]);
    expect(r.family('rabbitmq_shovel_static').map((s) => [s.labels.status, s.value])).toEqual([['running', 1]]);
  });

  it('keeps the running copy of a shovel two nodes report, and adds an unknown state to the set', async () => {
    const shovels = [
      { ...SHOVELS[1], node: 'rabbit2@vm', state: 'terminated' },
      SHOVELS[1],
      { ...SHOVELS[2], state: 'paused' },
    ];
    const r = await runCollector(shovelsCollector, { api: fakeApi({ '/api/shovels': shovels }) });
    expect(r.value('rabbitmq_shovel_up', { vhost: '/', shovel: 'sh1' })).toBe(1);
    expect(r.family('rabbitmq_shovel_info').map((s) => s.labels.node)).toEqual(['rabbit@vm', 'rabbit@vm']);
    expect(r.value('rabbitmq_shovel_state', { vhost: 'vh1', shovel: 'sh-dead', state: 'paused' })).toBe(1);
    expect(r.value('rabbitmq_shovel_up', { vhost: 'vh1', shovel: 'sh-dead' })).toBe(0);
  });

  it('has no series and no error when the plugin is absent (404), logged once at info level', async () => {
    const memory = new Map<string, unknown>();
    const api = fakeApi({ '/api/shovels': NOT_FOUND });
    const first = await runCollector(shovelsCollector, { api, memory });
    expect(first.samples.size).toBe(0);
    expect(first.logs.map((l) => [l.level, l.msg])).toEqual([[30, 'the shovel management plugin is not enabled: no series while the path is absent']]);
    const second = await runCollector(shovelsCollector, { api, memory });
    expect(second.logs).toEqual([]);
  });

  it('serves the shovels at the first poll after the plugin is enabled', async () => {
    const memory = new Map<string, unknown>();
    const routes: Record<string, FakeRoute> = { '/api/shovels': NOT_FOUND };
    const api = fakeApi(routes);
    expect((await runCollector(shovelsCollector, { api, memory })).samples.size).toBe(0);
    routes['/api/shovels'] = [{ vhost: '/', name: 'sh1', type: 'dynamic', state: 'running', node: 'rabbit@vm' }];
    const next = await runCollector(shovelsCollector, { api, memory });
    expect(next.value('rabbitmq_shovel_up', { vhost: '/', shovel: 'sh1' })).toBe(1);
    expect(next.logs.map((l) => [l.level, l.msg, l.path])).toEqual([[30, 'the path answers again', '/api/shovels']]);
  });

  it('fails the poll on any other error', async () => {
    const api = fakeApi({
      '/api/shovels': () => {
        throw new ManagementError('http_status', '/api/shovels', 'HTTP 401 (not_authorised: Not monitor user)', 401);
      },
    });
    await expect(runCollector(shovelsCollector, { api })).rejects.toMatchObject({ status: 401 });
  });
});
