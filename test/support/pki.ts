import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pki {
  ca: Buffer;
  serverCert: Buffer;
  serverKey: Buffer;
  clientCert: Buffer;
  clientKey: Buffer;
}

/**
 * A throw-away CA, a server certificate for 127.0.0.1 and a client certificate (SAN DNS:client),
 * made with openssl in `dir` (ca.pem, server.pem, server.key, client.pem, client.key).
 * `serverName` changes the server certificate's CN, to tell two certificates apart.
 */
export function makePki(dir: string, serverName = 'server'): Pki {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  // P-256 keys: made in milliseconds. An RSA key's prime search takes a random time, over 10 s for
  // three of them on a loaded machine (a test's hook timed out so).
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
  ssl('req', '-x509', ...newKey, '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=test-ca');
  for (const [name, cn, san] of [['server', serverName, 'IP:127.0.0.1'], ['client', 'client', 'DNS:client']] as const) {
    ssl('req', ...newKey, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`, '-addext', `subjectAltName=${san}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '1', '-copy_extensions', 'copy');
  }
  const read = (f: string) => readFileSync(join(dir, f));
  return { ca: read('ca.pem'), serverCert: read('server.pem'), serverKey: read('server.key'), clientCert: read('client.pem'), clientKey: read('client.key') };
}
