// Panels over families that are off at the defaults say which setting turns them on, rather than
// "No data" (issue 53: at the defaults, 84 of the shipped dashboards' 209 expressions returned nothing).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue } from '../../../../src/collectors/catalogue.js';
import { COLLECTORS } from '../../../../src/collectors/registry.js';
import { DASHBOARDS, dashboardPath } from '../../../../tools/dashboards/dashboard-files.js';
import { noValueText, settingFor } from '../../../../tools/dashboards/off-by-default.js';
import { REPO_ROOT } from '../../../support/fixtures.js';
import { metricNames, panelsOf } from './lint.js';

const byName = new Map(catalogue(COLLECTORS).flatMap((d) => [[d.name, d] as const, ...(d.rate ? [[d.rate.name, d.rate] as const] : [])]));

describe('noValue: what turns a panel on', () => {
  it('names the option or the collector a query needs, and nothing for a query of families on by default', () => {
    expect(noValueText(['max by (vhost, queue) (rabbitmq_queue_estimated_wait_seconds{job=~"$job"})'])).toBe('No data. Off by default: needs collectors.queues.signals');
    expect(noValueText(['rabbitmq_queue_messages_ready{job=~"$job"}'])).toBeUndefined();
    // A join with a family that is on still needs the other side.
    expect(noValueText(['rabbitmq_queue_consumers_stuck * on (vhost, queue) group_left (type) rabbitmq_queue_info'])).toBe('No data. Off by default: needs collectors.queues.signals');
    // Either side of `or` may have data; a panel with one query of families that are on has data.
    expect(noValueText(['rabbitmq_queue_consumers_stuck or rabbitmq_queue_messages_ready'])).toBeUndefined();
    expect(noValueText(['rabbitmq_queue_consumers_stuck', 'rabbitmq_queue_messages_ready'])).toBeUndefined();
    // A collector off by default, and two settings in one panel.
    expect(noValueText(['rabbitmq_certificate_expiry_timestamp_seconds', 'rabbitmq_quorum_queues_without_leader'])).toBe('No data. Off by default: needs collectors.certificates.enabled and collectors.queues.quorum_placement');
  });

  it('every shipped panel whose every query reads a family off at the defaults says what turns it on, and only those', () => {
    let said = 0;
    for (const spec of DASHBOARDS) {
      const file = dashboardPath(spec);
      const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Parameters<typeof panelsOf>[0];
      for (const panel of panelsOf(dashboard)) {
        const exprs = (panel.targets ?? []).map((t) => t.expr ?? '');
        if (exprs.length === 0) continue;
        const needs = exprs.map((expr) => new Set(metricNames(expr).flatMap((name) => {
          const def = byName.get(name);
          const setting = def && settingFor(def);
          return setting ? [setting] : [];
        })));
        const off = exprs.every((expr, i) => needs[i]!.size > 0 && !/\sor\s/.test(expr));
        const noValue = (panel.fieldConfig?.defaults as { noValue?: string } | undefined)?.noValue;
        if (!off) {
          expect(noValue, `${file} "${panel.title}"`).toBeUndefined();
          continue;
        }
        said++;
        for (const setting of needs.flatMap((s) => [...s])) expect(noValue, `${file} "${panel.title}"`).toContain(setting);
      }
    }
    expect(said).toBeGreaterThanOrEqual(10);
  });
});
