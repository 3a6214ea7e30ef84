// Configuration from the environment.

import { resolve } from 'node:path';

export interface StorefrontConfig {
  port: number;
  /** Interface to bind; undefined = all interfaces. */
  host?: string | undefined;
  /** Absolute path of the db file. */
  dbPath: string;
  seedPath?: string | undefined;
  /** Maximum request body size in bytes. */
  bodyLimit: number;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_DB = 'storefront-data/transactions.json';
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
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
  const limitText = nonEmpty(env.STOREFRONT_BODY_LIMIT);
  let bodyLimit = DEFAULT_BODY_LIMIT;
  if (limitText !== undefined) {
    if (!/^[1-9][0-9]{0,11}$/.test(limitText)) {
      throw new ConfigError(`STOREFRONT_BODY_LIMIT must be a positive integer number of bytes, got ${JSON.stringify(limitText)}`);
    }
    bodyLimit = Number(limitText);
  }
  const seed = nonEmpty(env.STOREFRONT_SEED);
  return {
    port,
    host: nonEmpty(env.STOREFRONT_HOST),
    dbPath: resolve(cwd, nonEmpty(env.STOREFRONT_DB) ?? DEFAULT_DB),
    seedPath: seed === undefined ? undefined : resolve(cwd, seed),
    bodyLimit,
  };
}
