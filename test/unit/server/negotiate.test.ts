import { describe, expect, it } from 'vitest';
import { acceptsGzip, chooseFormat } from '../../../src/server/negotiate.js';

describe('chooseFormat', () => {
  it.each([
    [undefined, 'text'],
    ['', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    ['text/plain;version=0.0.4', 'text'],
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.4', 'openmetrics'],
    // Prometheus 2.x default Accept header
    ['application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    ['text/plain;q=0.5, application/openmetrics-text; version=1.0.0; charset=utf-8', 'openmetrics'],
    ['APPLICATION/OPENMETRICS-TEXT', 'openmetrics'],
    ['application/openmetrics-text;q=0', 'text'],
    ['application/openmetrics-text;q=0.0,text/plain', 'text'],
    ['application/openmetrics-text; q=0, text/plain', 'text'],
    ['application/openmetrics-text;q=0.001', 'openmetrics'],
    ['application/json', 'text'],
    ['application/openmetrics-textual', 'text'],
  ])('%j → %s', (accept, format) => {
    expect(chooseFormat(accept)).toBe(format);
  });

  // A bug since fixed, kept as a regression test (src/server/negotiate.ts chooseFormat): any non-zero q for OpenMetrics wins, whatever
  // the q of text/plain. Prometheus (2.49+, scrape_protocols) orders its Accept header by
  // preference with descending q-values; a job preferring the text format sends e.g. the
  // header below and still gets OpenMetrics.
  it('honours q-values: text/plain preferred over OpenMetrics gives text', () => {
    expect(chooseFormat('text/plain;version=0.0.4;q=0.6,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.4')).toBe('text');
  });
});

describe('acceptsGzip', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZIP', true],
    ['deflate, gzip', true],
    ['gzip;q=1.0, identity; q=0.5, *;q=0', true],
    ['gzip;q=0.1', true],
    ['gzip;q=0', false],
    ['gzip; q=0', false],
    ['gzip;q=0.000', false],
    ['identity', false],
    ['deflate, br', false],
    ['x-gzip', false],
    ['gzipped', false],
    // `*` stands for every coding not named (issue 8: `Accept-Encoding: *` got no gzip).
    ['*', true],
    ['*;q=0.5', true],
    ['*;q=0', false],
    ['identity, *;q=0.1', true],
    ['gzip;q=0, *', false],
    ['*, gzip;q=0', false],
  ])('%j → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
