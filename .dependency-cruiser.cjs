// The exporter's layers, lowest first (docs/architecture.md, "Layers"). A module may import its own
// folder and folders of a lower layer only; a folder of src/ that no layer lists imports nothing of
// the project. `npm run lint:deps` checks src/, tools/ and the storefront's src/ and bench/ (part of
// `npm test`); type-only imports count too.
// Folders of one layer import nothing of each other.
const LAYERS = [
  ['model', 'broker'],
  ['exposition'],
  ['profiles'],
  ['config', 'collectors'],
  ['pipeline'],
  ['server'],
  ['(root)', 'tools'], // src/*.ts: main.ts, exporter.ts, target.ts, ...; the top-level tools/: developer commands, outside the image
];

const ROOT = '^src/[^/]+\\.ts$';
const pathOf = (folder) => (folder === '(root)' ? ROOT : folder === 'tools' ? '^tools/' : `^src/${folder}/`);

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

// The storefront is a separate service: it shares tooling with the exporter, no code, either way;
// its service imports nothing of its benchmark.
const apartRules = [
  ['storefront-apart', '^storefront/', '^(src|tools)/'],
  ['exporter-apart', '^(src|tools)/', '^storefront/'],
  ['storefront-service-below-bench', '^storefront/src/', '^storefront/bench/'],
].map(([name, from, to]) => ({ name, comment: `${from} may not import ${to}`, severity: 'error', from: { path: from }, to: { path: to } }));

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
    ...apartRules,
    {
      name: 'collectors-yield-through-the-kit',
      comment: "A collector's loops yield with the kit's eachInTurns (kit/in-turns.ts), not with broker/turns.ts itself.",
      severity: 'error',
      from: { path: '^src/collectors/', pathNot: '^src/collectors/kit/' },
      to: { path: '^src/broker/turns\\.ts$' },
    },
    {
      name: 'collectors-one-door',
      comment: 'Collectors write through the sink: of the exposition wing they import sample-sink.ts alone (it hands on what else they need).',
      severity: 'error',
      from: { path: '^src/collectors/' },
      to: { path: '^src/exposition/', pathNot: '^src/exposition/sample-sink\\.ts$' },
    },
    {
      name: 'layer-unlisted',
      comment: 'A folder of src/ must be on a layer (LAYERS) before it imports the project.',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.flat().map(pathOf) },
      to: { path: '^(src|tools)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|tools|storefront/(src|bench))/',
    // Type-only imports are imports too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
