// `rabbitmq-exporter hash-password` as the built exporter runs it (the command itself:
// test/unit/server/hash-password.test.ts).
import { execFileSync } from 'node:child_process';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';

describe('hash-password', () => {
  it('the built exporter runs it as a command', () => {
    const hash = execFileSync(process.execPath, ['dist/src/main.js', 'hash-password', '--cost', '4'], { input: 'pw-from-pipe\n', encoding: 'utf8' }).trim();
    expect(bcrypt.compareSync('pw-from-pipe', hash)).toBe(true);
  });
});
