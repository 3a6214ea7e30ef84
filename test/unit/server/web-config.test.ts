import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWebConfig, WebConfigError } from '../../../src/server/web-config.js';
import { makePki } from '../../support/pki.js';

// A bcrypt hash of "scrape-pw" (cost 4 keeps the tests quick; htpasswd -nBC 10 makes real ones).
const HASH = bcrypt.hashSync('scrape-pw', 4);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rmqexp-webcfg-'));
  makePki(dir);
  // Another key of the certificate's type (P-256), and one of another type (RSA), which OpenSSL
  // would hold apart from the certificate rather than refuse.
  writeFileSync(join(dir, 'other.key'), spawnSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], { encoding: 'utf8' }).stdout);
  writeFileSync(join(dir, 'other-rsa.key'), spawnSync('openssl', ['genrsa', '2048'], { encoding: 'utf8' }).stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** What Debian's promtool (2.42) says of the same file, or undefined when promtool is missing. */
function promtool(path: string): boolean | undefined {
  const run = spawnSync('promtool', ['check', 'web-config', path], { encoding: 'utf8' });
  return run.error ? undefined : run.status === 0;
}

function refused(path: string): string {
  try {
    readWebConfig(path);
  } catch (error) {
    expect(error).toBeInstanceOf(WebConfigError);
    return (error as Error).message;
  }
  throw new Error(`${path} was accepted`);
}

describe('readWebConfig: files promtool check web-config accepts', () => {
  it('basic_auth_users only: users, no TLS', () => {
    const path = file('auth.yml', `basic_auth_users:\n  prometheus: ${HASH}\n`);
    const config = readWebConfig(path);
    expect(config.tls).toBeUndefined();
    expect([...config.users]).toEqual([['prometheus', HASH]]);
    expect(promtool(path)).not.toBe(false);
  });

  it('TLS with files relative to the web config, client certificates verified, versions, ciphers, curves, headers', () => {
    const path = file(
      'tls.yml',
      [
        'tls_server_config:',
        '  cert_file: server.pem',
        '  key_file: server.key',
        '  client_auth_type: RequireAndVerifyClientCert',
        '  client_ca_file: ca.pem',
        '  min_version: TLS12',
        '  max_version: TLS13',
        '  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]',
        '  curve_preferences: [X25519, CurveP256]',
        'http_server_config:',
        '  http2: false',
        '  headers:',
        '    X-Frame-Options: deny',
        '    Strict-Transport-Security: max-age=31536000',
        '',
      ].join('\n'),
    );
    const config = readWebConfig(path);
    expect(config.tls).toMatchObject({
      files: [join(dir, 'server.pem'), join(dir, 'server.key'), join(dir, 'ca.pem')],
      clientAuth: 'RequireAndVerifyClientCert',
      context: { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384', ecdhCurve: 'X25519:P-256', honorCipherOrder: true },
    });
    expect(config.headers).toEqual({ 'X-Frame-Options': 'deny', 'Strict-Transport-Security': 'max-age=31536000' });
    expect(promtool(path)).not.toBe(false);
  });

  it('an empty mapping: nothing required (no TLS, no users)', () => {
    const path = file('empty-map.yml', '{}\n');
    expect(readWebConfig(path)).toMatchObject({ tls: undefined, headers: {} });
    expect(readWebConfig(path).users.size).toBe(0);
    expect(promtool(path)).not.toBe(false);
  });

  it('newer toolkit keys promtool 2.42 does not know yet: inline certificates, allowed SANs, rate_limit', async () => {
    const { readFileSync } = await import('node:fs');
    const indent = (text: string) => text.trim().split('\n').map((l) => `    ${l}`).join('\n');
    const path = file(
      'newer.yml',
      `tls_server_config:\n  cert: |\n${indent(readFileSync(join(dir, 'server.pem'), 'utf8'))}\n  key: |\n${indent(readFileSync(join(dir, 'server.key'), 'utf8'))}\n` +
        `  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [client]\nrate_limit:\n  interval: 100ms\n  burst: 5\n`,
    );
    const config = readWebConfig(path);
    expect(config.tls).toMatchObject({ files: [], clientAuth: 'RequireAnyClientCert', allowedSans: ['client'] });
    expect(config.rateLimit).toEqual({ intervalMs: 100, burst: 5 });
  });
});

describe('readWebConfig: files it refuses, naming the key (promtool refuses them too)', () => {
  it.each([
    ['unknown key', 'basic_auth_user:\n  a: x\n', 'key "basic_auth_user": unknown key'],
    ['unknown TLS key', 'tls_server_config:\n  certfile: server.pem\n', 'key "tls_server_config.certfile": unknown key'],
    ['a password that is not a bcrypt hash', 'basic_auth_users:\n  prometheus: scrape-pw\n', 'key "basic_auth_users.prometheus": is not a bcrypt hash'],
    ['a header that cannot be set', 'http_server_config:\n  headers:\n    X-Powered-By: me\n', 'key "http_server_config.headers.X-Powered-By": cannot be set'],
    ['a header value that is not allowed', 'http_server_config:\n  headers:\n    X-Frame-Options: allow\n', 'key "http_server_config.headers.X-Frame-Options": must be one of deny, sameorigin'],
    ['a missing certificate file', 'tls_server_config:\n  cert_file: nope.pem\n  key_file: server.key\n', `key "tls_server_config.cert_file": ${'DIR'}/nope.pem cannot be read (ENOENT)`],
    ['a key without a certificate', 'tls_server_config:\n  key_file: server.key\n', 'key "tls_server_config": missing one of cert or cert_file'],
    ['a key that does not match the certificate', 'tls_server_config:\n  cert_file: server.pem\n  key_file: other.key\n', 'key "tls_server_config.cert_file": the certificate and key cannot be used'],
    ['a key of another type than the certificate', 'tls_server_config:\n  cert_file: server.pem\n  key_file: other-rsa.key\n', 'key "tls_server_config.cert_file": the certificate and key cannot be used'],
    ['a client CA without client authentication', 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_ca_file: ca.pem\n', 'key "tls_server_config.client_auth_type": a client CA is configured'],
    ['an unknown client_auth_type', 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  client_auth_type: Always\n', 'key "tls_server_config.client_auth_type": is not a client_auth_type'],
    ['an unknown TLS version', 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  min_version: SSL3\n', 'key "tls_server_config.min_version": is not a TLS version'],
    ['an unknown cipher suite', 'tls_server_config:\n  cert_file: server.pem\n  key_file: server.key\n  cipher_suites: [TLS_FOO]\n', 'key "tls_server_config.cipher_suites.0": is not a TLS 1.2 cipher suite'],
    ['not YAML', 'basic_auth_users: [\n', 'not valid YAML'],
  ])('%s', (_what, text, message) => {
    const path = file('bad.yml', text);
    expect(refused(path)).toContain(`web config file ${path}: ${message.replace('DIR', dir)}`);
    expect(promtool(path)).not.toBe(true);
  });

  // Issue 24: an empty file turned basic auth off with one info line. (promtool accepts it; a
  // file emptied by mistake, or read half written, is what this refuses.)
  it('an empty file, or one of comments only, is refused, naming it', () => {
    const files: [string, string][] = [['empty.yml', ''], ['blank.yml', '\n  \n'], ['comments.yml', '# basic_auth_users:\n#   prometheus: x\n']];
    for (const [name, text] of files) {
      expect(refused(file(name, text))).toBe(
        `web config file ${join(dir, name)}: is empty; it would turn TLS and basic auth off. Give its settings, or start without --web.config.file to serve plain HTTP to anyone`,
      );
    }
  });

  it('an unreadable file names it', () => {
    expect(refused(join(dir, 'missing.yml'))).toBe(`web config file ${join(dir, 'missing.yml')}: cannot be read (ENOENT)`);
  });
});
