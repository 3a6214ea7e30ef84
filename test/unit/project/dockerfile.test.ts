// The Dockerfile, checked statically: no Docker engine runs on the build machines. The storefront's
// absence from the image is checked in storefront-separation.test.ts.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Instruction {
  keyword: string;
  args: string;
  /** Index of the stage (FROM) it belongs to. */
  stage: number;
}

/** Instructions of a Dockerfile: comments dropped, continuation lines joined. */
function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  let stage = -1;
  return logical.map((line) => {
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile: cannot read ${JSON.stringify(line)}`);
    const keyword = (match[1] as string).toUpperCase();
    if (keyword === 'FROM') stage++;
    return { keyword, args: (match[2] as string).replace(/\s+/g, ' '), stage };
  });
}

/** LABEL key="value" pairs (values double-quoted or bare). */
function labels(args: string): Map<string, string> {
  return new Map([...args.matchAll(/([\w.-]+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))/g)].map((m) => [m[1] as string, (m[2] ?? m[3]) as string]));
}

const text = readFileSync('Dockerfile', 'utf8');
const instructions = parseDockerfile(text);
const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string; license: string; engines: { node: string }; bin: Record<string, string>; scripts: Record<string, string> };
const froms = instructions.filter((i) => i.keyword === 'FROM');
const finalStage = froms.length - 1;
const inFinal = (keyword: string) => instructions.filter((i) => i.stage === finalStage && i.keyword === keyword);
const index = (predicate: (i: Instruction) => boolean) => instructions.findIndex(predicate);

describe('Dockerfile', () => {
  it('builds on the newest Node line engines names, at the full version .ci/run tests, the same in every stage', () => {
    const images = froms.map((f) => f.args.split(' ')[0] as string);
    expect(images.length).toBeGreaterThanOrEqual(2);
    expect(new Set(images).size, 'every stage on the same base').toBe(1);
    const image = images[0] as string;
    const tag = /^node:(\d+\.\d+\.\d+)-[a-z0-9.-]+(@sha256:[0-9a-f]{64})?$/.exec(image);
    expect(tag, `${image}: node:MAJOR.MINOR.PATCH-VARIANT`).not.toBeNull();
    const version = tag?.[1] as string;
    // engines "^20.18.0 || ^26.10.0": the Node lines the tests run on; the image is on the newest.
    const lines = pkg.engines.node.split('||').map((range) => /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range));
    expect(lines.every(Boolean), `engines.node ${pkg.engines.node}: ^MAJOR.MINOR.PATCH ranges joined by ||`).toBe(true);
    const newest = lines.map((m) => [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])]).sort((a, b) => (b[0] as number) - (a[0] as number))[0] as number[];
    const [major, minor] = version.split('.').map(Number) as [number, number];
    expect(major, 'the image is on the newest Node line of engines').toBe(newest[0]);
    expect(minor).toBeGreaterThanOrEqual(newest[1] as number);
    // .ci/run runs the test command's test files again on exactly this version (its broker suite on the newest RabbitMQ).
    const ci = readFileSync('.ci/run', 'utf8');
    expect(/^LTS_NODE=(\S+)$/m.exec(ci)?.[1], '.ci/run LTS_NODE').toBe(version);
    // The same test files as npm test's last step, run by that Node (its lines continued with a backslash).
    expect(pkg.scripts.test).toMatch(/ && node dist\/test\/runner\/run-tests\.js$/);
    expect(ci).toMatch(/PATH="\$lts_bin:\$PATH" BROKER_VERSIONS="\$LTS_BROKER_VERSIONS" REQUIRE_BROKER=1 [^\n]*\\\n\s+node dist\/test\/runner\/run-tests\.js /);
    // The storefront is tested by the same command, so it declares the same lines.
    expect(JSON.parse(readFileSync('storefront/package.json', 'utf8')).engines.node).toBe(pkg.engines.node);
  });

  it('installs the dependencies from the manifests alone, before the sources are copied (layer cache)', () => {
    const build = instructions.filter((i) => i.stage === 0);
    const copies = build.filter((i) => i.keyword === 'COPY');
    const install = index((i) => i.stage === 0 && i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    expect(install).toBeGreaterThan(0);
    const copiedBefore = copies.filter((c) => instructions.indexOf(c) < install).map((c) => c.args);
    expect(copiedBefore).toEqual(['package.json package-lock.json ./']);
    const sources = index((i) => i.stage === 0 && i.keyword === 'COPY' && /^src\b/.test(i.args));
    const compile = index((i) => i.stage === 0 && i.keyword === 'RUN' && i.args.includes('npm run build:exporter'));
    expect(sources).toBeGreaterThan(install);
    expect(compile).toBeGreaterThan(sources);
  });

  it('takes the revision and branch from --build-arg REVISION and BRANCH, declared after npm ci so that layer stays cached', () => {
    const install = index((i) => i.stage === 0 && i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
    const arg = index((i) => i.stage === 0 && i.keyword === 'ARG' && /^REVISION(=|$)/.test(i.args));
    const compile = index((i) => i.stage === 0 && i.keyword === 'RUN' && i.args.includes('npm run build:exporter'));
    expect(arg).toBeGreaterThan(install);
    expect(compile).toBeGreaterThan(arg);
    expect(instructions[compile]?.args).toMatch(/REVISION="\$REVISION" BRANCH="\$BRANCH" npm run build:exporter/);
    expect(index((i) => i.stage === 0 && i.keyword === 'ARG' && /^BRANCH(=|$)/.test(i.args))).toBeLessThan(compile);
    const writer = readFileSync('tools/write-build-info.ts', 'utf8');
    expect(writer).toContain('process.env.REVISION');
    expect(writer).toContain('process.env.BRANCH');
  });

  it('labels the image with the OCI annotations, from package.json and the build', () => {
    expect(inFinal('ARG').map((a) => a.args)).toContain('REVISION=unknown');
    const found = new Map(inFinal('LABEL').flatMap((l) => [...labels(l.args)]));
    const image = froms[finalStage]?.args.split(' ')[0];
    expect(Object.fromEntries(found)).toEqual({
      'org.opencontainers.image.title': 'rabbitmq-exporter',
      'org.opencontainers.image.description': expect.stringContaining('RabbitMQ'),
      'org.opencontainers.image.version': pkg.version,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own build-argument syntax
      'org.opencontainers.image.revision': '${REVISION}',
      'org.opencontainers.image.licenses': pkg.license,
      'org.opencontainers.image.base.name': `docker.io/library/${image}`,
    });
  });

  it('runs as an unprivileged numeric user (so runAsNonRoot can verify it)', () => {
    const users = inFinal('USER');
    expect(users).toHaveLength(1);
    const uid = /^(\d+)(:\d+)?$/.exec(users[0]?.args ?? '');
    expect(uid, users[0]?.args).not.toBeNull();
    expect(Number(uid?.[1])).toBeGreaterThan(0);
  });

  it('checks its health with the script that finds the listening port, no port written in', () => {
    const checks = inFinal('HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const command = /CMD (\[.*\])$/.exec(checks[0]?.args ?? '');
    const argv = JSON.parse(command?.[1] ?? 'null') as string[];
    expect(argv).toEqual(['node', 'dist/src/server/healthcheck.js']);
    expect(existsSync('src/server/healthcheck.ts')).toBe(true);
    expect(checks[0]?.args).not.toMatch(/\b9419\b/);
    // The script ships: dist/src is copied whole into the final stage.
    expect(inFinal('COPY').map((c) => c.args)).toContain('--from=build /app/dist/src ./dist/src');
  });

  it('ships the exporter without the developer commands of tools/ (dashboards, docs generator)', () => {
    const copied = inFinal('COPY').map((c) => c.args);
    expect(copied.filter((args) => /\btools\b/.test(args))).toEqual([]);
    expect(copied).not.toContain('--from=build /app/dist ./dist');
  });

  it('exposes the default port and starts the built exporter', () => {
    expect(inFinal('EXPOSE').map((e) => e.args)).toEqual(['9419']);
    expect(JSON.parse(inFinal('ENTRYPOINT')[0]?.args ?? 'null')).toEqual(['node', pkg.bin['rabbitmq-exporter']]);
    expect(pkg.bin['rabbitmq-exporter']).toBe('dist/src/main.js');
  });

  it('copies only files that exist in the repository', () => {
    for (const copy of instructions.filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))) {
      for (const source of copy.args.split(' ').slice(0, -1)) expect(existsSync(source), `COPY ${copy.args}: ${source}`).toBe(true);
    }
  });

  it('the parser reads continuation lines and refuses what it cannot read', () => {
    expect(parseDockerfile('# c\nFROM a AS b\nRUN x \\\n  && y\n')).toEqual([
      { keyword: 'FROM', args: 'a AS b', stage: 0 },
      { keyword: 'RUN', args: 'x && y', stage: 0 },
    ]);
    expect(() => parseDockerfile('FROM a\n&& y\n')).toThrow('cannot read "&& y"');
  });
});
