// `rabbitmq-exporter hash-password` as the built exporter runs it (the command itself:
// test/unit/server/hash-password.test.ts).
import { execFileSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';

describe('hash-password', () => {
  // A whole Node process starts here, loading the exporter's modules: on a machine the rest of the
  // suite keeps busy that took more than vitest's default 5 s (a fresh-clone run on Node 26).
  it('the built exporter runs it as a command', () => {
    const hash = execFileSync(process.execPath, ['dist/src/main.js', 'hash-password', '--cost', '4'], { input: 'pw-from-pipe\n', encoding: 'utf8', timeout: 50_000 }).trim();
    expect(bcrypt.compareSync('pw-from-pipe', hash)).toBe(true);
  }, 60_000);
});
