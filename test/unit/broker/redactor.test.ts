import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { targetCredentials } from '../../../src/config/redacted-config.js';
import { createLogger } from '../../../src/log.js';
import { MIN_ANYWHERE, REDACTED, Redactor } from '../../../src/broker/redactor.js';
import { secretForms, secretsIn } from '../../support/reflecting-upstream.js';

const USER = 'monitor';
const PASSWORD = `s3:cr@t%2F/"q'ü€`;

describe('Redactor.redact', () => {
  const redactor = new Redactor({ username: USER, secrets: [PASSWORD] });

  it('removes every form of the password, wherever it stands', () => {
    for (const [name, form] of secretForms(USER, PASSWORD)) {
      if (name === 'half the base64') continue;
      const text = `before${form}after ${form}`;
      expect(redactor.redact(text), name).toBe(`before${REDACTED}after ${REDACTED}`);
    }
  });

  it('removes "Basic <base64>" and keeps the word Basic', () => {
    const b64 = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    expect(redactor.redact(`bad credentials: Basic ${b64}`)).toBe(`bad credentials: Basic ${REDACTED}`);
  });

  it('leaves the username alone, and text without secrets as it is', () => {
    expect(redactor.redact(`user ${USER} refused`)).toBe(`user ${USER} refused`);
    expect(redactor.redact('')).toBe('');
  });

  it(`a short password (under ${MIN_ANYWHERE} characters) only where it stands alone; its pair and base64 always`, () => {
    const short = new Redactor({ username: 'guest', secrets: ['a'] });
    expect(short.redact('a bad answer: a')).toBe(`${REDACTED} bad answer: ${REDACTED}`);
    expect(short.redact('password=a;')).toBe(`password=${REDACTED};`);
    expect(short.redact('guest:a')).toBe(REDACTED);
    expect(short.redact(`Basic ${Buffer.from('guest:a').toString('base64')}`)).toBe(`Basic ${REDACTED}`);
    const word = new Redactor({ username: 'u', secrets: ['guest'] });
    expect(word.redact('guests are welcome, guest')).toBe(`guests are welcome, ${REDACTED}`);
  });

  it('a password equal to the username is not removed alone (the username is shown on purpose); its pair and base64 are', () => {
    const same = new Redactor({ username: 'guest', secrets: ['guest'] });
    expect(same.redact('user guest')).toBe('user guest');
    expect(same.redact(`guest:guest Basic ${Buffer.from('guest:guest').toString('base64')}`)).toBe(`${REDACTED} Basic ${REDACTED}`);
  });

  it('removes other material (a private key line) as it is', () => {
    const line = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
    const withKey = new Redactor({ username: USER, secrets: [PASSWORD], material: [line] });
    expect(withKey.redact(`error near ${line}`)).toBe(`error near ${REDACTED}`);
  });

  it('an empty password redacts nothing', () => {
    expect(new Redactor({ username: USER, secrets: [''] }).redact(`${USER}: nothing`)).toBe(`${USER}: nothing`);
  });
});

describe('Redactor.excerpt', () => {
  const redactor = new Redactor({ username: USER, secrets: [PASSWORD] });

  it('one line, redacted, cut after redacting', () => {
    expect(redactor.excerpt(`a\n\n  b ${PASSWORD}\tc`)).toBe(`a b ${REDACTED} c`);
    const long = `${'x'.repeat(195)}${PASSWORD}`;
    expect(redactor.excerpt(long)).toBe(`${'x'.repeat(195)}<reda`);
    expect([...redactor.excerpt('é'.repeat(300))].length).toBe(200);
  });

  it('a password holding runs of white space is removed before they are collapsed', () => {
    const spaced = new Redactor({ username: USER, secrets: ['pass  word\n!'] });
    expect(spaced.excerpt('x pass  word\n! y')).toBe(`x ${REDACTED} y`);
  });

  it('a text cut by a byte cap loses an end that begins a secret form', () => {
    const b64 = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    const cut = `HTTP 500: Basic ${b64.slice(0, 10)}`;
    expect(redactor.excerpt(cut, 200, true)).toBe('HTTP 500: Basic');
    expect(redactor.excerpt(`password ${PASSWORD.slice(0, 12)}\uFFFD`, 200, true)).toBe('password');
    expect(redactor.excerpt('an ordinary end', 200, true)).toBe('an ordinary end');
  });
});

describe('the logger', () => {
  it('redacts known secrets in any field of any line, JSON-escaped as they are written', () => {
    const lines: string[] = [];
    const log = createLogger('debug', {
      redactor: () => new Redactor({ username: USER, secrets: [PASSWORD] }),
      destination: { write: (line: string) => void lines.push(line) },
    });
    const b64 = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    log.debug({ cause: `upstream said ${PASSWORD}`, nested: { deep: [`Basic ${b64}`] } }, `message with ${encodeURIComponent(PASSWORD)}`);
    log.error({ err: new Error(`failed: ${USER}:${PASSWORD}`) }, 'error');
    expect(lines).toHaveLength(2);
    expect(lines.join('')).toContain(REDACTED);
    expect(secretsIn(lines.join(''), secretForms(USER, PASSWORD))).toEqual([]);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('targetCredentials', () => {
  it('holds the password from the file, and a URL password that another source overrode', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmqexp-cred-'));
    const file = join(dir, 'password');
    writeFileSync(file, 'from-the-file\n');
    const config = loadConfig({}, {
      RABBITMQ_URL: `http://${USER}:${encodeURIComponent('url:p@ss/ü')}@localhost:15672`,
      RABBITMQ_PASSWORD_FILE: file,
    }, COLLECTORS);
    expect(config.target.url).toBe('http://localhost:15672');
    const credentials = targetCredentials(config.target);
    expect(credentials.username).toBe(USER);
    expect(credentials.secrets).toContain('from-the-file');
    expect(credentials.secrets).toContain('url:p@ss/ü');
    const redactor = new Redactor(credentials);
    expect(redactor.redact(`x url:p@ss/ü ${encodeURIComponent('url:p@ss/ü')} from-the-file`)).toBe(`x ${REDACTED} ${REDACTED} ${REDACTED}`);
  });
});
