/**
 * An upstream that quotes the request back, as some gateways and misconfigured proxies do: its
 * answers carry the Authorization header and every form of the credentials in it. Issue 16.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** How the upstream answers; each quotes the request. */
export const MODES = ['json-401', 'text-500', 'html-200', 'bad-json-200', 'cut-500', 'json-503'] as const;
export type Mode = (typeof MODES)[number];

export interface ReflectingUpstream {
  url: string;
  /** Answers per mode that quoted credentials, for requests to /api/overview and to other paths. */
  served: { overview: Map<Mode, number>; other: Map<Mode, number> };
  /** The mode of every answer from now on; undefined: cycle through MODES, per path kind. */
  mode: Mode | undefined;
  /** When true, /api/overview answers the recorded 3.10.8 overview instead. */
  overviewOk: boolean;
  close(): Promise<void>;
}

const OVERVIEW = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'rabbitmq-3.10.8', 'overview.json'), 'utf8');

/** Every form of the credentials in an Authorization header, as an echo might spell them. */
export function quotedCredentials(req: IncomingMessage): string {
  const authorization = req.headers.authorization ?? '';
  const b64 = authorization.replace(/^Basic /, '');
  const pair = Buffer.from(b64, 'base64').toString('utf8');
  const password = pair.slice(pair.indexOf(':') + 1);
  return [
    `authorization: ${authorization}`,
    `token=${b64.replace(/=+$/, '')} url-safe=${Buffer.from(pair).toString('base64url')} quoted=${encodeURIComponent(b64)}`,
    `user:password=${pair}`,
    `password=${password}`,
    `encoded=${encodeURIComponent(password)} form=${new URLSearchParams({ p: password }).toString().slice(2)}`,
    `lower=${encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}`,
    `pair-encoded=${encodeURIComponent(pair)} json=${JSON.stringify({ p: password })} ascii-json=${asciiJson(password)}`,
    `url=${req.url ?? ''}`,
  ].join('\n');
}

function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function answer(res: ServerResponse, mode: Mode, req: IncomingMessage): void {
  const quoted = quotedCredentials(req);
  switch (mode) {
    case 'json-401':
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not_authorized', reason: `bad credentials: ${quoted}` }));
      return;
    case 'json-503':
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'failed', reason: quoted }));
      return;
    case 'text-500':
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`upstream error for request:\n${JSON.stringify(req.headers)}\n${quoted}`);
      return;
    case 'html-200':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body><h1>Sign in</h1><pre>${quoted}</pre></body></html>`);
      return;
    case 'bad-json-200':
      // Starts with the header: JSON.parse quotes the start of the body in its message.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${req.headers.authorization ?? ''} ${quoted} {`);
      return;
    case 'cut-500': {
      // The client keeps the first 4096 bytes of an error answer: the cut halves the header's base64.
      const header = req.headers.authorization ?? '';
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${' '.repeat(4096 - 'Basic '.length - Math.ceil((header.length - 'Basic '.length) / 2))}${header}\n${quoted}`);
      return;
    }
  }
}

export async function reflectingUpstream(): Promise<ReflectingUpstream> {
  const cycles = { overview: 0, other: 0 };
  const upstream: ReflectingUpstream = {
    url: '',
    served: { overview: new Map(), other: new Map() },
    mode: undefined,
    overviewOk: false,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const kind = (req.url ?? '').split('?')[0] === '/api/overview' ? 'overview' : 'other';
    if (kind === 'overview' && upstream.overviewOk) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(OVERVIEW);
      return;
    }
    const mode = upstream.mode ?? (MODES[cycles[kind]++ % MODES.length] as Mode);
    if (req.headers.authorization) upstream.served[kind].set(mode, (upstream.served[kind].get(mode) ?? 0) + 1);
    answer(res, mode, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

/**
 * The forms of a password a reader could use: written out here, not taken from the redactor, so
 * a form the redactor forgets fails the search.
 */
export function secretForms(username: string, password: string): Map<string, string> {
  const pair = `${username}:${password}`;
  const b64 = Buffer.from(pair).toString('base64');
  const forms = new Map<string, string>([
    ['password', password],
    ['username:password', pair],
    ['base64', b64],
    ['base64 unpadded', b64.replace(/=+$/, '')],
    ['base64url', Buffer.from(pair).toString('base64url')],
    ['base64 URL-encoded', encodeURIComponent(b64)],
    ['URL-encoded password', encodeURIComponent(password)],
    ['URL-encoded password, lower-case hex', encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
    ['form-encoded password', new URLSearchParams({ p: password }).toString().slice(2)],
    ['URL-encoded pair', encodeURIComponent(pair)],
    ['JSON-escaped password', JSON.stringify(password).slice(1, -1)],
    ['ASCII JSON-escaped password', asciiJson(password).slice(1, -1)],
    // What survives a cut in the middle of the header: its first half.
    ['half the base64', b64.slice(0, Math.ceil(b64.length / 2))],
  ]);
  return forms;
}

/** The names of the forms found in the text, read as it is and decoded (JSON strings, HTML entities). */
export function secretsIn(text: string, forms: Map<string, string>): string[] {
  const readings = [text, decodeHtml(text), ...jsonStrings(text)];
  return [...forms].filter(([, form]) => readings.some((r) => r.includes(form))).map(([name]) => name);
}

function decodeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The string values of each JSON line of the text (log lines), joined per line. */
function jsonStrings(text: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') out.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      walk(JSON.parse(line));
    } catch {
      /* not a JSON line */
    }
  }
  return out;
}

export const USER = 'mon@itör';

/** Where the password comes from, and the password: `:`, `@`, `%`, `/`, quotes and non-ASCII in each. */
export interface PasswordSource {
  name: string;
  password: string;
  /** Config file text, environment and files for a target at `url`. */
  setup(dir: string, url: string): { yaml: string; env: Record<string, string> };
}

export const PASSWORD_SOURCES: PasswordSource[] = [
  {
    name: 'config file',
    password: `cf:p@ss%2F/"q'ü€ 1`,
    setup: (_dir, url) => ({ yaml: `target:\n  url: ${url}\n  username: ${JSON.stringify(USER)}\n  password: ${JSON.stringify(`cf:p@ss%2F/"q'ü€ 1`)}\n`, env: {} }),
  },
  {
    name: 'RABBITMQ_PASSWORD',
    password: `env:P@ss%25/"'é✓+x`,
    setup: (_dir, url) => ({ yaml: `target:\n  url: ${url}\n`, env: { RABBITMQ_USERNAME: USER, RABBITMQ_PASSWORD: `env:P@ss%25/"'é✓+x` } }),
  },
  {
    name: 'password file',
    password: `fi:le@pw%/"'ß€`,
    setup: (dir, url) => {
      const file = join(dir, 'password');
      writeFileSync(file, `fi:le@pw%/"'ß€\n`);
      return { yaml: `target:\n  url: ${url}\n  username: ${JSON.stringify(USER)}\n  password_file: ${file}\n`, env: {} };
    },
  },
  {
    name: 'URL',
    password: `u:r@l%/"'ü€`,
    setup: (_dir, url) => ({
      yaml: 'target: {}\n',
      env: { RABBITMQ_URL: url.replace('://', `://${encodeURIComponent(USER)}:${encodeURIComponent(`u:r@l%/"'ü€`)}@`) },
    }),
  },
];

