/**
 * Records management API answers of a private node into a fixture directory, with a README
 * naming the request and HTTP status of each file (test/record/*.record.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrokerInfo } from '../harness/broker/broker.js';

interface Entry {
  file: string;
  request: string;
  status: number;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Recorder {
  readonly entries: Entry[] = [];
  constructor(
    private readonly broker: BrokerInfo,
    private readonly dir: string,
  ) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
  }

  private async call(method: string, p: string, body?: unknown, auth = `${this.broker.username}:${this.broker.password}`) {
    const res = await fetch(`${this.broker.managementUrl}${p}`, {
      method,
      headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, text };
  }

  async put(p: string, body: unknown): Promise<void> {
    const r = await this.call('PUT', p, body);
    if (r.status >= 300) throw new Error(`PUT ${p}: HTTP ${r.status} ${r.text}`);
  }

  async post(p: string, body: unknown): Promise<void> {
    const r = await this.call('POST', p, body);
    if (r.status >= 300) throw new Error(`POST ${p}: HTTP ${r.status} ${r.text}`);
  }

  /** GET `p` and store the answer (whatever its status) as `file`. */
  async record(file: string, p: string, auth?: string): Promise<number> {
    const r = await this.call('GET', p, undefined, auth);
    let body: string;
    try {
      body = JSON.stringify(sortKeys(JSON.parse(r.text)), null, 2);
    } catch {
      body = JSON.stringify({ non_json_body: r.text }, null, 2);
    }
    fs.writeFileSync(path.join(this.dir, file), `${body}\n`);
    this.entries.push({ file, request: `GET ${p}${auth ? ' (wrong password)' : ''}`, status: r.status });
    return r.status;
  }

  writeReadme(title: string, about: string[]): void {
    const rows = this.entries.map((e) => `| ${e.file} | ${e.request.replace(/\|/g, '\\|')} | ${e.status} |`);
    fs.writeFileSync(
      path.join(this.dir, 'README.md'),
      [`# ${title}`, '', ...about, '', '| file | request | status |', '|---|---|---|', ...rows, ''].join('\n'),
    );
  }
}

