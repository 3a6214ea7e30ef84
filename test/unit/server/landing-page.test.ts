// Issue 32 item 8 (the landing page hides trouble) and issue 24 item 3 (a 31.8 MB page at 10,000 targets).
import { describe, expect, it } from 'vitest';
import { causeHint } from '../../../src/pipeline/failure-hints.js';
import { landingPage, TARGETS_PER_PAGE, type LandingTarget } from '../../../src/server/landing-page.js';
import type { FailureCause } from '../../../src/broker/failure-cause.js';
import { TargetState } from '../../../src/pipeline/target-state.js';
import { targetStatus, targetVerdict, type BrokerIdentity, type PageLogin } from '../../../src/pipeline/target-status.js';

const NOW = 1_000_000;
const BROKER: BrokerIdentity = { productName: 'RabbitMQ', productVersion: '3.10.8', clusterName: 'rabbit@orders-1', node: 'rabbit@orders-1' };
const ACCESS: PageLogin = { username: 'monitoring', passwordSource: 'environment variable RABBITMQ_PASSWORD_FILE', maxResponseBytes: 160 * 1024 * 1024 };

/** A target with the overview and `others` collectors registered, none polled. */
function newState(name = 'orders', others: readonly string[] = ['nodes', 'queues', 'exchanges']): TargetState {
  const state = new TargetState(name, `http://${name}.example:15672`);
  state.register('overview', 15_000, 45_000, { decidesUp: true, timeoutMs: 15_000 });
  for (const other of others) state.register(other, 30_000, 90_000, { timeoutMs: 30_000 });
  return state;
}

/** A target as the app lists it; `copies` counts the statuses copied. */
function listedState(state: TargetState, { broker = true } = {}, copies = { count: 0 }): LandingTarget {
  return {
    name: state.name,
    verdict: targetVerdict(state),
    status: () => {
      copies.count++;
      return targetStatus(state, broker ? BROKER : undefined, ACCESS);
    },
  };
}

function succeedAll(state: TargetState): void {
  for (const name of state.collectors.keys()) state.succeeded(name, [], 0.01, 0, NOW - 1000);
}

/** The page of one target; `broker: false` before the broker was read. */
function page(state: TargetState, { broker = true } = {}) {
  return landingPage([listedState(state, { broker })], { now: NOW });
}

/** The collectors' names in the order of the page's rows. */
function rowOrder(html: string): string[] {
  return [...html.matchAll(/<tr class="condition-(\w+)"><td>([^<]+)<\/td>/g)].map((m) => `${m[2]}:${m[1]}`);
}

