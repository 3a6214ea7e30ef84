// What crosses between the poll thread and the main thread survives the structured clone that
// postMessage applies: families with their chunks as Buffers, errors as the scheduler reads them.
import { constants, crc32, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { failureCause } from '../../../../src/broker/failure-cause.js';
import { deflateLines } from '../../../../src/exposition/deflated-lines.js';
import { familyBody, type RenderedFamily } from '../../../../src/exposition/text-format.js';
import { errorFromWire, errorToWire, familiesFromWire, familiesToWire } from '../../../../src/pipeline/poll-thread/wire.js';

describe('families across threads', () => {
  it('keep their headers, samples and bytes, plain or deflated, and come back as Buffers', () => {
    const plain = Buffer.from('rabbitmq_queue_messages{vhost="/",queue="a"} 1\n');
    const deflated = deflateLines(Buffer.from('rabbitmq_queue_messages{vhost="/",queue="b"} 2\n'));
    const families: RenderedFamily[] = [
      { header: { name: 'rabbitmq_queue_messages', type: 'gauge', help: 'Messages.', polledBy: 'queues' }, chunks: [plain, deflated], samples: 2 },
      { header: { name: 'rabbitmq_queue_info', type: 'gauge', help: 'Info.' }, chunks: [], samples: 0 },
    ];
    const wire = familiesToWire(families);
    // As postMessage moves it: the one buffer is transferred, not copied.
    const back = familiesFromWire(structuredClone(wire, { transfer: [wire.bytes] }));
    expect(wire.bytes.byteLength).toBe(0);
    expect(back.map((f) => f.header)).toEqual(families.map((f) => f.header));
    expect(back.map((f) => f.samples)).toEqual([2, 0]);
    expect(Buffer.isBuffer(back[0]!.chunks[0])).toBe(true);
    const chunk = back[0]!.chunks[1] as { deflated: Buffer; crc: number; length: number };
    expect(Buffer.isBuffer(chunk.deflated)).toBe(true);
    expect({ crc: chunk.crc, length: chunk.length }).toEqual({ crc: deflated.crc, length: deflated.length });
    expect(familyBody(back[0]!).toString()).toBe(familyBody(families[0]!).toString());
  });

  it('deflated chunks that follow one another cross as one (their text joined up to 1 MiB), with the CRC-32 and length of their text', () => {
    const line = (i: number) => `rabbitmq_queue_messages{vhost="/",queue="q${i}"} ${i}\n`;
    const lines = (from: number, n: number) => Array.from({ length: n }, (_, i) => line(from + i)).join('');
    const big = (tag: string) => Buffer.from(`${tag}${'x'.repeat(600 * 1024)}\n`);
    const chunks = [deflateLines(Buffer.from(lines(0, 5))), deflateLines(Buffer.from(lines(5, 5))), deflateLines(Buffer.from(lines(10, 5))), Buffer.from(line(15)), deflateLines(Buffer.from(lines(16, 2))), deflateLines(big('a')), deflateLines(big('b'))];
    const family: RenderedFamily = { header: { name: 'rabbitmq_queue_messages', type: 'gauge', help: 'Messages.' }, chunks, samples: 18 };
    const wire = familiesToWire([family]);
    // Three joined, the plain line, then two joined, and the 600 KiB ones apart: 1 MiB at most.
    expect(wire.families[0]!.chunks.map((c) => c.length)).toEqual([4, 2, 4, 4]);
    const [back] = familiesFromWire(structuredClone(wire, { transfer: [wire.bytes] }));
    expect(familyBody(back!).toString()).toBe(familyBody(family).toString());
    for (const chunk of back!.chunks) {
      if (Buffer.isBuffer(chunk)) continue;
      const text = inflateRawSync(chunk.deflated, { finishFlush: constants.Z_SYNC_FLUSH });
      expect({ crc: chunk.crc, length: chunk.length }).toEqual({ crc: crc32(text), length: text.length });
    }
    expect(back!.chunks.filter((c) => !Buffer.isBuffer(c)).map((c) => (c as { length: number }).length)).toEqual([
      Buffer.byteLength(lines(0, 15)),
      Buffer.byteLength(lines(16, 2)) + big('a').length,
      big('b').length,
    ]);
  });

  it('carry only header fields across, not what a metric definition holds besides', () => {
    const def = { name: 'rabbitmq_queue_messages', type: 'gauge' as const, help: 'Messages.', labels: ['vhost', 'queue'], field: 'messages' };
    const [wire] = familiesToWire([{ header: def, chunks: [], samples: 0 }]).families;
    expect(wire!.header).toEqual({ name: 'rabbitmq_queue_messages', type: 'gauge', help: 'Messages.' });
  });
});

describe('errors across threads', () => {
  it('a ManagementError keeps its kind, path, detail, status and reason', () => {
    const error = new ManagementError('http_status', '/api/queues/%2F?columns=name', 'HTTP 503 Service Unavailable', 503);
    const back = errorFromWire(structuredClone(errorToWire(error)));
    expect(back).toBeInstanceOf(ManagementError);
    const m = back as ManagementError;
    expect([m.kind, m.path, m.detail, m.status, m.reason, m.pathname, m.message]).toEqual([
      'http_status',
      '/api/queues/%2F?columns=name',
      'HTTP 503 Service Unavailable',
      503,
      'http_503',
      '/api/queues/%2F',
      error.message,
    ]);
    expect(failureCause(back, false)).toEqual({ kind: 'http_status', status: 503 });
  });

  it('the causes of a network error keep the names and codes the failure cause is read from', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:15672'), { code: 'ECONNREFUSED' });
    const parser = new Error('Expected HTTP/');
    parser.name = 'HTTPParserError';
    for (const [cause, kind] of [
      [refused, 'connection_refused'],
      [parser, 'not_http'],
    ] as const) {
      const error = new ManagementError('network', '/api/queues', 'fetch failed', undefined, { cause: new Error('fetch failed', { cause }) });
      const back = errorFromWire(structuredClone(errorToWire(error)));
      expect(failureCause(back, false)).toEqual({ kind });
      expect(failureCause(error, false)).toEqual({ kind });
    }
  });

  it("any other error keeps its message: the collector's own error", () => {
    const back = errorFromWire(structuredClone(errorToWire(new TypeError('no queue list'))));
    expect(back).not.toBeInstanceOf(ManagementError);
    expect(back.message).toBe('no queue list');
    expect(failureCause(back, false)).toEqual({ kind: 'other' });
    expect(errorFromWire(structuredClone(errorToWire('thrown text'))).message).toBe('thrown text');
  });
});
