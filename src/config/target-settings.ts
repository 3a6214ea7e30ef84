import { readConfigFile, type FileSource } from './config-files.js';
import { ConfigError } from './config-error.js';
import type { BrokerConnectionConfig } from './exporter-config.js';
import { sourceOf, type KeyName, type KeySources } from './messages.js';
import type { FileConfig } from './schema.js';

type TargetSection = FileConfig['target'];

/** Who the exporter logs in as, and where the password came from. */
export interface Login {
  /** The broker's URL without credentials. */
  url: string;
  username: string;
  password: string;
  passwordSource: string;
  otherSecrets: string[];
}

/**
 * The login of a target section: user name and password from the keys, the URL or a password
 * file. Credentials in the URL are accepted but moved out of it, so the URL can be logged.
 */
export function resolveLogin(target: TargetSection, file: string | undefined, sources: KeySources, keyName: KeyName, files: FileSource): Login {
  const fromEntry = (dotted: string) => keyName(dotted) !== dotted;
  const url = new URL(target.url);
  let username = target.username;
  let password = target.password;
  let passwordSource = password !== undefined ? (fromEntry('target.password') ? 'config file' : (sources.get('target.password') ?? 'config file')) : 'default';
  const otherSecrets: string[] = [];
  if (url.username || url.password) {
    // Used or not, the URL's password is a secret, as the URL spells it and decoded.
    if (url.password) otherSecrets.push(url.password, safeDecode(url.password));
    if ((fromEntry('target.username') || !sources.has('target.username')) && url.username) username = decodeURIComponent(url.username);
    if (password === undefined && target.password_file === undefined && url.password) {
      password = decodeURIComponent(url.password);
      passwordSource = 'url';
    }
    url.username = '';
    url.password = '';
  }
  if (target.password_file !== undefined) {
    if (target.password !== undefined) {
      throw new ConfigError(`${file ? `config file ${file}` : 'configuration'}: keys "${keyName('target.password')}" and "${keyName('target.password_file')}": set one, not both`);
    }
    const from = sourceOf('target.password_file', file, sources, keyName);
    password = readConfigFile(files, target.password_file, 'secret', `${from}: key "${keyName('target.password_file')}"`)
      .toString('utf8')
      // A trailing newline is how most secret files end; it is not part of the password.
      .replace(/\r?\n$/, '');
    passwordSource = `file ${target.password_file}`;
  }
  const finalPassword = password ?? 'guest';
  return {
    url: url.toString().replace(/\/$/, ''),
    username,
    password: finalPassword,
    passwordSource,
    otherSecrets: [...new Set(otherSecrets)].filter((s) => s !== password),
  };
}

/** A client certificate needs its key and the other way round. */
export function checkTlsPair(target: TargetSection, file: string | undefined, keyName: KeyName): void {
  if ((target.tls.cert_file === undefined) !== (target.tls.key_file === undefined)) {
    throw new ConfigError(`config file ${file}: keys "${keyName('target.tls.cert_file')}" and "${keyName('target.tls.key_file')}": give both or neither`);
  }
}

/** The whole target: its login, TLS files read, timeouts and bounds. */
export function resolveTarget(target: TargetSection, login: Login, file: string | undefined, keyName: KeyName, sources: KeySources, files: FileSource): BrokerConnectionConfig {
  const readTls = (key: 'ca_file' | 'cert_file' | 'key_file') => {
    const path = target.tls[key];
    if (path === undefined) return undefined;
    return readConfigFile(files, path, 'tls', `${sourceOf(`target.tls.${key}`, file, sources, keyName)}: key "${keyName(`target.tls.${key}`)}"`);
  };
  return {
    name: 'default',
    ...login,
    tls: {
      ca: readTls('ca_file'),
      cert: readTls('cert_file'),
      key: readTls('key_file'),
      insecureSkipVerify: target.tls.insecure_skip_verify,
      caFile: target.tls.ca_file,
      certFile: target.tls.cert_file,
      keyFile: target.tls.key_file,
    },
    timeouts: {
      connectMs: target.timeouts.connect,
      headersMs: target.timeouts.headers,
      bodyMs: target.timeouts.body,
      totalMs: target.timeouts.request,
    },
    maxResponseBytes: target.max_response_bytes,
    maxConcurrentRequests: target.max_concurrent_requests,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
