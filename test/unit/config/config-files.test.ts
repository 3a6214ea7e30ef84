// Issue 24: a password file that is a FIFO froze the process (readFileSync waits for a writer), and
// RABBITMQ_PASSWORD_FILE=/dev/zero grew to gigabytes without a word. Files are now refused when
// they are not regular files or are above their kind's cap, and read asynchronously under a deadline.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { ConfigError } from '../../../src/config/config-error.js';
import { FILE_CAPS, readAhead, readNow } from '../../../src/config/config-files.js';
import { filesNamedIn, loadConfig, loadConfigFromDisk } from '../../../src/config/load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'rmqexp-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fifo = join(dir, 'password.fifo');
execFileSync('mkfifo', [fifo]);

function yamlFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function refusal(load: () => unknown): Promise<string> {
  try {
    await load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}

describe.each([
  ['read synchronously (tests, tools)', loadConfig],
  ['read ahead, asynchronously (the exporter)', loadConfigFromDisk],
] as const)('%s', (_, load) => {
  it('refuses a FIFO as password file at once, naming the key and the path', async () => {
    const config = yamlFile('fifo.yaml', `targets:\n  - name: a\n    url: http://127.0.0.1:1\n    password_file: ${fifo}\n`);
    const message = await refusal(() => load({ config }, {}, COLLECTORS));
    expect(message).toBe(`config file ${config}: key "targets[0].password_file": ${fifo} cannot be read (not a regular file but a FIFO)`);
  });

  it('refuses /dev/zero as RABBITMQ_PASSWORD_FILE', async () => {
    const message = await refusal(() => load({}, { RABBITMQ_PASSWORD_FILE: '/dev/zero' }, COLLECTORS));
    expect(message).toBe('environment variable RABBITMQ_PASSWORD_FILE: key "target.password_file": /dev/zero cannot be read (not a regular file but a character device)');
  });

  it('refuses a password file above 64 KiB, and never quotes it', async () => {
    const big = yamlFile('big-secret', 'x'.repeat(FILE_CAPS.secret + 1));
    const message = await refusal(() => load({}, { RABBITMQ_PASSWORD_FILE: big }, COLLECTORS));
    expect(message).toBe(`environment variable RABBITMQ_PASSWORD_FILE: key "target.password_file": ${big} cannot be read (larger than 64 KiB, the most a password file may hold)`);
  });

  it('reads a password file of exactly 64 KiB, and a TLS file named by a target entry', async () => {
    const secret = yamlFile('secret', `${'s'.repeat(FILE_CAPS.secret - 1)}\n`);
    const ca = yamlFile('ca.pem', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const config = yamlFile('ok.yaml', `targets:\n  - name: a\n    url: https://127.0.0.1:1\n    password_file: ${secret}\n    tls:\n      ca_file: ${ca}\n`);
    const loaded = await load({ config }, {}, COLLECTORS);
    expect(loaded.targets[0]!.target.password).toBe('s'.repeat(FILE_CAPS.secret - 1));
    expect(loaded.targets[0]!.target.tls.ca?.toString()).toContain('MIIB');
  });

  it('refuses a config file above 4 MiB and a config file that is a FIFO', async () => {
    const huge = yamlFile('huge.yaml', `# ${'x'.repeat(FILE_CAPS.config)}\n`);
    expect(await refusal(() => load({ config: huge }, {}, COLLECTORS))).toBe(`config file ${huge}: cannot be read: larger than 4 MiB, the most a configuration file may hold (flag --config.file)`);
    expect(await refusal(() => load({ config: fifo }, {}, COLLECTORS))).toBe(`config file ${fifo}: cannot be read: not a regular file but a FIFO (flag --config.file)`);
  });
});

describe('reading ahead', () => {
  it('gives up a read that does not answer within the deadline, and shares it with the next reload', async () => {
    let reads = 0;
    const hung = () => {
      reads++;
      return new Promise<Buffer>(() => {});
    };
    const started = Date.now();
    const first = await readAhead([['/mnt/hung/secret', 'secret']], 50, hung);
    expect(() => first.read('/mnt/hung/secret', 'secret')).toThrow('no answer within 0.05 s');
    expect(Date.now() - started).toBeLessThan(2000);
    await readAhead([['/mnt/hung/secret', 'secret']], 50, hung);
    // A hung read keeps a thread of libuv's pool: the second reload waits on the same one.
    expect(reads).toBe(1);
  });

  // Issue 24: on a loop busy with 10,000 targets each step of a read waited for a turn of the loop, and the five steps of reading the config file took more than 5 s.
  it('a read that keeps finishing steps is not a hung one, however long it takes in all', async () => {
    const moving = (_path: string, _kind: string, stepDone: () => void) =>
      new Promise<Buffer>((resolve) => {
        setTimeout(stepDone, 30);
        setTimeout(stepDone, 60);
        setTimeout(() => resolve(Buffer.from('slow but moving')), 90);
      });
    const read = await readAhead([['/run/moving', 'secret']], 50, moving);
    expect(read.read('/run/moving', 'secret').toString()).toBe('slow but moving');
  });

  // Issue 24: under a fleet's load the deadline timer fired seconds late, before the finished read's callback, and the config file was called a hung mount.
  it('a deadline timer that fires late gives the read its wait again, a few times, then gives up', async () => {
    const late = () => {
      let calls = 0;
      // Armed at 0, then every reading says the timer came 10 s late.
      return () => (calls++ === 0 ? 0 : 10_000);
    };
    const slow = () => new Promise<Buffer>((resolve) => setTimeout(() => resolve(Buffer.from('pa55')), 70));
    const read = await readAhead([['/run/slow-secret', 'secret']], 50, slow, late());
    expect(read.read('/run/slow-secret', 'secret').toString()).toBe('pa55');

    const hung = () => new Promise<Buffer>(() => {});
    const alwaysLate = () => {
      let t = 0;
      return () => (t += 10_000);
    };
    const given = await readAhead([['/mnt/hung/late', 'secret']], 20, hung, alwaysLate());
    expect(() => given.read('/mnt/hung/late', 'secret')).toThrow('no answer within 0.02 s');
  });

  it('knows every file a configuration tree names', () => {
    const raw = {
      target: { password_file: '/run/top', tls: { ca_file: '/etc/ca.pem' } },
      targets: [{ name: 'a', password_file: '/run/a', tls: { cert_file: '/etc/a.crt', key_file: '/etc/a.key' } }, { name: 'b' }, 'not a mapping'],
    };
    expect(filesNamedIn(raw)).toEqual([
      ['/run/top', 'secret'],
      ['/etc/ca.pem', 'tls'],
      ['/run/a', 'secret'],
      ['/etc/a.crt', 'tls'],
      ['/etc/a.key', 'tls'],
    ]);
  });

  it('reads the same bytes as the synchronous reader', async () => {
    const file = yamlFile('same', 'secret\n');
    const ahead = await readAhead([[file, 'secret']]);
    expect(ahead.read(file, 'secret')).toEqual(readNow.read(file, 'secret'));
  });
});

// Issue 24: a reload of an unchanged configuration of 10,000 targets parsed, validated and resolved every entry again (15 s).
describe('loadConfigFromDisk given the configuration it read before', () => {
  it('answers that configuration when flags, environment and every file read are the same; a new one when any changed', async () => {
    const secret = yamlFile('same-secret', 'first\n');
    const config = yamlFile('same.yaml', `targets:\n  - name: a\n    url: http://127.0.0.1:1\n    password_file: ${secret}\n`);
    const before = await loadConfigFromDisk({ config }, { A: '1' }, COLLECTORS);
    expect(await loadConfigFromDisk({ config }, { A: '1' }, COLLECTORS, before)).toBe(before);

    const otherEnv = await loadConfigFromDisk({ config }, { A: '2' }, COLLECTORS, before);
    expect(otherEnv).not.toBe(before);
    expect(otherEnv).toEqual(before);

    writeFileSync(secret, 'second\n');
    const newSecret = await loadConfigFromDisk({ config }, { A: '1' }, COLLECTORS, before);
    expect(newSecret).not.toBe(before);
    expect(newSecret.targets[0]!.target.password).toBe('second');
    expect(await loadConfigFromDisk({ config }, { A: '1' }, COLLECTORS, newSecret)).toBe(newSecret);

    writeFileSync(config, `targets:\n  - name: b\n    url: http://127.0.0.1:1\n    password_file: ${secret}\n`);
    const newFile = await loadConfigFromDisk({ config }, { A: '1' }, COLLECTORS, newSecret);
    expect(newFile.targets.map((t) => t.target.name)).toEqual(['b']);
  });

  it('never answers a configuration it did not read (one from loadConfig)', async () => {
    const config = yamlFile('sync.yaml', 'targets:\n  - name: a\n    url: http://127.0.0.1:1\n');
    const fromSync = loadConfig({ config }, {}, COLLECTORS);
    expect(await loadConfigFromDisk({ config }, {}, COLLECTORS, fromSync)).not.toBe(fromSync);
  });
});
