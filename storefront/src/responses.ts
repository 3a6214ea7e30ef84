// JSON answers: every answer of the service, errors included, is JSON.

import { STATUS_CODES, type ServerResponse } from 'node:http';
import { stringifyJson } from './json.js';
import type { ValidationError } from './schema.js';

export type ProblemDetail = ValidationError;

export function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function errorBody(status: number, message: string, extra: { errors?: ProblemDetail[]; omittedErrors?: number } = {}): string {
  return stringifyJson({ status, error: STATUS_CODES[status] ?? 'Error', message, errors: extra.errors, omittedErrors: extra.omittedErrors });
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  extra: { errors?: ProblemDetail[]; omittedErrors?: number; headers?: Record<string, string> } = {},
): void {
  send(res, status, errorBody(status, message, extra), extra.headers);
}

/** A whole HTTP/1.1 error answer as raw bytes, for a socket Node's parser gave up on (no ServerResponse). */
export function rawErrorResponse(status: number, message: string): string {
  const body = errorBody(status, message);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
