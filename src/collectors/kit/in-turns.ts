import { Turns } from '../../broker/turns.js';

/**
 * One counter for every loop: a loop run once per vhost over a few queues each still looks at the
 * clock every few items of all of them (the budget it checks is shared anyway, broker/turns.ts).
 */
const turns = new Turns();

/**
 * Calls `each` with every item in order, giving the event loop its turns between items, so that
 * a list of 100,000 records never holds it in one go and scrapes are served meanwhile. The one
 * way a collector's loop yields; a synchronous `each` costs no promise per item.
 */
export async function eachInTurns<T>(items: Iterable<T>, each: (item: T) => void | Promise<void>): Promise<void> {
  for (const item of items) {
    if (turns.due()) await turns.wait();
    const done = each(item);
    if (done) await done;
  }
}
