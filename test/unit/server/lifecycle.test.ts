// Issue 24: POST /-/reload was reachable cross-site with auth off (a form POST from any page the
// operator visited got 200), a wrong method on a known path answered 404, and a reload whose
// changes need a restart answered plain "configuration reloaded".
import type { Server } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createApp } from '../../../src/server/app.js';
import type { ReloadAnswer } from '../../../src/server/reload-endpoint.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** The app with a reload that counts its calls and answers `answer`. */
async function start(answer: ReloadAnswer = { ok: true }): Promise<{ port: number; reloads: () => number }> {
  let reloads = 0;
  const app = createApp(() => [], pino({ level: 'silent' }), {
    reload: async () => {
      reloads++;
      return answer;
    },
  });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return { port: (server.address() as AddressInfo).port, reloads: () => reloads };
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

it('refuses a cross-site POST /-/reload (foreign Origin, Sec-Fetch-Site, a form content type) with 403, without reloading', async () => {
  const { port, reloads } = await start();
  const refused: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { origin: `http://127.0.0.1:${port + 1}` },
    { 'sec-fetch-site': 'cross-site' },
    { 'content-type': 'application/x-www-form-urlencoded' },
    { 'content-type': 'multipart/form-data; boundary=x' },
    { 'content-type': 'text/plain;charset=UTF-8' },
  ];
  for (const headers of refused) {
    const res = await send(port, 'POST', '/-/reload', headers, 'a=b');
    expect(res.status, JSON.stringify(headers)).toBe(403);
    expect(res.text).toMatch(/^configuration not reloaded: /);
  }
  expect(reloads()).toBe(0);
});

it('reloads on a POST without a browser, or from its own origin', async () => {
  const { port, reloads } = await start();
  const allowed: Record<string, string>[] = [{}, { origin: `http://127.0.0.1:${port}` }, { 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }];
  for (const headers of allowed) {
    const res = await send(port, 'POST', '/-/reload', headers);
    expect(res.status, JSON.stringify(headers)).toBe(200);
    expect(res.text).toBe('configuration reloaded\n');
  }
  expect(reloads()).toBe(3);
});

it('says which settings wait for a restart when the reload read some', async () => {
  const { port } = await start({ ok: true, restartRequired: ['web.listen_address', 'log.format'] });
  const res = await send(port, 'POST', '/-/reload');
  expect(res.status).toBe(200);
  expect(res.text).toBe('configuration reloaded, except what only a restart applies: web.listen_address, log.format keep their running values until the exporter restarts\n');
});

it('answers a wrong method on a known path with 405 and Allow; unknown paths stay 404', async () => {
  const { port } = await start();
  for (const [method, path, allow] of [
    ['GET', '/-/reload', 'POST'],
    ['POST', '/metrics', 'GET, HEAD'],
    ['DELETE', '/-/healthy', 'GET, HEAD'],
    ['PUT', '/probe', 'GET, HEAD'],
    ['POST', '/', 'GET, HEAD'],
  ] as const) {
    const res = await send(port, method, path);
    expect(res.status, `${method} ${path}`).toBe(405);
    expect(res.headers.allow).toBe(allow);
  }
  expect((await send(port, 'POST', '/metricz')).status).toBe(404);
});
