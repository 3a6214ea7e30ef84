import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * A full garbage collection of this thread's heap, now. For the moment a collector moves to the
 * poll thread: its state on the main thread (~250 MB at 100,000 queues) is garbage from then on,
 * but with little allocated on the main thread afterwards V8 let it stand until after the thread's
 * first poll had built the same state again there: RSS max 486 MB against ~360-390 MB once settled
 * (100,000 queues, bench:scale's processes). V8 offers `gc` only to contexts made after
 * --expose-gc is set.
 */
export function collectGarbageNow(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
