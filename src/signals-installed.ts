import { ProcessSignals } from './process-signals.js';

/**
 * The process's signal handling, installed when this module is evaluated: main.ts imports it
 * first, so the handlers are in place before the other modules (express, undici, the collectors)
 * are evaluated, let alone before the configuration is read.
 */
export const signals = new ProcessSignals();