describe('the verdict of one target', () => {
  it('healthy: every collector answers; the broker version and cluster name are shown', () => {
    const state = newState();
    succeedAll(state);
    const { status, html } = page(state);
    expect(status).toBe(200);
    expect(html).toContain('<section class="target verdict-healthy">');
    expect(html).toContain('<span class="verdict">healthy</span>');
    expect(html).toContain('<p class="why">4 collectors polled, all answering</p>');
    expect(html).toContain('RabbitMQ 3.10.8 · cluster rabbit@orders-1');
  });

  it('degraded, not "up", while a collector has never succeeded; failing rows first and marked', () => {
    const state = newState();
    succeedAll(state);
    state.failed('exchanges', "/api/exchanges: the poll's deadline of 30000 ms passed", 30, NOW - 500, { kind: 'poll_deadline' });
    const never = newState('billing', ['nodes', 'queues']);
    never.succeeded('overview', [], 0.01, 0, NOW - 1000);
    never.succeeded('nodes', [], 0.01, 0, NOW - 1000);
    never.failed('queues', '/api/queues/%2F: HTTP 500', 0.2, NOW - 900, { kind: 'http_status', status: 500 });

    const one = page(state).html;
    expect(one).toContain('<span class="verdict">degraded</span>');
    expect(one).toContain('<p class="why">1 of 4 collectors failing (exchanges)</p>');
    expect(rowOrder(one)).toEqual(['exchanges:failing', 'overview:ok', 'nodes:ok', 'queues:ok']);
    expect(one).toContain('raise collectors.exchanges.timeout');

    expect(page(never).html).toContain('<p class="why">1 of 3 collectors failing (queues); never succeeded: queues</p>');
  });

  it('degraded when the broker refused a request of a successful poll (missing tag): not "ok"', () => {
    const state = newState();
    succeedAll(state);
    state.succeeded('nodes', [], 0.01, 0, NOW - 100, new Map(), [
      { path: '/api/feature-flags', cause: { kind: 'forbidden', status: 401 }, why: "refused to the exporter's user: it needs the administrator tag" },
    ]);
    const { html } = page(state);
    expect(html).toContain('<span class="verdict">degraded</span>');
    expect(html).toContain('<p class="why">requests left out by nodes</p>');
    expect(rowOrder(html)[0]).toBe('nodes:partial');
    expect(html).toContain("left out /api/feature-flags: refused to the exporter&#39;s user: it needs the administrator tag");
    expect(html).toContain('rabbitmqctl set_user_tags monitoring monitoring');
  });

  it('down: why, and a hint naming the user and where its password came from, never the password', () => {
    const state = newState();
    state.failed('overview', '/api/overview: HTTP 401 (not_authorized: Login failed)', 0.01, NOW - 500, { kind: 'unauthorized', status: 401 });
    const { html } = page(state, { broker: false });
    expect(html).toContain('<span class="verdict">down</span>');
    expect(html).toContain('<p class="why">overview failed: /api/overview: HTTP 401 (not_authorized: Login failed)</p>');
    expect(html).toContain('<p class="hint">The broker refused user &#34;monitoring&#34; (password from environment variable RABBITMQ_PASSWORD_FILE)');
    expect(html).toContain('broker: not read yet');
  });

  it('starting until the first poll of the broker ends: an unpolled target is not down', () => {
    const { html } = page(newState(), { broker: false });
    expect(html).toContain('<span class="verdict">starting</span>');
    expect(html).toContain('the first poll of the broker has not finished yet');
  });
});

describe('hints', () => {
  const context = { collector: 'queues', timeoutMs: 30_000, url: 'http://mq.example:5672', access: ACCESS };
  const hint = (cause: FailureCause) => causeHint(cause, context);

  it('name the likely cause and the setting to change', () => {
    expect(hint({ kind: 'unauthorized', status: 401 })).toContain('user "monitoring" (password from environment variable RABBITMQ_PASSWORD_FILE)');
    expect(hint({ kind: 'forbidden', status: 403 })).toContain('monitoring tag');
    expect(hint({ kind: 'connection_refused' })).toContain('Nothing listens at mq.example:5672');
    expect(hint({ kind: 'not_http' })).toContain('is this the AMQP port (5672)?');
    expect(hint({ kind: 'poll_deadline' })).toContain('deadline of 30 s: raise collectors.queues.timeout');
    expect(hint({ kind: 'request_timeout' })).toContain('target.timeouts.request');
    expect(hint({ kind: 'too_large' })).toContain('over the cap (lists: 160 MiB): raise target.max_response_bytes');
    expect(hint({ kind: 'not_json' })).toContain('without /api');
    expect(hint({ kind: 'http_status', status: 503 })).toContain('HTTP 503');
  });
});

