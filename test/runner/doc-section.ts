import type { CiTimings, FileTiming, RunRecord } from './record.js';

/** The markers around the generated part of docs/development.md. */
export const BEGIN = '<!-- test-timings: made by `npm run docs:test-timings` from .ci/timings/; do not edit by hand -->';
export const END = '<!-- /test-timings -->';

const s = (seconds: number | null | undefined) => (seconds === null || seconds === undefined ? '' : seconds >= 10 ? seconds.toFixed(0) : seconds.toFixed(1));
const major = (run: RunRecord) => run.node.replace(/^v/, '').split('.')[0]!;
/** The files' seconds added up; null when none of them has the figure. */
const sum = (files: FileTiming[], key: 'wallSeconds' | 'cpuSeconds') => (files.some((f) => f[key] !== null) ? files.reduce((n, f) => n + (f[key] ?? 0), 0) : null);
const allFiles = (run: RunRecord) => run.lanes.flatMap((l) => l.timings);
const key = (f: { project: string; file: string }) => `${f.project} ${f.file}`;

function table(head: string[], rows: (string | number)[][]): string {
  return [`| ${head.join(' | ')} |`, `|${head.map((h) => (/^(Node|lane|project|file|section)$/.test(h) ? '---' : '---:')).join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function sections(run: CiTimings): string {
  return table(
    ['section', 'seconds'],
    run.sections.map((x) => [x.name === 'total' ? '**from start to OK**' : x.name, x.name === 'total' ? `**${x.seconds}**` : x.seconds]),
  );
}

/** The part of docs/development.md that the timings of a run before and after make. */
export function testTimingsSection(before: CiTimings, after: CiTimings): string {
  const total = (t: CiTimings) => t.sections.find((x) => x.name === 'total')?.seconds;
  const beforeRuns = new Map(before.runs.map((r) => [major(r), new Map(allFiles(r).map((f) => [key(f), f]))]));
  const lanes = after.runs.flatMap((r) =>
    r.lanes.map((l) => [`Node ${major(r)}`, l.name, l.files, l.passed, l.failed, l.skipped, s(l.wallSeconds), s(l.cpuSeconds)]),
  );
  const projects = after.runs.flatMap((r) => {
    const files = allFiles(r);
    const old = [...(beforeRuns.get(major(r))?.values() ?? [])];
    return [...new Set(files.map((f) => f.project))].map((p) => {
      const mine = files.filter((f) => f.project === p);
      const was = old.filter((f) => f.project === p);
      return [`Node ${major(r)}`, p, mine.length, s(sum(mine, 'wallSeconds')), s(sum(mine, 'cpuSeconds')), was.length ? s(sum(was, 'wallSeconds')) : ''];
    });
  });
  const nodes = after.runs.map(major);
  const rowsByFile = new Map<string, { project: string; file: string; tests: number; cells: Map<string, FileTiming> }>();
  for (const run of after.runs) {
    for (const f of allFiles(run)) {
      const row = rowsByFile.get(key(f)) ?? { project: f.project, file: f.file, tests: f.tests, cells: new Map() };
      row.cells.set(major(run), f);
      rowsByFile.set(key(f), row);
    }
  }
  const files = [...rowsByFile.values()]
    .sort((a, b) => a.project.localeCompare(b.project) || (b.cells.get(nodes[0]!)?.wallSeconds ?? 0) - (a.cells.get(nodes[0]!)?.wallSeconds ?? 0))
    .map((row) => [
      row.project,
      `\`${row.file}\``,
      row.tests,
      ...nodes.flatMap((n) => [s(row.cells.get(n)?.wallSeconds), s(row.cells.get(n)?.cpuSeconds)]),
      ...nodes.map((n) => s(beforeRuns.get(n)?.get(key(row))?.wallSeconds)),
    ]);
  return [
    BEGIN,
    '',
    `A fresh clone's \`CI=true bash .ci/run </dev/null\` on ${after.machine}: **${total(before) ?? '?'} s** at ${before.commit}, one vitest process a Node and one Node after the other; **${total(after) ?? '?'} s** at ${after.commit}, in lanes side by side (\`test/runner/run-tests.ts\`).`,
    '',
    `Before (${before.commit}):`,
    '',
    sections(before),
    '',
    `After (${after.commit}):`,
    '',
    sections(after),
    '',
    `The lanes at ${after.commit}: wall time from the lane's start to its end; CPU of its vitest and of every process it waited for (workers, exporters, \`rabbitmqctl\`, the broker node).`,
    '',
    table(['Node', 'lane', 'files', 'passed', 'failed', 'skipped', 'wall s', 'CPU s'], lanes),
    '',
    "Per project, the files' own times added up (files of one lane overlap, so the sum can exceed the lane's wall time); a file's wall time from its import to its last hook, its CPU that of its worker and of the processes it waited for, not of a broker node the files share. The storefront's files have no CPU figure (its own vitest config has no timing setup file) and their wall time is that of their tests alone. The files' times before are those of vitest's reporter (hooks included).",
    '',
    table(['Node', 'project', 'files', 'Σ wall s', 'Σ CPU s', `Σ wall s at ${before.commit}`], projects),
    '',
    '<details><summary>Per test file</summary>',
    '',
    table(
      ['project', 'file', 'tests', ...nodes.flatMap((n) => [`Node ${n} wall s`, `Node ${n} CPU s`]), ...nodes.map((n) => `Node ${n} wall s at ${before.commit}`)],
      files,
    ),
    '',
    '</details>',
    '',
    END,
  ].join('\n');
}

/** `doc` with its generated part replaced by `section`; throws when the markers are missing. */
export function withSection(doc: string, section: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/development.md has no "${BEGIN}" … "${END}" part to fill`);
  return doc.slice(0, from) + section + doc.slice(to + END.length);
}
