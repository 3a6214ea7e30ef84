// `rabbitmq-exporter hash-password`: a bcrypt hash for the web config without installing htpasswd.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/server/hash-password.js';
import { readWebConfig } from '../../../src/server/web-config.js';
import { PROMTOOL, skipWithoutPromtool } from '../../support/required-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'rmqexp-hash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collected(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** A terminal's input: isTTY, raw mode, keys typed as they come. */
function terminal(keys: string): NodeJS.ReadStream {
  const input = new PassThrough() as unknown as NodeJS.ReadStream & { rawMode: boolean[] };
  const setRawMode = (on: boolean) => {
    input.rawMode.push(on);
    return input;
  };
  Object.assign(input, { isTTY: true, rawMode: [], setRawMode });
  setImmediate(() => input.write(keys));
  return input;
}

describe('hash-password', () => {
  it('hashes the first line of a pipe at cost 10, which bcrypt and the web config accept', async () => {
    const [out, err] = [collected(), collected()];
    const input = new PassThrough();
    input.end('correct horse battery\nsecond line\n');
    expect(await hashPassword([], { input, out: out.stream, err: err.stream })).toBe(0);
    const hash = out.text().trim();
    expect(hash).toMatch(/^\$2[aby]\$10\$[./A-Za-z0-9]{53}$/);
    expect(await bcrypt.compare('correct horse battery', hash)).toBe(true);
    const file = join(dir, 'web.yml');
    writeFileSync(file, `basic_auth_users:\n  prometheus: ${hash}\n`);
    expect([...readWebConfig(file).users]).toEqual([['prometheus', hash]]);
    expect(err.text()).toBe('');
  });

  it('on a terminal asks twice without echo, and refuses two different passwords', async () => {
    const [out, err] = [collected(), collected()];
    expect(await hashPassword(['--cost', '4'], { input: terminal('s3cret\rs3cret\r'), out: out.stream, err: err.stream })).toBe(0);
    expect(await bcrypt.compare('s3cret', out.text().trim())).toBe(true);
    expect(err.text()).toBe('Password: \nAgain: \n');
    expect(err.text()).not.toContain('s3cret');
    const [out2, err2] = [collected(), collected()];
    expect(await hashPassword(['--cost=4'], { input: terminal('alpha-1\rbeta-2\r'), out: out2.stream, err: err2.stream })).toBe(1);
    expect(out2.text()).toBe('');
    expect(err2.text()).toContain('the two passwords differ');
    expect(err2.text()).not.toMatch(/alpha-1|beta-2/);
  });

  it('refuses an empty password and a cost out of range', async () => {
    const empty = new PassThrough();
    empty.end('\n');
    const err = collected();
    expect(await hashPassword([], { input: empty, out: collected().stream, err: err.stream })).toBe(1);
    expect(err.text()).toContain('the password is empty');
    for (const args of [['--cost', '3'], ['--cost', '32'], ['--cost', 'ten'], ['--rounds', '10']]) {
      expect(await hashPassword(args, { input: new PassThrough(), out: collected().stream, err: collected().stream }), args.join(' ')).toBe(2);
    }
  });

  it.skipIf(skipWithoutPromtool)('promtool check web-config accepts a file with the hash', async () => {
    const out = collected();
    const input = new PassThrough();
    input.end('pw\n');
    await hashPassword(['--cost', '4'], { input, out: out.stream, err: collected().stream });
    const file = join(dir, 'promtool-web.yml');
    writeFileSync(file, `basic_auth_users:\n  prometheus: ${out.text().trim()}\n`);
    const result = spawnSync(PROMTOOL, ['check', 'web-config', file], { encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
  });
});
