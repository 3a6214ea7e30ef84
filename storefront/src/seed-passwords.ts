// Seed passwords are hashed after the port opens, not before: at OWASP's cost a hash takes
// a few hundred ms, so hashing 10k entries first would keep the service down for minutes.
// Seeded records are stored at once with no hash; this task then hashes their passwords
// one at a time (leaving the thread pool to edits) and sets each hash unless an edit set
// one first. On a restart it resumes with whatever is still unset, from the seed file.

import { hashPassword, type ScryptParams } from './password.js';
import type { Transaction } from './schema.js';
import type { TransactionStore } from './store.js';

export interface SeedPasswordTask {
  /** Resolves when every pending hash is set (or the task was stopped); the number set. */
  readonly done: Promise<number>;
  stop(): void;
}

export function hashSeedPasswords(
  store: TransactionStore,
  seed: readonly Transaction[],
  params: ScryptParams,
  onError: (message: string) => void,
): SeedPasswordTask {
  const plain = new Map<bigint, string>();
  for (const tx of seed) if (tx.user.password !== undefined) plain.set(tx.id, tx.user.password);
  let stopped = false;
  const run = async (): Promise<number> => {
    let set = 0;
    let after: bigint | undefined;
    for (;;) {
      const batch = await store.idsWithoutPassword(after, 1000);
      if (batch.length === 0) return set;
      for (const id of batch) {
        if (stopped) return set;
        after = id;
        const password = plain.get(id);
        if (password === undefined) continue; // not in this seed: nothing to hash it from
        const hash = await hashPassword(password, params);
        if (stopped) return set;
        if (await store.setPasswordIfUnset(id, hash)) set++;
      }
    }
  };
  const done = run().catch((err: unknown) => {
    onError(`hashing seed passwords stopped: ${(err as Error).message}`);
    return 0;
  });
  return {
    done,
    stop() {
      stopped = true;
    },
  };
}
