// The example manifests under deploy/, checked offline:
// - against the Kubernetes and prometheus-operator schemas shipped by the npm packages
//   kubernetes-models (Kubernetes 1.27 OpenAPI) and @kubernetes-models/prometheus-operator
//   (the operator's CRD schemas): types, required fields, enums, patterns;
// - for unknown fields (what `kubectl apply` refuses with strict field validation, and what a typo
//   such as readOnlyRootFileSystem would silently switch off): by the TypeScript types of the same
//   packages, whose excess-property check walks every nested object;
// - for the fields that matter to this exporter, by hand: probes, ports, security, config, shards.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { ScrapeConfig } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { parseFlags } from '../../../src/config/args.js';
import { COLLECTORS } from '../../../src/collectors/registry.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { configSchema } from '../../../src/config/schema.js';
import { PROMETHEUS_RULE_FILE } from '../../../tools/dashboards/rule-files.js';
import { REPO_ROOT } from '../../support/fixtures.js';
import { PROMTOOL, skipWithoutPromtool } from '../../support/required-tools.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML of any shape, read by key paths
type Doc = Record<string, any>;
interface Manifest {
  file: string;
  doc: Doc;
}

/** Per apiVersion/kind: the schema-checked model and the TypeScript type (module, name) of the same object. */
const KINDS: Record<string, { model: new (data: never) => { validate(): void }; module: string; type: string }> = {
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  'apps/v1/Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'apps/v1/StatefulSet': { model: StatefulSet, module: 'kubernetes-models/apps/v1/StatefulSet', type: 'IStatefulSet' },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    model: ServiceMonitor,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    type: 'IServiceMonitor',
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    model: PrometheusRule,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    type: 'IPrometheusRule',
  },
  'monitoring.coreos.com/v1alpha1/ScrapeConfig': {
    model: ScrapeConfig,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1/ScrapeConfig',
    type: 'IScrapeConfig',
  },
};

const DEPLOY = join(REPO_ROOT, 'deploy');
const rel = (path: string) => relative(REPO_ROOT, path).split('\\').join('/');

/** Kubernetes reads manifests as YAML 1.1 (0440 is octal there, decimal 440 in YAML 1.2). */
function readManifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(REPO_ROOT, file), 'utf8'), { version: '1.1', uniqueKeys: true }).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
    return { file, doc: d.toJS() as Doc };
  });
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [rel(path)] : [];
  });
}

/** The manifest files a kustomization folder takes in, folders with their own kustomization followed. */
function kustomize(dir: string): { file: string; namespace: string | undefined }[] {
  const kustomization = readManifests(join(dir, 'kustomization.yaml'))[0]?.doc as Doc;
  expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
  expect(kustomization.kind).toBe('Kustomization');
  // configMapGenerator and replacements: deploy/'s runbook address setting (checked in test/unit/tools/dashboards/runbook-url.test.ts).
  expect(Object.keys(kustomization).filter((k) => !['apiVersion', 'kind', 'namespace', 'resources', 'configMapGenerator', 'replacements'].includes(k))).toEqual([]);
  return (kustomization.resources as string[]).flatMap((resource) => {
    const path = join(REPO_ROOT, dir, resource);
    expect(existsSync(path), `${dir}/kustomization.yaml: ${resource} does not exist`).toBe(true);
    const files = statSync(path).isDirectory() ? kustomize(rel(path)).map((f) => f.file) : [rel(path)];
    return files.map((file) => ({ file, namespace: kustomization.namespace as string | undefined }));
  });
}

const KUSTOMIZATIONS = yamlFiles(DEPLOY)
  .filter((f) => basename(f) === 'kustomization.yaml')
  .map(dirname);
