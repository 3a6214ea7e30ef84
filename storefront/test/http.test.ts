// Status codes, content negotiation, limits and routing of the real server.

import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { acceptsJson, isJsonContentType } from '../src/http.js';
import { http, startTestServer, toJson, transaction, type TestServer } from './support.js';

let server: TestServer;
const LIMIT = 64 * 1024;

beforeAll(async () => {
  server = await startTestServer({ bodyLimit: LIMIT });
});
afterAll(async () => {
  await server.stop();
});

const good = () => toJson(transaction(1n));

function errorsOf(text: string): { path: string; reason: string; position?: number }[] {
  return (JSON.parse(text) as { errors: { path: string; reason: string; position?: number }[] }).errors;
}

describe('PUT /api/transactions/{id}', () => {
  it('200 with the stored transaction (password omitted), JSON content type and a strong ETag', async () => {
    const res = await server.put(1n, good());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const expected = transaction(1n);
    delete (expected.user as Record<string, unknown>).password;
    expect(res.text).toBe(toJson(expected));
  });

  it('404 (JSON) for an id that does not exist; PUT never creates', async () => {
    const res = await server.put(424242n, toJson(transaction(424242n)));
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toContain('application/json');
    expect(JSON.parse(res.text)).toMatchObject({ status: 404, message: 'no transaction with id 424242' });
    expect(await server.readDb()).not.toContain('424242');
  });

  it('400 when the body id differs from the path id', async () => {
    const res = await server.put(1n, toJson(transaction(2n)));
    expect(res.status).toBe(400);
    expect(errorsOf(res.text)).toEqual([{ path: '$.id', reason: 'body id 2 does not match path id 1' }]);
  });

  it.each([
    ['abc', 'expected a 64-bit integer in decimal form'],
    ['1.5', 'expected a 64-bit integer in decimal form'],
    ['01', 'expected a 64-bit integer in decimal form'],
    ['%2B1', 'expected a 64-bit integer in decimal form'],
    ['9223372036854775808', 'outside the signed 64-bit range'],
    ['%zz', 'not valid percent-encoding'],
  ])('400 for the path id %s', async (id, reason) => {
    const res = await server.put(id, good());
    expect(res.status).toBe(400);
    const errors = errorsOf(res.text);
    expect(errors[0]?.path).toBe('{id}');
    expect(errors[0]?.reason).toContain(reason);
  });

  it('400 lists every problem: path id, types, missing and unknown fields together', async () => {
    const res = await server.put(
      'x',
      '{"id":"1","date":3,"type":"t","totalPrice":1e999,"user":{"mobileNumber":"555"},"usedCoupon":null,"products":[],"extra":true}',
    );
    expect(res.status).toBe(400);
    const errors = errorsOf(res.text);
    expect(errors).toContainEqual({ path: '$.user.mobileNumber', reason: 'expected integer, got string' });
    expect(errors.map((e) => e.path)).toEqual([
      '{id}',
      '$.id',
      '$.date',
      '$.totalPrice',
      '$.user.id',
      '$.user.name',
      '$.user.lastName',
      '$.user.username',
      '$.user.email',
      '$.user.address',
      '$.user.birthdate',
      '$.user.role',
      '$.user.mobileNumber',
      '$.extra',
    ]);
    expect(JSON.parse(res.text).message).toBe('the request has 14 problem(s)');
  });

  it('400 for malformed JSON, naming the position', async () => {
    const res = await server.put(1n, '{"id": 1,, }');
    expect(res.status).toBe(400);
    expect(errorsOf(res.text)).toEqual([
      { path: '$', reason: 'malformed JSON: expected a string key, found "," at position 9 (line 1, column 10)', position: 9 },
    ]);
  });

  it('400 for an empty body, invalid UTF-8, or a non-object', async () => {
    expect(errorsOf((await server.put(1n, '')).text)[0]?.reason).toContain('unexpected end of input at position 0');
    expect(errorsOf((await server.put(1n, Buffer.from([0x7b, 0xff, 0x7d]))).text)[0]?.reason).toContain('not valid UTF-8');
    expect(errorsOf((await server.put(1n, '[1]')).text)).toEqual([{ path: '$', reason: 'expected object (Transaction), got array' }]);
  });

  it('tolerates a leading UTF-8 BOM but not duplicate keys', async () => {
    expect((await server.put(1n, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good())]))).status).toBe(200);
    const dup = good().replace('"type":"purchase"', '"type":"purchase","type":"refund"');
    const res = await server.put(1n, dup);
    expect(res.status).toBe(400);
    expect(errorsOf(res.text)[0]?.reason).toContain('duplicate key "type"');
  });

  it('caps the list at 1000 problems and counts the rest', async () => {
    const fields = Array.from({ length: 1500 }, (_, i) => `"x${i}":0`).join(',');
    const res = await server.put(1n, `{${fields}}`);
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text);
    expect(body.errors).toHaveLength(1000);
    expect(body.omittedErrors).toBe(1500 + 6 - 1000); // 6 required fields missing (usedCoupon is optional)
  });

  describe('deep nesting never crashes the server', () => {
    it('10,000-deep array → 400 naming the depth', async () => {
      const res = await server.put(1n, '['.repeat(10_000) + ']'.repeat(10_000));
      expect(res.status).toBe(400);
      expect(errorsOf(res.text)[0]?.reason).toContain('nesting deeper than 32 levels at position 32');
    });

    it('10,000-deep value inside an unknown field → 400', async () => {
      const body = good().replace(/}$/, `,"deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
      const res = await server.put(1n, body);
      expect(res.status).toBe(400);
      expect(errorsOf(res.text)[0]?.reason).toContain('nesting deeper than 32 levels');
    });

    it('deep nesting past the size limit → 413, and the server still answers', async () => {
      const res = await server.put(1n, `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`);
      expect(res.status).toBe(413);
      expect((await server.put(1n, good())).status).toBe(200);
    });
  });

  describe('413 over the body size limit', () => {
    it('with a Content-Length over the limit', async () => {
      const big = good().replace('"Test"', `"${'x'.repeat(LIMIT)}"`);
      const res = await server.put(1n, big);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).message).toBe(`request body exceeds the limit of ${LIMIT} bytes`);
    });

    it('with a chunked body that grows past the limit', async () => {
      const res = await http(server.port, {
        method: 'PUT',
        path: '/api/transactions/1',
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
        body: `{"id":1,"pad":"${'y'.repeat(LIMIT * 3)}"}`,
        chunked: true,
      });
      expect(res.status).toBe(413);
    });

    it('a body just under the limit is read (400 for its content, not 413)', async () => {
      const body = `{"pad":"${'z'.repeat(LIMIT - 20)}"}`;
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(LIMIT);
      const res = await server.put(1n, body);
      expect(res.status).toBe(400);
    });
  });

  describe('415 without a JSON Content-Type', () => {
    it.each([
      ['missing', undefined],
      ['text/plain', 'text/plain'],
      ['form', 'application/x-www-form-urlencoded'],
      ['json with latin1 charset', 'application/json; charset=latin1'],
      ['json-ish', 'application/jsonx'],
    ])('%s → 415', async (_name, ct) => {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (ct !== undefined) headers['Content-Type'] = ct;
      const res = await server.put(1n, good(), headers);
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toContain('application/json');
    });

    it('a compressed body → 415', async () => {
      const res = await server.put(1n, good(), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      expect(res.status).toBe(415);
    });

    it.each(['application/json', 'Application/JSON; charset=UTF-8', 'application/json;charset="utf-8"'])('%s is accepted', async (ct) => {
      expect((await server.put(1n, good(), { 'Content-Type': ct })).status).toBe(200);
    });
  });

  describe('406 when Accept excludes JSON', () => {
    it.each(['text/html', 'application/json;q=0', 'text/html, */*;q=0', 'application/xml, application/*;q=0', 'application/json;q=0, */*', 'image/*'])(
      'Accept: %s → 406',
      async (accept) => {
        const res = await server.put(1n, good(), { Accept: accept, 'Content-Type': 'application/json' });
        expect(res.status).toBe(406);
      },
    );

    it.each(['*/*', 'application/*', 'application/json', 'application/json;q=0.5', 'text/html, application/json;q=0.1', 'text/html;q=0.9, */*;q=0.01'])(
      'Accept: %s is fine',
      async (accept) => {
        const res = await server.put(1n, good(), { Accept: accept, 'Content-Type': 'application/json' });
        expect(res.status).toBe(200);
      },
    );

    it('no Accept header is fine', async () => {
      expect((await server.put(1n, good(), { 'Content-Type': 'application/json' })).status).toBe(200);
    });
  });

  it('acceptsJson / isJsonContentType agree with the table above', () => {
    expect(acceptsJson(undefined)).toBe(true);
    expect(acceptsJson('application/json;q=0, */*')).toBe(false);
    expect(acceptsJson('application/json;q=oops')).toBe(false);
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('text/json')).toBe(false);
  });
});

describe('routing', () => {
  it.each(['POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'])('%s on the route → 405 with Allow: GET, PUT', async (method) => {
    const res = await http(server.port, { method, path: '/api/transactions/1' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PUT');
  });

  it.each(['/', '/api/transactions', '/api/transactions/', '/api/transactions/1/extra', '/api/other/1'])('%s → 404 JSON', async (path) => {
    const res = await http(server.port, { method: 'PUT', path, headers: { 'Content-Type': 'application/json' }, body: good() });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.text)).toMatchObject({ status: 404, error: 'Not Found' });
  });

  it('a query string does not change the route', async () => {
    expect((await http(server.port, { method: 'PUT', path: '/api/transactions/1?x=1', headers: { 'Content-Type': 'application/json' }, body: good() })).status).toBe(200);
  });
});
