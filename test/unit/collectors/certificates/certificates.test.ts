// Issue 26, signal 6: certificate expiry dates from the certificate-expiration check's 503 answer,
// read through the real management client from a local HTTP server that answers as the broker does
// (rabbit_mgmt_wm_health_check_certificate_expiration: status, reason, expired[] with dates
// printed `~w-~2.2.0w-~2.2.0w ~w:~2.2.0w:~2.2.0w`, an hour without leading zero).
import { afterEach, describe, expect, it } from 'vitest';
import { certificatesCollector } from '../../../../src/collectors/certificates/collector.js';
import { expiryDates, parseBrokerDate } from '../../../../src/collectors/certificates/expiry-dates.js';
import { client, cleanups, server } from '../../broker/management-client/client-fixtures.js';
import { BROKER_3_10_8, runCollector } from '../../../support/run-collector.js';

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const EXPIRY = 'rabbitmq_certificate_expiry_timestamp_seconds';
const listener = (fields: Record<string, unknown>) => ({
  node: 'rabbit@h', protocol: 'amqp/ssl', interface: '127.0.0.1', port: 5671, certfile: '/etc/x/server.pem', cacertfile: '/etc/x/ca.pem', ...fields,
});
const FAILED = {
  status: 'failed',
  reason: 'Certificates expiring',
  expired: [
    listener({ certfile_expires_on: ['2026-12-01 9:05:03'], cacertfile_expires_on: ['2027-01-01 10:00:00', '2026-12-15 0:00:00'] }),
    listener({ protocol: 'https', port: 15671, certfile_expires_on: ['2030-06-30 23:59:59'], cacertfile_expires_on: [] }),
  ],
};

async function brokerAnswering(status: number, body: unknown) {
  const paths: string[] = [];
  const s = await server((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  return { api: client(s.url), paths };
}

describe('certificate expiry dates', () => {
  it('parses the broker\'s dates as UTC, hour with or without a leading zero', () => {
    expect(parseBrokerDate('2026-12-01 9:05:03')).toBe(Date.UTC(2026, 11, 1, 9, 5, 3) / 1000);
    expect(parseBrokerDate('2026-12-01 09:05:03')).toBe(Date.UTC(2026, 11, 1, 9, 5, 3) / 1000);
    expect(parseBrokerDate('2026-12-01T09:05:03Z')).toBeUndefined();
    expect(parseBrokerDate(42)).toBeUndefined();
  });

  it('takes the earliest date of each file; a file that could not be read is reported, not served', () => {
    const { dates, unreadable, listeners } = expiryDates({
      ...FAILED,
      expired: [...FAILED.expired, listener({ port: 5673, certfile_expires_on: { error: 'The certificate file provided does not contain any PEM entry.' }, cacertfile_expires_on: [] })],
    });
    expect(listeners).toBe(3);
    expect(dates.map((d) => [d.port, d.file, d.expiresAt])).toEqual([
      ['5671', 'certfile', Date.UTC(2026, 11, 1, 9, 5, 3) / 1000],
      ['5671', 'cacertfile', Date.UTC(2026, 11, 15, 0, 0, 0) / 1000],
      ['15671', 'certfile', Date.UTC(2030, 5, 30, 23, 59, 59) / 1000],
    ]);
    expect(unreadable).toEqual([{ node: 'rabbit@h', port: '5673', file: 'certfile', reason: expect.stringContaining('PEM entry') }]);
    expect(expiryDates({ status: 'ok' })).toEqual({ dates: [], unreadable: [], listeners: 0 });
  });

  it('reads the 503 answer through the client and serves one series per listener and file', async () => {
    const { api, paths } = await brokerAnswering(503, FAILED);
    const r = await runCollector(certificatesCollector, { api, options: {}, broker: BROKER_3_10_8 });
    expect(paths).toEqual(['/api/health/checks/certificate-expiration/100/years']);
    expect(r.value(EXPIRY, { node: 'rabbit@h', protocol: 'amqp/ssl', interface: '127.0.0.1', port: '5671', file: 'certfile' })).toBe(Date.UTC(2026, 11, 1, 9, 5, 3) / 1000);
    expect(r.value(EXPIRY, { node: 'rabbit@h', protocol: 'amqp/ssl', interface: '127.0.0.1', port: '5671', file: 'cacertfile' })).toBe(Date.UTC(2026, 11, 15) / 1000);
    expect(r.value(EXPIRY, { node: 'rabbit@h', protocol: 'https', interface: '127.0.0.1', port: '15671', file: 'certfile' })).toBe(Date.UTC(2030, 5, 30, 23, 59, 59) / 1000);
    expect(r.family(EXPIRY)).toHaveLength(3);
    expect(r.value('rabbitmq_certificate_listeners', { node: 'rabbit@h' })).toBe(2);
  });

  it('a broker without TLS listeners answers 200 ok: no dates, 0 listeners', async () => {
    const { api, paths } = await brokerAnswering(200, { status: 'ok' });
    const r = await runCollector(certificatesCollector, { api, options: { window_years: 5 }, broker: BROKER_3_10_8 });
    expect(r.family(EXPIRY)).toHaveLength(0);
    expect(paths).toEqual(['/api/health/checks/certificate-expiration/5/years']);
    expect(r.value('rabbitmq_certificate_listeners', { node: 'rabbit@vm' })).toBe(0);
  });

  it('other failures stay failures: a 500 fails the poll', async () => {
    const { api, paths } = await brokerAnswering(500, { error: 'boom' });
    await expect(runCollector(certificatesCollector, { api, options: {}, broker: BROKER_3_10_8 })).rejects.toThrow(/HTTP 500/);
    expect(paths).toEqual(['/api/health/checks/certificate-expiration/100/years']);
  });

  it('the answerStatuses limit is per request: without it a 503 is an error', async () => {
    const { api } = await brokerAnswering(503, FAILED);
    await expect(api.getJson('/api/health/checks/certificate-expiration/100/years')).rejects.toThrow(/HTTP 503/);
    await expect(api.getJson('/api/health/checks/certificate-expiration/100/years', undefined, { answerStatuses: [503] })).resolves.toEqual(FAILED);
  });
});
