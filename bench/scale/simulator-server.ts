/**
 * The simulated management API (test/support/management-simulator.ts) in a process of its own,
 * so its work is not the exporter's nor the scraper's. Prints one JSON line {url, username,
 * password}, then one line per finished queue-list (or vhost-list) answer: {path, query, start,
 * end, bytes, status, changed} (wall-clock ms), which the scale benchmark uses to know when polls
 * run without asking the exporter anything.
 *
 * Reads lines `fraction <0..1>` on stdin: from then on, each queue poll (its `/api/vhosts?columns=name`
 * request, the first it sends) first changes that fraction of the queues (queue-changes.ts) and
 * makes the simulator forget its cached answers; at 0 the answers stay byte for byte the same.
 *
 *   node bench/dist/bench/scale/simulator-server.js <queues> <vhosts> [<fault-json>]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import { startSimulator, type Fault } from '../../test/support/management-simulator.js';
import { queueChanger } from './queue-changes.js';

const queues = Number(process.argv[2] ?? 10_000);
const vhosts = Number(process.argv[3] ?? 10);
const fault = process.argv[4] ? (JSON.parse(process.argv[4]) as { path: string; fault: Fault }) : undefined;

const sim = await startSimulator({ queues, vhosts, exchanges: Math.ceil(queues / 30), bindings: Math.ceil(queues / 2), connections: 40, consumers: 40 });
if (fault) sim.fault(new RegExp(fault.path), fault.fault);

let fraction = 0;
const change = queueChanger(sim.data.queues);
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [word, value] = line.trim().split(/\s+/);
  if (word === 'fraction') fraction = Number(value);
});

// A front on its own port: changes queues when a queue poll starts, reports when each queue-list answer starts and ends.
const front = http.createServer((req, res) => {
  const start = Date.now();
  const url = req.url ?? '';
  let changed = 0;
  if (url === '/api/vhosts?columns=name' && fraction > 0) {
    changed = change(fraction);
    sim.forget();
  }
  const upstream = http.request({ host: '127.0.0.1', port: sim.port, path: url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    let bytes = 0;
    answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
    answer.pipe(res);
    answer.on('end', () => {
      if (url.startsWith('/api/queues') || url.startsWith('/api/vhosts?')) {
        const [pathname, query = ''] = url.split('?');
        process.stdout.write(`${JSON.stringify({ path: pathname, query, start, end: Date.now(), bytes, status: answer.statusCode, changed })}\n`);
      }
    });
  });
  upstream.on('error', () => res.destroy());
  res.on('close', () => upstream.destroy());
  upstream.end();
});
front.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, username: sim.username, password: sim.password })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
