import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { parseDocument } from 'yaml';
import { z } from 'zod';

/**
 * The web configuration file of the Prometheus exporter-toolkit (`--web.config.file`): TLS on the
 * listener, basic auth with bcrypt hashes, response headers, a rate limit. The same file passes
 * `promtool check web-config`. Relative paths are relative to the file's own directory, as there.
 */
export interface WebConfig {
  file: string;
  tls?: TlsSettings;
  /** User name → bcrypt hash. Empty: no authentication. */
  users: ReadonlyMap<string, string>;
  headers: Readonly<Record<string, string>>;
  rateLimit?: { intervalMs: number; burst: number };
}

export type ClientAuth = 'NoClientCert' | 'RequestClientCert' | 'RequireAnyClientCert' | 'VerifyClientCertIfGiven' | 'RequireAndVerifyClientCert';

export interface TlsSettings {
  /** Files the settings were read from, watched for changes (certificates rotate). */
  files: string[];
  clientAuth: ClientAuth;
  allowedSans?: string[];
  context: SecureContextOptions;
}

/** The private key is the one of the certificate (the first of the file: the server's own). */
function keyIsCertificates(cert: Buffer, key: Buffer): boolean {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false;
  }
}

/** A web configuration that cannot be used; the message names the file and the key. */
export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
}

const TLS_VERSIONS = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' } as const;

/** Go's names of the TLS 1.2 cipher suites (crypto/tls) → OpenSSL's. */
const CIPHERS: Record<string, string> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};

const CURVES: Record<string, string> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

/** The headers the exporter-toolkit lets a web config set, with their allowed values (none: any). */
const HEADERS: Record<string, readonly string[] | undefined> = {
  'Strict-Transport-Security': undefined,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': undefined,
  'Content-Security-Policy': undefined,
};

const oneOf = <T extends string>(names: readonly T[], what: string) =>
  z.string().refine((v): v is T => (names as readonly string[]).includes(v), `is not a ${what}; one of ${names.join(', ')}`);

