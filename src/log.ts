import pino, { type Logger } from 'pino';
import { logfmtStream } from './logfmt.js';

/** Logs on stdout, as JSON lines or logfmt. Secrets never reach a logger: configs are redacted before logging. */
export function createLogger(level: string, format: 'json' | 'logfmt' = 'json'): Logger {
  const options = {
    level,
    base: { service: 'rabbitmq-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['password', '*.password', 'authorization', '*.authorization', 'headers.authorization'], censor: '<redacted>' },
  };
  return format === 'logfmt' ? pino(options, logfmtStream()) : pino(options);
}
