/** What of `process` the signal handling uses (a test gives an EventEmitter). */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
}

/**
 * SIGHUP, SIGTERM and SIGINT, handled from the first line of main(): Node's default for SIGHUP
 * kills the process, and start-up with 10,000 targets takes seconds. A SIGHUP before the exporter
 * runs is remembered and applied once it does (one reload, however many came); a SIGTERM or
 * SIGINT before there is anything to stop ends the process at once, cleanly.
 */
export class ProcessSignals {
  private reloadQueued = false;
  private reload: (() => void) | undefined;
  private stop: ((signal: NodeJS.Signals) => void) | undefined;

  constructor(
    source: SignalSource = process,
    private readonly exitEarly: (signal: NodeJS.Signals) => void = (signal) => {
      process.stderr.write(`rabbitmq-exporter: ${signal} during start-up: exiting\n`);
      process.exit(0);
    },
  ) {
    source.on('SIGHUP', () => {
      if (this.reload) this.reload();
      else this.reloadQueued = true;
    });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      source.on(signal, () => (this.stop ?? this.exitEarly)(signal));
    }
  }

  /** From now on SIGHUP calls `reload`; one that came before is applied now. */
  onReload(reload: () => void): void {
    this.reload = reload;
    if (this.reloadQueued) {
      this.reloadQueued = false;
      reload();
    }
  }

  /** From now on SIGTERM and SIGINT call `stop`. */
  onStop(stop: (signal: NodeJS.Signals) => void): void {
    this.stop = stop;
  }
}
