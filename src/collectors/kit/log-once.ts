import type { Logger } from 'pino';

/** Logs `msg` the first time `key` is seen by this collector on this target (kept in ctx.carryOver). */
export function logOnce(
  ctx: { carryOver: Map<string, unknown>; log: Logger },
  level: 'info' | 'warn',
  key: string,
  fields: Record<string, unknown>,
  msg: string,
): void {
  const carryKey = `logged:${key}`;
  if (ctx.carryOver.has(carryKey)) return;
  ctx.carryOver.set(carryKey, true);
  ctx.log[level](fields, msg);
}