/** Plain Prometheus configuration, not a Kubernetes object (checked by promtool below). */
const PROMETHEUS_CONFIG = 'deploy/probe/prometheus.yml';
const FILES = [
  ...new Set([
    ...yamlFiles(DEPLOY).filter((f) => basename(f) !== 'kustomization.yaml' && f !== PROMETHEUS_CONFIG),
    ...KUSTOMIZATIONS.flatMap((dir) => kustomize(dir).map((f) => f.file)),
  ]),
].sort();
const MANIFESTS = FILES.flatMap(readManifests);
const kindOf = (m: Manifest) => `${m.doc.apiVersion}/${m.doc.kind}`;
const find = (file: string, kind: string) => {
  const found = MANIFESTS.find((m) => m.file === file && m.doc.kind === kind);
  expect(found, `${file}: no ${kind}`).toBeDefined();
  return (found as Manifest).doc;
};

const dockerUid = Number(/^USER (\d+)/m.exec(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'))?.[1]);
const dockerPort = Number(/^EXPOSE (\d+)/m.exec(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'))?.[1]);

describe('deploy/ manifests against the Kubernetes and prometheus-operator schemas', () => {
  it('finds the manifests, each of a known kind', () => {
    expect(FILES).toEqual([
      'dashboards/kubernetes/prometheus-rule.yaml',
      'deploy/configmap.yaml',
      'deploy/deployment.yaml',
      'deploy/probe/scrapeconfig.yaml',
      'deploy/service.yaml',
      'deploy/servicemonitor.yaml',
      'deploy/sharded/configmap.yaml',
      'deploy/sharded/service.yaml',
      'deploy/sharded/servicemonitor.yaml',
      'deploy/sharded/statefulset.yaml',
    ]);
    for (const m of MANIFESTS) expect(Object.keys(KINDS), m.file).toContain(kindOf(m));
  });

  it.each(FILES)('%s passes the schema of its kind', (file) => {
    for (const { doc } of MANIFESTS.filter((m) => m.file === file)) {
      const { model } = KINDS[`${doc.apiVersion}/${doc.kind}`] as (typeof KINDS)[string];
      expect(() => new model(doc as never).validate()).not.toThrow();
    }
  });

  it('the schema check does catch a wrong type and a missing required field', () => {
    const deployment = structuredClone(find('deploy/deployment.yaml', 'Deployment'));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'metrics';
    expect(() => new Deployment(deployment as never).validate()).toThrow('data/spec/template/spec/containers/0/ports/0/containerPort must be integer');
    const monitor = structuredClone(find('deploy/servicemonitor.yaml', 'ServiceMonitor'));
    delete monitor.spec.selector;
    expect(() => new ServiceMonitor(monitor as never).validate()).toThrow('data/spec must have required property selector');
  });

  // One TypeScript program over every manifest: each document assigned to its kind's type.
  function unknownFields(manifests: Manifest[]): string[] {
    const tmp = join(REPO_ROOT, '.tmp');
    mkdirSync(tmp, { recursive: true });
    const dir = mkdtempSync(join(tmp, 'manifest-types-'));
    try {
      const source = join(dir, 'manifests.ts');
      const lines = manifests.map((m, i) => {
        const { module, type } = KINDS[kindOf(m)] as (typeof KINDS)[string];
        return `import type { ${type} as T${i} } from '${module}';\nexport const m${i}: T${i} = ${JSON.stringify(m.doc)};`;
      });
      writeFileSync(source, `${lines.join('\n')}\n`);
      const program = ts.createProgram([source], {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
      });
      return ts.getPreEmitDiagnostics(program).map((d) => {
        const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
        const at = manifests[Math.floor(line / 2)];
        return `${at ? `${at.file} (${at.doc.kind})` : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 200)}`;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('no manifest has a field its kind does not know', { timeout: 60_000 }, () => {
    expect(unknownFields(MANIFESTS)).toEqual([]);
  });

  it('the unknown-field check does catch a misspelt field deep inside', { timeout: 60_000 }, () => {
    const deployment = structuredClone(find('deploy/deployment.yaml', 'Deployment'));
    const security = deployment.spec.template.spec.containers[0].securityContext;
    security.readOnlyRootFileSystem = security.readOnlyRootFilesystem;
    delete security.readOnlyRootFilesystem;
    const problems = unknownFields([{ file: 'deploy/deployment.yaml', doc: deployment }]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^deploy\/deployment\.yaml \(Deployment\): Object literal may only specify known properties, .*readOnlyRootFileSystem.* does not exist in type 'ISecurityContext'/);
  });
});

/** Checks shared by the Deployment and the StatefulSet's pods; returns the container. */
function checkPod(file: string, workload: Doc, configMap: Doc): Doc {
  const pod = workload.spec.template;
  expect(workload.spec.selector.matchLabels, `${file}: selector`).toEqual(pod.metadata.labels);
  expect(pod.spec.automountServiceAccountToken).toBe(false);
  expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: dockerUid, runAsGroup: dockerUid, fsGroup: dockerUid });
  expect(pod.spec.containers).toHaveLength(1);
  const container = pod.spec.containers[0];
  expect(container.securityContext).toEqual({
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  });
  expect(container.ports).toEqual([{ name: 'metrics', containerPort: dockerPort, protocol: 'TCP' }]);
  expect(container.livenessProbe.httpGet).toEqual({ path: '/-/healthy', port: 'metrics' });
  expect(container.readinessProbe.httpGet).toEqual({ path: '/-/ready', port: 'metrics' });
  expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
  expect(Object.keys(container.resources.limits)).toEqual(['memory']);

  // --config names the ConfigMap's file, mounted read-only; the password comes from the Secret.
  const mounts = new Map<string, Doc>(container.volumeMounts.map((m: Doc) => [m.name, m]));
  const volumes = new Map<string, Doc>(pod.spec.volumes.map((v: Doc) => [v.name, v]));
  expect(volumes.get('config')?.configMap.name).toBe(configMap.metadata.name);
  const configPath = `${mounts.get('config')?.mountPath}/config.yaml`;
  expect(container.args).toContain(`--config=${configPath}`);
  const config = parse(configMap.data['config.yaml'] as string) as Doc;
  const parsed = configSchema(COLLECTORS).safeParse(config);
  expect(parsed.success, `${file}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  expect(config.target.password).toBeUndefined();
  expect(volumes.get('secret')?.secret).toEqual({ secretName: 'rabbitmq-exporter', defaultMode: 0o440 });
  expect(config.target.password_file).toBe(`${mounts.get('secret')?.mountPath}/password`);
  for (const mount of ['config', 'secret']) expect(mounts.get(mount)?.readOnly).toBe(true);
  // A read-only root file system, and a writable /tmp for whatever a library might want there.
  expect(mounts.get('tmp')?.mountPath).toBe('/tmp');
  expect(volumes.get('tmp')?.emptyDir).toBeDefined();
  return container;
}

function checkServiceAndMonitor(service: Doc, monitor: Doc, workload: Doc): void {
  expect(service.spec.selector).toEqual(workload.spec.template.metadata.labels);
  expect(service.spec.ports).toEqual([{ name: 'metrics', port: dockerPort, targetPort: 'metrics', protocol: 'TCP' }]);
  for (const [key, value] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>)) {
    expect(service.metadata.labels[key], `ServiceMonitor selects ${key}=${value}`).toBe(value);
  }
  expect(monitor.spec.endpoints).toHaveLength(1);
  expect(monitor.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
}

describe('deploy/: the fields that matter to this exporter', () => {
  it('one exporter: Deployment, Service, ServiceMonitor, config from a ConfigMap, password from a Secret', () => {
    const deployment = find('deploy/deployment.yaml', 'Deployment');
    expect(deployment.spec.replicas).toBe(1);
    checkPod('deploy/deployment.yaml', deployment, find('deploy/configmap.yaml', 'ConfigMap'));
    checkServiceAndMonitor(find('deploy/service.yaml', 'Service'), find('deploy/servicemonitor.yaml', 'ServiceMonitor'), deployment);
  });

  it('shards: a StatefulSet whose pods take --shard from their ordinal (--shard=auto, POD_NAME) and --total-shards from replicas', () => {
    const statefulSet = find('deploy/sharded/statefulset.yaml', 'StatefulSet');
    const container = checkPod('deploy/sharded/statefulset.yaml', statefulSet, find('deploy/sharded/configmap.yaml', 'ConfigMap'));
    expect(container.env).toEqual([{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }]);
    expect(container.args).toContain('--shard=auto');
    expect(container.args).toContain(`--total-shards=${statefulSet.spec.replicas}`);
    expect(statefulSet.spec.replicas).toBeGreaterThan(1);
    // The exporter reads these flags as the pods get them: the last pod is the last shard.
    const replicas = statefulSet.spec.replicas as number;
    const flags = parseFlags((container.args as string[]).filter((a) => !a.startsWith('--config=')));
    expect(loadConfig(flags, { POD_NAME: `${statefulSet.metadata.name}-${replicas - 1}` }, COLLECTORS).sharding).toEqual({ shard: replicas - 1, totalShards: replicas });
    const service = find('deploy/sharded/service.yaml', 'Service');
    expect(statefulSet.spec.serviceName).toBe(service.metadata.name);
    expect(service.spec.clusterIP).toBe('None');
    checkServiceAndMonitor(service, find('deploy/sharded/servicemonitor.yaml', 'ServiceMonitor'), statefulSet);
    // Each layout selects only its own pods: the ServiceMonitors never scrape the other's.
    const single = find('deploy/deployment.yaml', 'Deployment').spec.template.metadata.labels;
    expect(statefulSet.spec.template.metadata.labels).not.toEqual(single);
  });

  it('the kustomizations take in the generated PrometheusRule rather than a copy, and every manifest outside probe/', () => {
    const single = kustomize('deploy');
    expect(single.map((f) => f.file)).toContain(PROMETHEUS_RULE_FILE);
    expect(new Set(single.map((f) => f.namespace))).toEqual(new Set(['monitoring']));
    const taken = KUSTOMIZATIONS.flatMap((dir) => kustomize(dir).map((f) => f.file));
    expect(FILES.filter((f) => !f.startsWith('deploy/probe/') && !taken.includes(f))).toEqual([]);
    expect(MANIFESTS.filter((m) => m.doc.kind === 'PrometheusRule').map((m) => m.file)).toEqual([PROMETHEUS_RULE_FILE]);
  });

  it('/probe: the ScrapeConfig and the prometheus.yml job send each target name as ?target= to the exporter Service', () => {
    const scrape = find('deploy/probe/scrapeconfig.yaml', 'ScrapeConfig').spec;
    const service = find('deploy/service.yaml', 'Service');
    const namespace = kustomize('deploy').find((f) => f.file === 'deploy/service.yaml')?.namespace;
    const address = `${service.metadata.name}.${namespace}.svc:${service.spec.ports[0].port}`;
    expect(scrape.metricsPath).toBe('/probe');
    expect(scrape.relabelings).toEqual([
      { sourceLabels: ['__address__'], targetLabel: '__param_target' },
      { sourceLabels: ['__param_target'], targetLabel: 'instance' },
      { targetLabel: '__address__', replacement: address },
    ]);
    const file = parse(readFileSync(join(REPO_ROOT, PROMETHEUS_CONFIG), 'utf8')) as Doc;
    const job = (file.scrape_configs as Doc[]).find((j) => j.metrics_path === '/probe') as Doc;
    expect(job.static_configs).toEqual(scrape.staticConfigs);
    expect(job.relabel_configs).toEqual(
      scrape.relabelings.map((r: Doc) => ({
        ...(r.sourceLabels ? { source_labels: r.sourceLabels } : {}),
        target_label: r.targetLabel,
        ...(r.replacement ? { replacement: r.replacement } : {}),
      })),
    );
  });
});

const promtool = PROMTOOL;
describe.skipIf(skipWithoutPromtool)('deploy/probe/prometheus.yml under promtool', () => {
  it('promtool check config accepts it', { timeout: 60_000 }, () => {
    const result = spawnSync(promtool, ['check', 'config', PROMETHEUS_CONFIG], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });
});
