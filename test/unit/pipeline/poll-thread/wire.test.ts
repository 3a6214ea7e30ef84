// What crosses between the poll thread and the main thread survives the structured clone that
// postMessage applies: families with their chunks as Buffers, errors as the scheduler reads them.
import { describe, expect, it } from 'vitest';
import { ManagementError } from '../../../../src/broker/errors.js';
import { failureCause } from '../../../../src/broker/failure-cause.js';
import { deflateLines } from '../../../../src/model/deflated-lines.js';
import { familyBody, type RenderedFamily } from '../../../../src/model/text-format.js';
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