const schema = z.strictObject({
  tls_server_config: z
    .strictObject({
      cert: z.string().optional(),
      key: z.string().optional(),
      client_ca: z.string().optional(),
      cert_file: z.string().optional(),
      key_file: z.string().optional(),
      client_auth_type: oneOf(
        ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'RequireClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'],
        'client_auth_type',
      ).default('NoClientCert'),
      client_ca_file: z.string().optional(),
      client_allowed_sans: z.array(z.string()).optional(),
      min_version: oneOf(Object.keys(TLS_VERSIONS) as (keyof typeof TLS_VERSIONS)[], 'TLS version').default('TLS12'),
      max_version: oneOf(Object.keys(TLS_VERSIONS) as (keyof typeof TLS_VERSIONS)[], 'TLS version').default('TLS13'),
      cipher_suites: z.array(oneOf(Object.keys(CIPHERS), 'TLS 1.2 cipher suite')).optional(),
      prefer_server_cipher_suites: z.boolean().default(true),
      curve_preferences: z.array(oneOf(Object.keys(CURVES), 'curve')).optional(),
    })
    .optional(),
  http_server_config: z
    .strictObject({
      /** Accepted for compatibility; the exporter serves HTTP/1.1. */
      http2: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  basic_auth_users: z
    .record(
      z.string(),
      z.string().regex(/^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/, 'is not a bcrypt hash (e.g. from `htpasswd -nBC 10 "" | tr -d \':\\n\'`)'),
    )
    .nullish(),
  rate_limit: z
    .strictObject({
      interval: z.string().regex(/^\d+(ms|s|m|h)$/, 'is not a duration like 100ms or 1s'),
      burst: z.number().int().min(0),
    })
    .optional(),
});

/** Reads and checks a web config file; throws WebConfigError naming the file and the key. */
export function readWebConfig(file: string): WebConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new WebConfigError(`web config file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new WebConfigError(`web config file ${file}: not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  // An empty file (or one half written) would turn TLS and basic auth off without a word.
  if (doc.contents === null) {
    throw new WebConfigError(`web config file ${file}: is empty; it would turn TLS and basic auth off. Give its settings, or start without --web.config.file to serve plain HTTP to anyone`);
  }
  const raw = (doc.toJS() ?? {}) as Record<string, unknown>;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((issue) => {
      const base = issue.path.map(String);
      const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...base, k].join('.')) : [base.join('.') || '(top level)'];
      return keys.map((key) => `web config file ${file}: key "${key}": ${issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message}`);
    });
    throw new WebConfigError(lines.join('\n'));
  }
  const c = parsed.data;
  const dir = dirname(file);
  const fail = (key: string, message: string): never => {
    throw new WebConfigError(`web config file ${file}: key "${key}": ${message}`);
  };

  for (const [name, value] of Object.entries(c.http_server_config?.headers ?? {})) {
    if (!(name in HEADERS)) fail(`http_server_config.headers.${name}`, `cannot be set; the headers that can: ${Object.keys(HEADERS).join(', ')}`);
    const allowed = HEADERS[name];
    if (allowed && !allowed.includes(value)) fail(`http_server_config.headers.${name}`, `must be one of ${allowed.join(', ')}`);
  }

  let tls: TlsSettings | undefined;
  const t = c.tls_server_config;
  // Any key under tls_server_config turns TLS on (and then a certificate and key are required).
  if (t && Object.keys((raw.tls_server_config ?? {}) as object).length > 0) {
    const files: string[] = [];
    const read = (key: string, path: string | undefined, inline: string | undefined): Buffer | undefined => {
      if (path !== undefined && inline !== undefined) fail(`tls_server_config.${key}`, `set ${key} or ${key}_file, not both`);
      if (inline !== undefined) return Buffer.from(inline);
      if (path === undefined) return undefined;
      const full = resolve(dir, path);
      files.push(full);
      try {
        return readFileSync(full);
      } catch (error) {
        return fail(`tls_server_config.${key}_file`, `${full} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    };
    const cert = read('cert', t.cert_file, t.cert) ?? fail('tls_server_config', 'missing one of cert or cert_file');
    const key = read('key', t.key_file, t.key) ?? fail('tls_server_config', 'missing one of key or key_file');
    const ca = read('client_ca', t.client_ca_file, t.client_ca);
    const clientAuth = (t.client_auth_type === 'RequireClientCert' ? 'RequireAnyClientCert' : t.client_auth_type) as ClientAuth;
    if (ca && clientAuth === 'NoClientCert') fail('tls_server_config.client_auth_type', 'a client CA is configured without a client_auth_type that asks for certificates');
    if (clientAuth === 'RequireAndVerifyClientCert' && !ca) fail('tls_server_config.client_ca_file', 'RequireAndVerifyClientCert needs the CA that signs the client certificates');
    const minVersion = TLS_VERSIONS[t.min_version as keyof typeof TLS_VERSIONS];
    const maxVersion = TLS_VERSIONS[t.max_version as keyof typeof TLS_VERSIONS];
    if (minVersion > maxVersion) fail('tls_server_config.min_version', `is above max_version ${t.max_version}`);
    const context: SecureContextOptions = {
      cert,
      key,
      ca,
      minVersion,
      maxVersion,
      honorCipherOrder: t.prefer_server_cipher_suites,
      ...(t.cipher_suites?.length ? { ciphers: t.cipher_suites.map((s) => CIPHERS[s]).join(':') } : {}),
      ...(t.curve_preferences?.length ? { ecdhCurve: t.curve_preferences.map((s) => CURVES[s]).join(':') } : {}),
    };
    const certKey = t.cert_file !== undefined ? 'tls_server_config.cert_file' : 'tls_server_config.cert';
    try {
      createSecureContext(context);
    } catch (error) {
      fail(certKey, `the certificate and key cannot be used (${(error as Error).message})`);
    }
    // OpenSSL keeps a certificate and a key of different types (RSA, EC) apart, each waiting for
    // its pair: such files make a context whose every handshake fails. The key must be the certificate's.
    if (!keyIsCertificates(cert, key)) fail(certKey, "the certificate and key cannot be used (the key is not the certificate's: their public keys differ)");
    tls = {
      files,
      clientAuth,
      allowedSans: t.client_allowed_sans,
      context,
    };
  }

  let rateLimit: WebConfig['rateLimit'];
  if (c.rate_limit) {
    const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(c.rate_limit.interval)!;
    const intervalMs = Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
    if (intervalMs > 0) rateLimit = { intervalMs, burst: c.rate_limit.burst };
  }

  return {
    file,
    tls,
    users: new Map(Object.entries(c.basic_auth_users ?? {})),
    headers: c.http_server_config?.headers ?? {},
    rateLimit,
  };
}
