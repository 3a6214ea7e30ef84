import { describe, expect, it } from 'vitest';
import { absence, isAbsent, unlessAbsent } from '../../../src/broker/absence.js';
import { ManagementError } from '../../../src/broker/errors.js';
import { expectList } from '../../../src/broker/expect-list.js';
import { federationCollector } from '../../../src/collectors/federation/collector.js';
import { nodesCollector } from '../../../src/collectors/nodes/collector.js';
import { fakeApi } from '../../support/fake-broker-api.js';
import { runCollector } from '../../support/run-collector.js';

const status = (code: number) => new ManagementError('http_status', '/api/x', `HTTP ${code}`, code);

describe('what an answer without a body means (one policy for every caller)', () => {
  it('404 and 406 (an unrouted path asked for JSON only, RabbitMQ 3.10) mean absent; 401 and 403 refused; the rest failures', () => {
    expect([404, 406, 401, 403, 400, 500, 503].map((code) => absence(status(code)))).toEqual([
      'absent',
      'absent',
      'refused',
      'refused',
      undefined,
      undefined,
      undefined,
    ]);
    expect(absence(new ManagementError('timeout', '/api/x', 'no answer'))).toBeUndefined();
    expect(absence(new Error('HTTP 404'))).toBeUndefined();
    expect(isAbsent(status(406))).toBe(true);
  });

  it('unlessAbsent gives undefined for absent and throws every other error', async () => {
    await expect(unlessAbsent(Promise.reject(status(404)))).resolves.toBeUndefined();
    await expect(unlessAbsent(Promise.resolve([1]))).resolves.toEqual([1]);
    await expect(unlessAbsent(Promise.reject(status(401)))).rejects.toMatchObject({ status: 401 });
  });

  it('a 406 of an optional path (a plugin path) leaves its series out like a 404, with one info line', async () => {
    // Before the policy was shared, only the streams collector took a 406 as absent.
    const api = fakeApi({
      '/api/federation-links': () => {
        throw status(406);
      },
    });
    const r = await runCollector(federationCollector, { api });
    expect(r.samples.size).toBe(0);
    expect(r.logs.map((l) => l.msg)).toEqual(['the federation management plugin is not enabled: no series while the path is absent']);
  });
});

describe('expectList', () => {
  it('passes a list through and names the path and what came instead otherwise', () => {
    expect(expectList([{ a: 1 }], '/api/x')).toEqual([{ a: 1 }]);
    expect(() => expectList({ error: 'x' }, '/api/x')).toThrow('/api/x did not answer a JSON list (got an object)');
    expect(() => expectList(null, '/api/x')).toThrow('/api/x did not answer a JSON list (got null)');
    expect(() => expectList('text', '/api/x')).toThrow('/api/x did not answer a JSON list (got a string)');
  });

  it('is what a collector says of a list path answering an object', async () => {
    await expect(runCollector(nodesCollector, { api: fakeApi({ '/api/nodes': { error: 'x' } }) })).rejects.toThrow(
      '/api/nodes did not answer a JSON list (got an object)',
    );
  });
});
