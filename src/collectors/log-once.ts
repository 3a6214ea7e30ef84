import type { Logger } from 'pino';

/** Logs `msg` the first time `key` is seen by this collector on this target (kept in ctx.memory). */
export function logOnce(
  ctx: { memory: Map<string, unknown>; log: Logger },
  level: 'info' | 'warn',
  key: string,
  fields: Record<string, unknown>,
  msg: string,
): void {
  const memoryKey = `logged:${key}`;
  if (ctx.memory.has(memoryKey)) return;
  ctx.memory.set(memoryKey, true);
  ctx.log[level](fields, msg);
}
