// Everything a run measured, phase by phase: what results.ts and summary.ts turn into tables.
import type { Provenance } from '../provenance.js';
import type { PerMinute, Plugin } from './alternatives.js';
import type { FailedMeasurement, Measurement } from './collector-alone.js';
import type { AtDefaults } from './exporter-defaults.js';
import type { Collectors, Rounds } from './rounds.js';
import type { Setup } from './setup.js';

export interface RunResults {
  provenance: Provenance;
  commit: string;
  loadAtStart: string;
  totalSeconds: number;
  statsEvery: number;
  setup: Setup;
  collectors: Collectors;
  rounds: Rounds;
  atDefaults: AtDefaults;
  plugin: Plugin;
  perMinute: PerMinute;
  alternatives: (Measurement | FailedMeasurement)[];
  /** The baseline of the last phase. */
  lastBaseline: number;
}
