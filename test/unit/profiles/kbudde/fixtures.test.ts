import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';

/**
 * The kbudde/rabbitmq_exporter facts the kbudde naming profile is built against
 * (test/fixtures/kbudde, docs/kbudde-mapping.md): well-formed, complete, and consistent
 * with each other and with our catalogue.
 */

const root = (path: string) => fileURLToPath(new URL(`../../../../${path}`, import.meta.url));
const readJson = (path: string): unknown => JSON.parse(readFileSync(root(path), 'utf8'));

interface Family {
  name: string;
  type: string;
  module: string;
  endpoint: string | null;
  field: string | null;
  labels: string[];
  help: string;
  exclude_key: string | null;
  condition: string | null;
  unit?: string;
  notes?: string;
}

interface Variable {
  name: string;
  default: string | null;
  meaning: string;
  parse: string;
  config_file_key: string | null;
}

const familiesFile = readJson('test/fixtures/kbudde/families.json') as { source: { commit: string; tag: string }; families: Family[] };
const families = familiesFile.families;
const environment = readJson('test/fixtures/kbudde/environment.json') as {
  variables: Variable[];
  config_file: { keys: { key: string; type: string; env: string }[]; example: Record<string, unknown> };
};
const alerts = parseYaml(readFileSync(root('test/fixtures/kbudde/awesome-alerts.yaml'), 'utf8')) as {
  groups: { name: string; rules: { alert: string; expr: string; for: string; labels: { severity: string } }[] }[];
};
const mappingDoc = readFileSync(root('docs/kbudde-mapping.md'), 'utf8');

