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
  ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=test-ca');
  for (const [name, cn, san] of [['server', serverName, 'IP:127.0.0.1'], ['client', 'client', 'DNS:client']] as const) {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`, '-addext', `subjectAltName=${san}`);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '1', '-copy_extensions', 'copy');
  }
  const read = (f: string) => readFileSync(join(dir, f));
  return { ca: read('ca.pem'), serverCert: read('server.pem'), serverKey: read('server.key'), clientCert: read('client.pem'), clientKey: read('client.key') };
}
