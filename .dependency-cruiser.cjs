// The exporter's layers, lowest first (docs/architecture.md, "Layers"). A module may import its own
// folder and folders of a lower layer only; folders on one layer do not import each other.
// `npm run lint:deps` checks it (part of `npm test`); type-only imports count too.
const LAYERS = [
  ['metrics', 'redaction'],
  ['render'],
  ['catalogue', 'shard', 'client', 'state'],
  ['broker', 'config'],
  ['collectors'],
  ['self'],
  ['snapshot'],
  ['scheduler'],
  ['server'],
  ['cli'],
  ['(root)'], // src/*.ts: main.ts, exporter.ts, target.ts, log.ts, logfmt.ts
  ['docs'],
  ['tools'],
];

const ROOT = '^src/[^/]+\\.ts$';
const pathOf = (folder) => (folder === '(root)' ? ROOT : `^src/${folder}/`);

const layerRules = LAYERS.flatMap((layer, rank) =>
  layer.flatMap((folder) => {
    const notBelow = LAYERS.slice(rank).flat().filter((other) => other !== folder);
    if (notBelow.length === 0) return [];
    return {
      name: `layer-${folder === '(root)' ? 'root' : folder}`,
      comment: `src/${folder === '(root)' ? '*.ts' : folder} may import only layers below it: ${LAYERS.slice(0, rank).flat().join(', ') || '(none)'}`,
      severity: 'error',
      from: { path: pathOf(folder) },
      to: { path: notBelow.map(pathOf) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, of values or of types.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // Type-only imports are imports too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
