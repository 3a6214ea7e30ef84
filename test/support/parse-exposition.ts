// Reads a Prometheus text exposition back into values, for every test that checks one.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Sample lines of a text exposition (comments skipped): `samples` keyed exactly as rendered
 * (`name{a="x",b="y"}`), `parsed` with label values unescaped. Fails on a duplicated series.
 */
export function parseExposition(text: string): { samples: Map<string, number>; parsed: ParsedSample[] } {
  const samples = new Map<string, number>();
  const parsed: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const key = line.slice(0, space);
    const raw = line.slice(space + 1);
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (samples.has(key)) throw new Error(`series ${key} appears twice`);
    samples.set(key, value);
    const brace = key.indexOf('{');
    const name = brace < 0 ? key : key.slice(0, brace);
    parsed.push({ name, labels: brace < 0 ? {} : parseLabels(key.slice(brace + 1, -1)), value });
  }
  return { samples, parsed };
}

/** `series → value`, the series exactly as rendered (`name{a="x"}`). */
export function samples(text: string): Map<string, number> {
  return parseExposition(text).samples;
}

/** Names (before `{`) of every series. */
export function seriesNames(text: string): Set<string> {
  return new Set(parseExposition(text).parsed.map((s) => s.name));
}

/** Series of one family, optionally only those whose rendered labels contain `labelPart`. */
export function seriesOf(text: string, name: string, labelPart = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const [series, value] of samples(text)) {
    if (series.replace(/\{.*$/, '') === name && series.includes(labelPart)) out.set(series, value);
  }
  return out;
}

function parseLabels(body: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('="', i);
    const name = body.slice(i, eq);
    let j = eq + 2;
    let value = '';
    while (body[j] !== '"') {
      if (body[j] === '\\') {
        const next = body[j + 1];
        value += next === 'n' ? '\n' : next;
        j += 2;
      } else {
        value += body[j];
        j++;
      }
    }
    labels[name] = value;
    i = j + 2; // past the closing quote and the comma
  }
  return labels;
}
