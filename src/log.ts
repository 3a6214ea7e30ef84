import pino, { type DestinationStream, type Logger } from 'pino';
import type { Redactor } from './redaction/redactor.js';

export interface LoggerOptions {
  /** Applied to every finished line: a known secret never leaves, whichever path brought it here. */
  redactor?: Redactor;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
}

/**
 * JSON logs on stdout. Texts from the broker's answers are redacted where they are made (the
 * management client); the redactor here is the last guard, on the whole serialized line.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const { redactor } = options;
  const settings = {
    level,
    base: { service: 'rabbitmq-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['password', '*.password', 'authorization', '*.authorization', 'headers.authorization'], censor: '<redacted>' },
    ...(redactor ? { hooks: { streamWrite: (line: string) => redactor.redact(line) } } : {}),
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
