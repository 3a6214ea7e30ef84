import pino, { type DestinationStream, type Logger } from 'pino';
import { logfmtStream } from './logfmt.js';
import type { Redactor } from './broker/redactor.js';

export interface LoggerOptions {
  /** json (default) or logfmt. */
  format?: 'json' | 'logfmt';
  /**
   * Applied to every finished line: a known secret never leaves, whichever path brought it here.
   * Asked per line, so a reload that changes the credentials changes what is removed.
   */
  redactor?: () => Redactor;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
}

/**
 * Logs on stdout, as JSON lines or logfmt. Texts from the broker's answers are redacted where they
 * are made (the management client); the redactor here is the last guard, on the whole line.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const { redactor } = options;
  const settings = {
    level,
    base: { service: 'rabbitmq-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // "level":"warn", as the exporter-toolkit's logs say it, rather than pino's 40.
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: ['password', '*.password', 'authorization', '*.authorization', 'headers.authorization'], censor: '<redacted>' },
    ...(redactor ? { hooks: { streamWrite: (line: string) => redactor().redact(line) } } : {}),
  };
  const destination = options.destination ?? (options.format === 'logfmt' ? logfmtStream() : undefined);
  return destination ? pino(settings, destination) : pino(settings);
}
