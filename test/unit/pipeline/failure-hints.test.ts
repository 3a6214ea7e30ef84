// Issue 32 item 7: each logged failure names the likely cause and the setting to change.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ManagementError } from '../../../src/broker/errors.js';
import { ManagementClient } from '../../../src/broker/management-client.js';
import { failureHint, type HintLogin } from '../../../src/pipeline/failure-hints.js';
import { closedPort, serve, type TestServer } from '../../support/http-server.js';

const LOGIN: HintLogin = { url: 'http://broker.example:15672', username: 'monitoring', passwordSource: 'environment variable RABBITMQ_PASSWORD' };

const hintOf = (error: unknown, login: HintLogin = LOGIN, collector = 'nodes') =>
  failureHint({ collector, error, deadlinePassed: false, timeoutMs: 30_000 }, login);

/** What the real client makes of a request to `url`. */
async function errorFrom(url: string): Promise<ManagementError> {
  const client = new ManagementClient({
    url,
    username: 'monitoring',
    password: 's3cr3t',
    timeouts: { connectMs: 2000, headersMs: 2000, bodyMs: 2000, totalMs: 3000 },
    maxResponseBytes: 1024,
    maxConcurrentRequests: 1,
  });
  try {
    await client.getJson('/api/overview');
    throw new Error('the request succeeded');
  } catch (error) {
    if (!(error instanceof ManagementError)) throw error;
    return error;
  } finally {
    await client.close();
  }
}

