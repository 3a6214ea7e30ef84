import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline, DeadlinePassed } from '../../../src/broker/deadline.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

// Issue 24: AbortSignal.timeout and AbortSignal.any outlived every poll of 10,000 idle targets.
describe('Deadline', () => {
  it('aborts when its timeout passes, and says so', () => {
    const deadline = new Deadline(100);
    vi.advanceTimersByTime(99);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.passed).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlinePassed);
  });

  it('once ended, its timer is gone: the signal is never aborted later', () => {
    const deadline = new Deadline(100);
    deadline.end();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.passed).toBe(false);
  });

  it('follows its parent until it ends, then lets go of it', () => {
    const parent = new AbortController();
    const followed = new Deadline(100, parent.signal);
    const reason = new Error('stopping');
    parent.abort(reason);
    expect(followed.signal.aborted).toBe(true);
    expect(followed.signal.reason).toBe(reason);
    expect(followed.passed).toBe(false);

    const other = new AbortController();
    const ended = new Deadline(100, other.signal);
    ended.end();
    other.abort();
    expect(ended.signal.aborted).toBe(false);
  });

  it('starts aborted under an aborted parent; abort() ends it once, with the first reason', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    expect(new Deadline(100, parent.signal).signal.aborted).toBe(true);

    const deadline = new Deadline(100);
    const first = new Error('first');
    deadline.abort(first);
    deadline.abort(new Error('second'));
    expect(deadline.signal.reason).toBe(first);
    vi.advanceTimersByTime(200);
    expect(deadline.passed).toBe(true);
    expect(deadline.signal.reason).toBe(first);
  });
});
