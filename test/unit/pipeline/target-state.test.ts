// What a collector's failed polls leave in the target's state.
import { expect, it } from 'vitest';
import { TargetState } from '../../../src/pipeline/target-state.js';

// Issue 24: at 10,000 refused targets each failed poll replaced the held error text and cause with
// new ones, which lived an interval, went to the old generation and fed major collections.
it('a failure like the last keeps the cause held; another replaces them, and each counts', () => {
  const state = new TargetState('t', 'http://127.0.0.1:1');
  state.register('overview', 15_000, 60_000, { decidesUp: true });
  state.failed('overview', 'GET /api/overview: ECONNREFUSED', 0.001, 1, { kind: 'network' });
  const held = state.collectors.get('overview')!;
  const cause = held.lastFailure;
  const version = state.version;
  state.failed('overview', 'GET /api/overview: ECONNREFUSED', 0.002, 2, { kind: 'network' });
  expect(held.lastFailure).toBe(cause);
  expect(held.attempts).toBe(2);
  expect(held.lastAttemptAt).toBe(2);
  expect(state.version).toBe(version + 1);
  state.failed('overview', 'GET /api/overview: HTTP 503', 0.001, 3, { kind: 'http_status', status: 503 });
  expect(held.lastFailure).toEqual({ kind: 'http_status', status: 503 });
  expect(held.lastError).toBe('GET /api/overview: HTTP 503');
  state.failed('overview', 'GET /api/overview: HTTP 500', 0.001, 4, { kind: 'http_status', status: 500 });
  expect(held.lastFailure).toEqual({ kind: 'http_status', status: 500 });
});
