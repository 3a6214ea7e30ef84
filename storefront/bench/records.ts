// The benchmark's data: n realistic transactions with 64-bit ids, streamed (never all in memory).

import type { NewRecord, PublicTransaction } from '../src/store.js';

/** Ids above 2^53, so the exact-integer path is what is measured. */
export const FIRST_ID = 9007199254740993n;

/** A fixed scrypt hash (the benchmark measures edits without a password, so no hash is computed). */
const HASH = 'scrypt$131072$8$1$AAAAAAAAAAAAAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';

export function benchTransaction(id: bigint, totalPrice: number): PublicTransaction {
  const product = (pid: bigint) => ({
    id: pid,
    name: `Product ${pid}`,
    description: 'A product of the benchmark catalogue, described in one sentence.',
    price: 19.95,
    stock: 42n,
    size: 'XS',
    images: [`https://img.example.com/${pid}-front.jpg`, `https://img.example.com/${pid}-back.jpg`],
  });
  return {
    id,
    date: '2024-03-01T10:15:00Z',
    type: 'purchase',
    totalPrice,
    user: {
      id: id * 3n,
      name: 'Ada',
      lastName: 'Lovelace',
      username: `user${id}`,
      email: `user${id}@example.com`,
      address: '12 Analytical Street, London',
      birthdate: '1815-12-10',
      role: 'customer',
      mobileNumber: 447700900123n,
    },
    usedCoupon: {
      id: 100n,
      code: 'SPRING10',
      type: 'percentage',
      discount: 10,
      minimum: 20.5,
      startDate: '2024-03-01',
      dateOfExpiry: '2024-06-01',
      affectedProducts: [product(1000n)],
    },
    products: [product(1000n), product(1001n)],
  };
}

export function* benchRecords(n: number): Generator<NewRecord> {
  for (let i = 0; i < n; i++) yield { tx: benchTransaction(FIRST_ID + BigInt(i), 59.9), passwordHash: HASH };
}