let servers: { close(): Promise<void> | void }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** A port that answers like RabbitMQ's AMQP listener does to an HTTP request: its protocol header, then it closes. */
async function amqpLikePort(): Promise<number> {
  const server: Server = createServer((socket) => {
    socket.once('data', () => socket.end(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  servers.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return (server.address() as { port: number }).port;
}

describe('failureHint', () => {
  it('a poll deadline: the collector\'s timeout setting; for the overview, that it decides rabbitmq_up', () => {
    expect(failureHint({ collector: 'queues', error: new Error('aborted'), deadlinePassed: true, timeoutMs: 30_000 }, LOGIN)).toBe(
      'the queues poll took longer than its deadline of 30 s: raise collectors.queues.timeout, or find why the broker answers slowly (a long list, a loaded node)',
    );
    expect(failureHint({ collector: 'overview', error: new Error('aborted'), deadlinePassed: true, timeoutMs: 10_500 }, LOGIN)).toContain(
      'deadline of 10500 ms (its polls decide rabbitmq_up): raise collectors.overview.timeout',
    );
  });

  it('a 401: which user, and where its password came from; never the password', () => {
    const refused = new ManagementError('http_status', '/api/overview', 'HTTP 401 (not_authorized: Login failed)', 401);
    expect(hintOf(refused)).toBe(
      'the broker refused user "monitoring" (HTTP 401): check the user name (target.username, RABBITMQ_USERNAME) and its password, which came from environment variable RABBITMQ_PASSWORD',
    );
    expect(hintOf(refused, { ...LOGIN, passwordSource: 'file /run/secrets/mq' })).toContain('which came from the password file /run/secrets/mq (target.password_file or RABBITMQ_PASSWORD_FILE');
    expect(hintOf(refused, { ...LOGIN, passwordSource: 'config file' })).toContain('which came from target.password in the config file');
    expect(hintOf(refused, { ...LOGIN, passwordSource: 'url' })).toContain('which came from the user information of target.url');
    expect(hintOf(refused, { ...LOGIN, username: 'guest', passwordSource: 'default' })).toContain('guest is used, which RabbitMQ accepts only from localhost');
    const notManagement = new ManagementError('http_status', '/api/overview', 'HTTP 401 (not_authorized: Not management user)', 401);
    expect(hintOf(notManagement)).toBe(
      'user "monitoring" has no management tag: give it the monitoring tag (rabbitmqctl set_user_tags monitoring monitoring), or set target.username to a user that has it',
    );
  });

  it('a 403, a 404 and a 5xx', () => {
    expect(hintOf(new ManagementError('http_status', '/api/queues/a', 'HTTP 403', 403))).toContain('user "monitoring" may not read /api/queues/a: it needs the monitoring tag and read permission');
    expect(hintOf(new ManagementError('http_status', '/api/overview', 'HTTP 404', 404))).toContain('is target.url the management root (http://host:15672, no path)');
    expect(hintOf(new ManagementError('http_status', '/api/nodes', 'HTTP 503', 503))).toContain("(HTTP 503): see the broker's log");
  });

  it('a URL ending in /api: it must be the management root without /api', () => {
    const login = { ...LOGIN, url: 'http://broker.example:15672/api' };
    const hint = 'target.url ends in /api: it must be the management root without /api (e.g. http://broker.example:15672), the exporter adds /api/... itself';
    expect(hintOf(new ManagementError('http_status', '/api/api/overview', 'HTTP 404', 404), login)).toBe(hint);
    expect(hintOf(new ManagementError('malformed_json', '/api/api/overview', 'HTTP 200 with a body that is not JSON', 200), { ...login, url: `${login.url}/` })).toBe(hint);
  });

  it('a non-HTTP answer on the port (real client against an AMQP-like listener): the AMQP port hint', async () => {
    const port = await amqpLikePort();
    const error = await errorFrom(`http://127.0.0.1:${port}`);
    expect(error.kind).toBe('network');
    expect(hintOf(error, { ...LOGIN, url: `http://127.0.0.1:${port}` })).toBe(
      `127.0.0.1:${port} does not answer in HTTP: this looks like the AMQP port (5672); the management API is usually on 15672 (15671 with TLS): change target.url`,
    );
    // The port alone says so too, whatever the error.
    expect(hintOf(new ManagementError('network', '/api/overview', 'UND_ERR_SOCKET: other side closed'), { ...LOGIN, url: 'http://mq:5672' })).toContain('this looks like the AMQP port (5672)');
  });

  it('connection refused (real client against a closed port)', async () => {
    const port = await closedPort();
    const error = await errorFrom(`http://127.0.0.1:${port}`);
    expect(hintOf(error, { ...LOGIN, url: `http://127.0.0.1:${port}` })).toBe(
      `nothing listens at 127.0.0.1:${port}: is the broker running with the management plugin enabled (rabbitmq-plugins enable rabbitmq_management), and is target.url's port the management one (usually 15672)?`,
    );
  });

  it('https:// to a plain HTTP port (real client): the port does not speak TLS', async () => {
    const server: TestServer = await serve((_req, res) => res.end('{}'));
    servers.push(server);
    const url = server.url.replace('http://', 'https://');
    const error = await errorFrom(url);
    expect(hintOf(error, { ...LOGIN, url })).toContain('does not speak TLS: use http:// in target.url, or the management TLS port (usually 15671)');
  });

  it('TLS certificate problems, host names, timeouts, a closed connection, a non-JSON answer', () => {
    const network = (detail: string) => new ManagementError('network', '/api/overview', detail);
    expect(hintOf(network('UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate'), { ...LOGIN, url: 'https://mq:15671' })).toContain('set target.tls.ca_file to the CA that signed it');
    expect(hintOf(network('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate'), { ...LOGIN, url: 'https://mq:15671' })).toContain('target.tls.ca_file');
    expect(hintOf(network("ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames"), { ...LOGIN, url: 'https://mq:15671' })).toContain(
      "the broker's certificate does not name mq: use a host name it was issued for in target.url",
    );
    expect(hintOf(network('ENOTFOUND: getaddrinfo ENOTFOUND broker.example'))).toBe('the host name of target.url (broker.example) does not resolve: check it');
    expect(hintOf(network('UND_ERR_SOCKET: other side closed'))).toContain('if that port serves TLS, use https:// in target.url');
    const timeout = (detail: string) => new ManagementError('timeout', '/api/overview', detail);
    expect(hintOf(timeout('UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error'))).toContain('target.timeouts.connect');
    expect(hintOf(timeout('UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error'))).toContain('target.timeouts.headers');
    expect(hintOf(timeout('UND_ERR_BODY_TIMEOUT: Body Timeout Error'))).toContain('target.timeouts.body');
    expect(hintOf(timeout('no complete answer within 60000 ms'))).toContain('target.timeouts.request');
    expect(hintOf(new ManagementError('malformed_json', '/api/overview', 'HTTP 200 with a body that is not JSON', 200))).toContain('it must be the management root (usually port 15672)');
  });

  it('no hint where the error names its setting already, or for a collector\'s own error', () => {
    expect(hintOf(new ManagementError('too_large', '/api/queues', 'over the cap of 160 MiB (target.max_response_bytes)'))).toBeUndefined();
    expect(hintOf(new Error('a bug'))).toBeUndefined();
  });
});