describe('many targets', () => {
  /** `n` targets: every 100th down (wrong password), every 50th other degraded, the rest healthy. */
  function fleet(n: number): TargetState[] {
    return Array.from({ length: n }, (_, i) => {
      const state = newState(`mq-${String(i).padStart(5, '0')}`, ['nodes', 'queues', 'exchanges', 'vhosts', 'connections', 'channels', 'consumers']);
      if (i % 100 === 7) {
        state.failed('overview', '/api/overview: HTTP 401', 0.01, NOW, { kind: 'unauthorized', status: 401 });
      } else {
        succeedAll(state);
        if (i % 50 === 3) state.failed('queues', "the poll's deadline of 30000 ms passed", 30, NOW, { kind: 'poll_deadline' });
      }
      return state;
    });
  }

  it('10,000 targets: counts by verdict, the unhealthy first, one page of details, small and quick', () => {
    const states = fleet(10_000);
    // CPU time, not wall time: the machine may be shared, and a loaded machine slows the clock, not the work.
    const cpuBefore = process.cpuUsage();
    const copies = { count: 0 };
    const { status, html } = landingPage(
      states.map((s) => listedState(s, {}, copies)),
      { now: NOW },
    );
    const cpu = process.cpuUsage(cpuBefore);
    const ms = (cpu.user + cpu.system) / 1000;
    expect(status).toBe(200);
    expect(html).toContain('<p class="counts">10,000 targets: <span class="count-down">100 down</span> <span class="count-degraded">200 degraded</span> <span class="count-healthy">9,700 healthy</span></p>');
    expect(html).toContain('page 1 of 1,000, worst first');
    const shown = [...html.matchAll(/<span class="verdict">(\w+)<\/span> <a href="\/\?target=([^"]+)">/g)].map((m) => `${m[2]}:${m[1]}`);
    expect(shown).toHaveLength(TARGETS_PER_PAGE);
    expect(shown.slice(0, 3)).toEqual(['mq-00007:down', 'mq-00107:down', 'mq-00207:down']);
    expect(Buffer.byteLength(html)).toBeLessThan(200 * 1024);
    // Every target's verdict, but only the shown targets' statuses copied.
    expect(copies.count).toBe(TARGETS_PER_PAGE);
    // A verdict per target, one sort, ten statuses, one page of HTML: a page must not hold the event
    // loop (and /-/healthy) for long.
    expect(ms).toBeLessThan(500);
  });

  it('?page=N shows the next targets, worst first; a page past the last is 404, a bad one 400', () => {
    const statuses = fleet(250).map((s) => listedState(s));
    const second = landingPage(statuses, { now: NOW, page: '2' }).html;
    // 3 down, 5 degraded (every 50th + 3), then the healthy by name: page 2 starts at the third healthy.
    expect(second).toContain('page 2 of 25, worst first');
    expect(second).toMatch(/<span class="verdict">healthy<\/span> <a href="\/\?target=mq-00002">/);
    expect(second).toContain('<a href="/?page=1">previous</a>');
    expect(second).toContain('<a href="/?page=3">next</a>');
    expect(landingPage(statuses, { page: '26' }).status).toBe(404);
    for (const bad of ['0', '-1', 'abc', '1e3', '']) expect(landingPage(statuses, { page: bad }).status, bad).toBe(400);
  });

  it('?target=NAME shows that target; an unknown one is 404 without listing the others', () => {
    const statuses = fleet(30).map((s) => listedState(s));
    const one = landingPage(statuses, { target: 'mq-00012' });
    expect(one.status).toBe(200);
    expect([...one.html.matchAll(/<section /g)]).toHaveLength(1);
    expect(one.html).toContain('>mq-00012</a>');
    const unknown = landingPage(statuses, { target: '<img src=x>' });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('No target is named &#34;&#60;img src=x&#62;&#34;.');
    expect(unknown.html).not.toContain('mq-000');
  });

  it('names and errors are HTML-escaped', () => {
    const state = newState('a<b>&"c\'');
    succeedAll(state);
    state.failed('nodes', '<script>alert(1)</script>', 0.1, NOW, { kind: 'other' });
    const { html } = page(state);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('a<b>');
    expect(html).toContain('a&#60;b&#62;&#38;&#34;c&#39;');
    expect(html).toContain('href="/?target=a%3Cb%3E%26%22c&#39;"');
  });
});
