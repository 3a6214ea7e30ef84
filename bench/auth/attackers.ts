// The attackers of the auth benchmark, in a process of their own at the lowest priority (on the
// benchmark's machine they stand for clients elsewhere: their own CPU must not delay the exporter
// or the measuring scraper): `connections` keep-alive connections, each sending request
// after request to /metrics with a password never sent before, each from its own source address
// (127.0.0.2, .3, …) when `addresses` is "many", all from 127.0.0.1 when "one". Posts its counts
// of answers by status when told to stop. argv[2]: the settings as JSON.
import http from 'node:http';

interface AttackSettings {
  url: string;
  connections: number;
  addresses: 'one' | 'many';
  user: string;
}

const { url, connections, addresses, user } = JSON.parse(process.argv[2]!) as AttackSettings;
const statuses: Record<string, number> = {};
let stopping = false;
let guess = 0;

function attack(localAddress: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress });
  return new Promise((resolve) => {
    const next = () => {
      if (stopping) {
        agent.destroy();
        resolve();
        return;
      }
      const authorization = `Basic ${Buffer.from(`${user}:guess-${process.pid}-${guess++}`).toString('base64')}`;
      const req = http.get(`${url}/metrics`, { agent, headers: { authorization } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.once('end', () => {
          // The two refusals without a check are told apart by their text.
          const why = res.statusCode === 429 ? (body.includes('in progress') ? ' checks in flight' : ' client failures') : '';
          const key = `${res.statusCode}${why}`;
          statuses[key] = (statuses[key] ?? 0) + 1;
          next();
        });
      });
      req.once('error', (error: NodeJS.ErrnoException) => {
        const key = error.code ?? 'error';
        statuses[key] = (statuses[key] ?? 0) + 1;
        setTimeout(next, 10);
      });
    };
    next();
  });
}

const running = Array.from({ length: connections }, (_, i) => attack(addresses === 'many' ? `127.0.0.${2 + (i % 250)}` : '127.0.0.1'));
process.once('message', async () => {
  stopping = true;
  await Promise.all(running);
  process.send!(statuses, () => process.exit(0));
});
