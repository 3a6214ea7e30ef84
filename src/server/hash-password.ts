import bcrypt from 'bcryptjs';

/** bcrypt's cost: 2^cost rounds. 10 as htpasswd -B and the exporter-toolkit's examples use. */
const DEFAULT_COST = 10;

export const HASH_PASSWORD_USAGE = `Usage: rabbitmq-exporter hash-password [--cost N]

Reads a password (typed without echo, twice, on a terminal; else the first line of standard input)
and prints its bcrypt hash for basic_auth_users in the --web.config.file (cost 4 to 31, default ${DEFAULT_COST}).
`;

/** `rabbitmq-exporter hash-password`: its exit code; the hash goes to `out`, prompts and errors to `err`. */
export async function hashPassword(
  args: readonly string[],
  io: { input: NodeJS.ReadStream | NodeJS.ReadableStream; out: NodeJS.WritableStream; err: NodeJS.WritableStream },
): Promise<number> {
  const cost = costOf(args);
  if (typeof cost === 'string') {
    io.err.write(`rabbitmq-exporter hash-password: ${cost}\n\n${HASH_PASSWORD_USAGE}`);
    return 2;
  }
  const terminal = 'isTTY' in io.input && io.input.isTTY === true;
  const password = terminal ? await typedTwice(io.input as NodeJS.ReadStream, io.err) : await firstLine(io.input);
  if (password === undefined) {
    io.err.write('rabbitmq-exporter hash-password: the two passwords differ; nothing printed\n');
    return 1;
  }
  if (password === '') {
    io.err.write('rabbitmq-exporter hash-password: the password is empty; nothing printed\n');
    return 1;
  }
  io.out.write(`${await bcrypt.hash(password, cost)}\n`);
  return 0;
}

function costOf(args: readonly string[]): number | string {
  if (args.length === 0) return DEFAULT_COST;
  const [flag, value, ...rest] = args[0]?.includes('=') ? [...args[0].split('='), ...args.slice(1)] : args;
  if (flag !== '--cost' || value === undefined || rest.length > 0) return `unexpected arguments: ${args.join(' ')}`;
  const cost = Number(value);
  return Number.isInteger(cost) && cost >= 4 && cost <= 31 ? cost : `--cost must be a whole number from 4 to 31, not "${value}"`;
}

/** The first line of a pipe or file (without its line ending). */
async function firstLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Asks twice on the terminal without echo; undefined when the two differ. */
async function typedTwice(input: NodeJS.ReadStream, prompt: NodeJS.WritableStream): Promise<string | undefined> {
  input.setRawMode(true);
  const keys = keyLines(input);
  try {
    prompt.write('Password: ');
    const first = await keys.next();
    prompt.write('\nAgain: ');
    const second = await keys.next();
    prompt.write('\n');
    return first === second ? first : undefined;
  } finally {
    keys.close();
    input.setRawMode(false);
  }
}

/**
 * Lines typed in raw mode (nothing echoed), Enter ending each; what is typed ahead (a paste of
 * both answers) waits for the next question. Backspace erases, Ctrl-C quits.
 */
function keyLines(input: NodeJS.ReadStream): { next(): Promise<string>; close(): void } {
  const done: string[] = [];
  let text = '';
  let waiting: ((line: string) => void) | undefined;
  const onData = (chunk: Buffer) => {
    for (const char of chunk.toString('utf8')) {
      if (char === '\u0003') process.exit(130);
      if (char === '\r' || char === '\n' || char === '\u0004') {
        done.push(text);
        text = '';
      } else text = char === '\u007f' || char === '\b' ? text.slice(0, -1) : text + char;
    }
    if (waiting && done.length > 0) {
      const resolve = waiting;
      waiting = undefined;
      resolve(done.shift()!);
    }
  };
  input.on('data', onData);
  input.resume();
  return {
    next: () => (done.length > 0 ? Promise.resolve(done.shift()!) : new Promise((resolve) => (waiting = resolve))),
    close: () => {
      input.off('data', onData);
      input.pause();
    },
  };
}
