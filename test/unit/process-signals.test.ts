// Issue 24, item 5: what ProcessSignals does with each signal before and after the exporter runs.
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { ProcessSignals } from '../../src/process-signals.js';

it('queues a SIGHUP that comes before the exporter runs and applies it once, then reloads on each', () => {
  const source = new EventEmitter();
  const exits: string[] = [];
  const signals = new ProcessSignals(source, (signal) => exits.push(signal));
  source.emit('SIGHUP');
  source.emit('SIGHUP');
  let reloads = 0;
  signals.onReload(() => reloads++);
  expect(reloads).toBe(1);
  source.emit('SIGHUP');
  expect(reloads).toBe(2);
  expect(exits).toEqual([]);
});

it('exits early on SIGTERM or SIGINT before there is anything to stop, and stops the exporter after', () => {
  const source = new EventEmitter();
  const exits: string[] = [];
  const signals = new ProcessSignals(source, (signal) => exits.push(signal));
  source.emit('SIGTERM');
  source.emit('SIGINT');
  expect(exits).toEqual(['SIGTERM', 'SIGINT']);
  const stops: string[] = [];
  signals.onStop((signal) => stops.push(signal));
  source.emit('SIGTERM');
  expect(stops).toEqual(['SIGTERM']);
  expect(exits).toHaveLength(2);
});