const MODULES = ['exporter', 'overview', 'queue', 'exchange', 'node', 'connections', 'shovel', 'federation', 'memory', 'aliveness'];
const NAME_RE = /^rabbitmq_[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const LABEL_RE = /^[a-z][a-z_]*$/;

/** kbudde's label sets per module (exporter_*.go), before a family's own extra label. */
const QUEUE_LABELS = ['cluster', 'vhost', 'queue', 'durable', 'policy', 'self'];
const MODULE_LABELS: Record<string, string[]> = {
  overview: ['cluster'],
  queue: QUEUE_LABELS,
  exchange: ['cluster', 'vhost', 'exchange'],
  node: ['cluster', 'node', 'self'],
  memory: ['cluster', 'node', 'self'],
  connections: ['cluster', 'vhost', 'node', 'peer_host', 'user', 'self'],
};

describe('kbudde families.json', () => {
  it('names the kbudde release it was derived from', () => {
    expect(familiesFile.source.tag).toBe('v1.0.0');
    expect(familiesFile.source.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it.each(families.map((f) => [f.name, f] as const))('%s is well-formed', (_name, f) => {
    expect(f.name).toMatch(NAME_RE);
    expect(['gauge', 'counter']).toContain(f.type);
    expect(MODULES).toContain(f.module);
    expect(f.help.trim().length).toBeGreaterThan(10);
    expect(Array.isArray(f.labels)).toBe(true);
    for (const label of f.labels) expect(label).toMatch(LABEL_RE);
    expect(new Set(f.labels).size).toBe(f.labels.length);
    expect(f.condition === null || (typeof f.condition === 'string' && f.condition.length > 0)).toBe(true);
    if (f.module === 'exporter') {
      expect(f.endpoint).toBeNull();
    } else {
      expect(f.endpoint).toMatch(/^\/api\//);
      expect(f.field, 'every broker family says which API field it reads').toBeTruthy();
    }
  });

  it('has unique names', () => {
    const names = families.map((f) => f.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it('has kbudde\'s counters exactly where names end in _total', () => {
    // True of kbudde: its counters (newDesc) all end in _total and none of its gauges does.
    for (const f of families) expect(f.name.endsWith('_total'), f.name).toBe(f.type === 'counter');
    const counters = families.filter((f) => f.type === 'counter').map((f) => f.module);
    expect(new Set(counters)).toEqual(new Set(['queue', 'exchange']));
  });

  it('holds every family of every module (116 in v1.0.0)', () => {
    const perModule: Record<string, number> = {};
    for (const f of families) perModule[f.module] = (perModule[f.module] ?? 0) + 1;
    expect(perModule).toEqual({
      exporter: 4, overview: 12, queue: 43, exchange: 11, node: 13, connections: 7, shovel: 1, federation: 1, memory: 22, aliveness: 2,
    });
    for (const name of [
      'rabbitmq_up', 'rabbitmq_module_up', 'rabbitmq_module_scrape_duration_seconds', 'rabbitmq_exporter_build_info', 'rabbitmq_version_info',
      'rabbitmq_messages_publish_rate', 'rabbitmq_queue_messages_deliver_rate', 'rabbitmq_queue_messages_delivered_total', 'rabbitmq_uptime',
    ]) {
      expect(families.some((f) => f.name === name), name).toBe(true);
    }
  });

  it('gives each module kbudde\'s label set', () => {
    const byName = new Map(families.map((f) => [f.name, f]));
    for (const f of families) {
      const base = MODULE_LABELS[f.module];
      if (!base || f.name === 'rabbitmq_version_info') continue;
      // The module's labels in kbudde's order, plus at most one of the family's own (state).
      expect(f.labels.filter((l) => base.includes(l)), f.name).toEqual(base);
      expect(f.labels.length - base.length, f.name).toBeLessThanOrEqual(1);
    }
    expect(byName.get('rabbitmq_version_info')?.labels).toEqual(['rabbitmq', 'erlang', 'node', 'cluster']);
    expect(byName.get('rabbitmq_connection_status')?.labels).toEqual(['cluster', 'vhost', 'node', 'peer_host', 'user', 'state', 'self']);
    expect(byName.get('rabbitmq_queue_state')?.labels).toEqual([...QUEUE_LABELS, 'state']);
    expect(byName.get('rabbitmq_up')?.labels).toEqual(['cluster', 'node']);
    expect(byName.get('rabbitmq_module_up')?.labels).toEqual(['cluster', 'node', 'module']);
    expect(byName.get('rabbitmq_shovel_state')?.labels).toEqual(['cluster', 'vhost', 'shovel', 'type', 'self', 'state']);
    expect(byName.get('rabbitmq_federation_state')?.labels).toEqual(['cluster', 'vhost', 'node', 'queue', 'exchange', 'self', 'status']);
  });

  it('records the quirks the profile must keep', () => {
    const byName = new Map(families.map((f) => [f.name, f]));
    expect(byName.get('rabbitmq_queue_messages_delivered_total')?.field).toBe('message_stats.deliver');
    expect(byName.get('rabbitmq_queue_messages_delivered_noack_total')?.field).toBe('message_stats.deliver_no_ack');
    expect(byName.get('rabbitmq_uptime')?.unit).toBe('milliseconds');
    for (const f of families.filter((x) => x.name.endsWith('_rate'))) {
      expect(f.type, f.name).toBe('gauge');
      expect(f.field, f.name).toMatch(/_details\.rate$/);
    }
  });

  it('has distinct EXCLUDE_METRICS keys within a module', () => {
    for (const module of MODULES) {
      const keys = families.filter((f) => f.module === module && f.exclude_key !== null).map((f) => f.exclude_key);
      expect(keys.filter((k, i) => keys.indexOf(k) !== i), module).toEqual([]);
    }
  });
});

describe('kbudde environment.json', () => {
  const names = environment.variables.map((v) => v.name);

  it('lists every variable kbudde reads, once', () => {
    for (const name of [
      'RABBIT_URL', 'RABBIT_USER', 'RABBIT_PASSWORD', 'RABBIT_USER_FILE', 'RABBIT_PASSWORD_FILE', 'PUBLISH_PORT', 'PUBLISH_ADDR',
      'OUTPUT_FORMAT', 'LOG_LEVEL', 'INCLUDE_QUEUES', 'SKIP_QUEUES', 'INCLUDE_VHOST', 'SKIP_VHOST', 'INCLUDE_EXCHANGES', 'SKIP_EXCHANGES',
      'RABBIT_EXPORTERS', 'RABBIT_TIMEOUT', 'MAX_QUEUES', 'EXCLUDE_METRICS', 'SKIPVERIFY', 'CAFILE', 'CERTFILE', 'KEYFILE',
      'RABBIT_CONNECTION', 'RABBIT_CAPABILITIES', 'ALIVENESS_VHOST',
    ]) {
      expect(names, name).toContain(name);
    }
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it.each(environment.variables.map((v) => [v.name, v] as const))('%s has a default, a meaning and its parsing', (_name, v) => {
    expect(v.name).toMatch(/^[A-Z][A-Z_]*$/);
    expect(v.default === null || typeof v.default === 'string').toBe(true);
    expect(v.meaning.length).toBeGreaterThan(10);
    expect(v.parse.length).toBeGreaterThan(5);
  });

  it('keeps the defaults kbudde\'s users rely on', () => {
    const defaults = Object.fromEntries(environment.variables.map((v) => [v.name, v.default]));
    expect(defaults).toMatchObject({
      RABBIT_URL: 'http://127.0.0.1:15672', RABBIT_USER: 'guest', RABBIT_PASSWORD: 'guest', PUBLISH_PORT: '9419', RABBIT_TIMEOUT: '30',
      MAX_QUEUES: '0', INCLUDE_QUEUES: '.*', SKIP_QUEUES: '^$', RABBIT_EXPORTERS: 'exchange,node,overview,queue', RABBIT_CONNECTION: 'direct',
    });
  });

  it('maps the config file keys onto the variables, both ways', () => {
    const keys = environment.config_file.keys;
    for (const key of keys) {
      const variable = environment.variables.find((v) => v.name === key.env);
      expect(variable?.config_file_key, key.key).toBe(key.key);
      expect(environment.config_file.example, key.key).toHaveProperty(key.key);
    }
    for (const v of environment.variables.filter((x) => x.config_file_key !== null)) {
      expect(keys.some((k) => k.key === v.config_file_key && k.env === v.name), v.name).toBe(true);
    }
    expect(Object.keys(environment.config_file.example).sort()).toEqual(keys.map((k) => k.key).sort());
  });
});

describe('awesome-prometheus-alerts kbudde rules', () => {
  const rules = alerts.groups.flatMap((g) => g.rules);
  const familyNames = new Set(families.map((f) => f.name));

  it('are the 11 published rules, each with a name, expression, duration and severity', () => {
    expect(rules.map((r) => r.alert)).toEqual([
      'RabbitmqDown', 'RabbitmqClusterDown', 'RabbitmqClusterPartition', 'RabbitmqOutOfMemory', 'RabbitmqInstanceTooManyConnections',
      'RabbitmqDeadLetterQueueFillingUp', 'RabbitmqTooManyMessagesInQueue', 'RabbitmqSlowQueueConsuming', 'RabbitmqNoConsumer',
      'RabbitmqTooManyConsumers', 'RabbitmqInactiveExchange',
    ]);
    for (const r of rules) {
      expect(r.expr.length, r.alert).toBeGreaterThan(0);
      expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
      expect(['warning', 'critical']).toContain(r.labels.severity);
    }
  });

  it('read only families kbudde serves', () => {
    for (const r of rules) {
      const used = r.expr.match(/rabbitmq_[a-z0-9_]+/g) ?? [];
      expect(used.length, r.alert).toBeGreaterThan(0);
      for (const name of used) expect(familyNames.has(name), `${r.alert}: ${name}`).toBe(true);
    }
  });
});

describe('docs/kbudde-mapping.md', () => {
  /** Table rows whose first cell is a kbudde family: [kbudde name, the "ours" cell]. */
  const rows = [...mappingDoc.matchAll(/^\| `(rabbitmq_[a-z0-9_]+)` \| ([^|]*) \|/gm)].map((m) => [m[1]!, m[2]!] as const);
  const ourNames = new Set(catalogue(COLLECTORS).flatMap((d) => (d.rate ? [d.name, d.rate.name] : [d.name])));

  it('has one row per kbudde family, and no row for anything else', () => {
    const documented = rows.map(([name]) => name);
    expect(documented.filter((n, i) => documented.indexOf(n) !== i)).toEqual([]);
    expect(new Set(documented)).toEqual(new Set(families.map((f) => f.name)));
  });

  it('names only families our catalogue has, or says none', () => {
    for (const [kbudde, ours] of rows) {
      const named = ours.match(/rabbitmq_[a-z0-9_]+/g) ?? [];
      if (named.length === 0) {
        expect(ours.trim(), kbudde).toBe('none');
        continue;
      }
      for (const name of named) expect(ourNames.has(name), `${kbudde} → ${name}`).toBe(true);
    }
  });
});
