import pino, { type Logger } from 'pino';

/** JSON logs on stdout. Secrets never reach a logger: configs are redacted before logging. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'rabbitmq-exporter' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['password', '*.password', 'authorization', '*.authorization', 'headers.authorization'], censor: '<redacted>' },
  });
}
