import { describe, expect, it } from 'vitest';
import { answerCap, answerKind, DEFAULT_LIST_CAP_BYTES, pathTemplate, RECORD_CAP_BYTES } from '../../../src/broker/answer-caps.js';

describe('answer caps', () => {
  it('lists get the configured cap, everything else at most 16 MiB', () => {
    for (const path of ['/api/queues', '/api/queues/vh1', '/api/queues/detailed', '/api/exchanges/%2F', '/api/bindings', '/api/connections', '/api/channels', '/api/consumers/vh0', '/api/vhosts', '/rabbit/api/queues']) {
      expect(answerKind(path), path).toBe('list');
      expect(answerCap(path, DEFAULT_LIST_CAP_BYTES), path).toBe(DEFAULT_LIST_CAP_BYTES);
    }
    for (const path of ['/api/overview', '/api/nodes', '/api/nodes/rabbit@vm/memory', '/api/health/checks/alarms', '/api/queues/%2F/q1', '/api/vhosts/vh1', '/api/whoami']) {
      expect(answerKind(path), path).toBe('record');
      expect(answerCap(path, DEFAULT_LIST_CAP_BYTES), path).toBe(RECORD_CAP_BYTES);
    }
    expect(answerCap('/api/overview', 1000)).toBe(1000);
  });

  it('the default list cap holds 100,000 queues with full statistics and refuses 200 MB', () => {
    // ~1.45 kB per queue record with full statistics (RabbitMQ 3.10.8, test/fixtures).
    expect(DEFAULT_LIST_CAP_BYTES).toBeGreaterThan(100_000 * 1450 * 1.1);
    expect(DEFAULT_LIST_CAP_BYTES).toBeLessThan(200_000_000);
  });

  it('path templates name the kind of request, not the object', () => {
    expect(pathTemplate('/api/queues')).toBe('/api/queues');
    expect(pathTemplate('/api/queues/vh%201')).toBe('/api/queues/{vhost}');
    expect(pathTemplate('/api/queues/detailed')).toBe('/api/queues/detailed');
    expect(pathTemplate('/api/nodes/rabbit@vm/memory')).toBe('/api/nodes/{name}/memory');
    expect(pathTemplate('/api/health/checks/port-listener/5672')).toBe('/api/health/checks/port-listener/{arg}');
    expect(pathTemplate('/prefix/api/exchanges/%2F?columns=a')).toBe('/api/exchanges/{vhost}');
  });
});
