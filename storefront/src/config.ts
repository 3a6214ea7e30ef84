// Configuration from the environment.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type AuthConfig, isLoopback, MIN_TOKEN_LENGTH, parseTokens } from './auth.js';

export interface StorefrontConfig {
  port: number;
  /** Interface to bind; undefined = all interfaces. */
  host?: string | undefined;
  /** Absolute path of the SQLite database. */
  dbPath: string;
  /** The pre-database JSON file, imported once when the database is created. */
  importJsonPath?: string | undefined;
  seedPath?: string | undefined;
  /** Maximum request body size in bytes. */
  bodyLimit: number;
  auth: AuthConfig;
  /** Most connections open at once; more are refused. */
  maxConnections: number;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_DB = 'storefront-data/transactions.db';
/** Where the storefront kept its data before the database: imported once if present. */
export const DEFAULT_IMPORT_JSON = 'storefront-data/transactions.json';
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 1000;
export const NO_AUTH_SETTING = 'none-local-only';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, what: string): number {
  const text = nonEmpty(env[name]);
  if (text === undefined) return fallback;
  if (!/^[1-9][0-9]{0,11}$/.test(text)) throw new ConfigError(`${name} must be a positive integer ${what}, got ${JSON.stringify(text)}`);
  return Number(text);
}

function loadAuth(env: NodeJS.ProcessEnv, cwd: string, host: string | undefined): { auth: AuthConfig; host: string | undefined } {
  const mode = nonEmpty(env.STOREFRONT_AUTH);
  const file = nonEmpty(env.STOREFRONT_TOKENS_FILE);
  const inline = nonEmpty(env.STOREFRONT_TOKENS);
  if (mode !== undefined && mode !== NO_AUTH_SETTING && mode !== 'tokens') {
    throw new ConfigError(`STOREFRONT_AUTH must be "tokens" (the default) or "${NO_AUTH_SETTING}", got ${JSON.stringify(mode)}`);
  }
  if (mode === NO_AUTH_SETTING) {
    if (file !== undefined || inline !== undefined) {
      throw new ConfigError(`STOREFRONT_AUTH=${NO_AUTH_SETTING} turns authentication off, but tokens are also set (STOREFRONT_TOKENS_FILE/STOREFRONT_TOKENS); remove one or the other`);
    }
    if (host !== undefined && !isLoopback(host)) {
      throw new ConfigError(`STOREFRONT_AUTH=${NO_AUTH_SETTING} only binds a loopback address, but STOREFRONT_HOST is ${JSON.stringify(host)}; configure tokens to listen there`);
    }
    return { auth: { kind: 'none-local-only' }, host: host ?? '127.0.0.1' };
  }
  let tokens: string[] = [];
  if (file !== undefined) {
    const path = resolve(cwd, file);
    try {
      tokens = parseTokens(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new ConfigError(`cannot read STOREFRONT_TOKENS_FILE ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (inline !== undefined) tokens.push(...inline.split(/[\s,]+/).filter((t) => t !== ''));
  if (tokens.length === 0) {
    throw new ConfigError(
      `no API token configured: set STOREFRONT_TOKENS_FILE (a file with one token per line) or STOREFRONT_TOKENS, ` +
        `or STOREFRONT_AUTH=${NO_AUTH_SETTING} to run without authentication on 127.0.0.1 only`,
    );
  }
  const short = tokens.findIndex((t) => t.length < MIN_TOKEN_LENGTH || /\s/.test(t));
  if (short >= 0) {
    throw new ConfigError(`API token number ${short + 1} (STOREFRONT_TOKENS_FILE/STOREFRONT_TOKENS) is shorter than ${MIN_TOKEN_LENGTH} characters; use a long random token`);
  }
  return { auth: { kind: 'tokens', tokens }, host };
}

export function loadConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): StorefrontConfig {
  const portText = nonEmpty(env.STOREFRONT_PORT);
  let port = DEFAULT_PORT;
  if (portText !== undefined) {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535) {
      throw new ConfigError(`STOREFRONT_PORT must be an integer 0-65535, got ${JSON.stringify(portText)}`);
    }
    port = Number(portText);
  }
  const bodyLimit = positiveInteger(env, 'STOREFRONT_BODY_LIMIT', DEFAULT_BODY_LIMIT, 'number of bytes (no unit suffix)');
  const maxConnections = positiveInteger(env, 'STOREFRONT_MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS, 'number of connections');
  const dbPath = resolve(cwd, nonEmpty(env.STOREFRONT_DB) ?? DEFAULT_DB);
  if (dbPath.endsWith('.json')) {
    throw new ConfigError(
      `STOREFRONT_DB now names a SQLite database, got a .json file ${dbPath}; point STOREFRONT_DB at a new .db file and STOREFRONT_IMPORT_JSON at the old file to import it`,
    );
  }
  const { auth, host } = loadAuth(env, cwd, nonEmpty(env.STOREFRONT_HOST));
  const seed = nonEmpty(env.STOREFRONT_SEED);
  return {
    port,
    host,
    dbPath,
    importJsonPath: resolve(cwd, nonEmpty(env.STOREFRONT_IMPORT_JSON) ?? DEFAULT_IMPORT_JSON),
    seedPath: seed === undefined ? undefined : resolve(cwd, seed),
    bodyLimit,
    auth,
    maxConnections,
  };
}
