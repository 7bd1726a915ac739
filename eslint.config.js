import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * Import boundaries (docs/architecture.md, "Rules the linter holds").
 * - A feature reaches another feature only through its public surface: `*.service.ts`
 *   (behaviour), `*.schemas.ts`, `*.mapper.ts` and `*.frames.ts` (wire shapes), `*.rules.ts`
 *   (pure rules) — never its repository or its other files.
 * - The shared layers (db, http, realtime, outbound, storage, config, i18n, metrics) import no
 *   feature at all, not even its public surface: a feature's frames, rules and types reach them
 *   as parameters. Only the composition roots (src/*.ts, plugins/, cli/) wire everything, and
 *   even they never touch a repository.
 * - The event bus is at the bottom: src/events/ imports only the config and the database
 *   (every feature publishes on it; it knows none of them, nor the socket hub).
 * - The inventory is a store with faces: src/inventory/store/ holds the only code that touches
 *   its tables (repositories, the one writer of items, revision and change log, the merge rules,
 *   the CAS batch, the caches, the limits); each face (items/, named/, sync/, …) imports only
 *   the store, its own folder and the inventory's wire shapes (inventory.schemas.ts); the store
 *   imports no face. Only the feature's front files at src/inventory/*.ts compose the faces.
 *   The revision and change log have one writer, store/inventory.mutate.ts: no other file
 *   reaches their statements (revision.repository.ts) or the CAS batch that runs them.
 * - A file imports from another folder through `#src/…` (package.json "imports"), never `../`.
 */
const FEATURES = [
  'auth',
  'backups',
  'expiry',
  'households',
  'inventory',
  'messages',
  'push',
  'releases',
  'resources',
  'users',
];
const SHARED = [
  'config',
  'db',
  'events',
  'http',
  'i18n',
  'metrics',
  'outbound',
  'realtime',
  'storage',
];
const PUBLIC_SURFACE = String.raw`(?:.+/)?[^/]+\.(?:service|schemas|mapper|frames|rules)\.js$`;

const climbing = {
  regex: String.raw`^\.\./`,
  message: 'Import from another folder through #src/… (package.json "imports"), not ../',
};
const repositoryOf = (own) => ({
  regex: String.raw`^#src/(?!${own}/).+\.repository\.js$`,
  message: 'A feature reaches another only through its service, never its repository',
});
const internalsOf = (own) => ({
  regex: String.raw`^#src/(?!${own}/)(?:${FEATURES.join('|')})/(?!${PUBLIC_SURFACE})`,
  message:
    "Another feature's internals: import its *.service.ts, *.schemas.ts, *.mapper.ts, *.frames.ts or *.rules.ts",
});
const anyFeature = {
  regex: String.raw`^#src/(?:${FEATURES.join('|')})/`,
  message: 'A shared layer imports no feature: take what it needs of one as a parameter',
};
const aboveTheBus = {
  regex: String.raw`^#src/(?!events/|db/|config[./])`,
  message: 'src/events/ is below every feature: it imports only src/config and src/db',
};
/**
 * composition.ts takes a feature's services and routes from its front module only
 * (`<feature>.feature.ts`, src/feature.ts); the types of AppContext may come from its service.
 */
const frontsOnly = {
  regex: String.raw`^\./(?:${FEATURES.join('|')})/(?!.+\.feature\.js$)`,
  allowTypeImports: true,
  message: 'composition.ts builds a feature through its front module (<feature>.feature.ts) only',
};
/**
 * The faces of the inventory: routes + service (+ schemas, pure helpers) over its store; every
 * folder of src/inventory/ but the store is one (a new face is held as soon as it exists).
 */
const INVENTORY_FACES = fs
  .readdirSync(path.join(import.meta.dirname, 'src/inventory'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'store')
  .map((entry) => entry.name);
const faceOnly = (face) => ({
  regex: String.raw`^#src/inventory/(?!store/|${face}/|inventory\.schemas\.js$)`,
  message:
    'An inventory face imports only the store (#src/inventory/store/…), its own folder and inventory.schemas.ts',
});
const storeOnly = {
  regex: String.raw`^#src/inventory/(?!store/|inventory\.schemas\.js$)`,
  message: 'The inventory store imports no face: only itself and inventory.schemas.ts',
};
/** mutate alone writes the revision and the change log (and hands the CAS batch its writes). */
const oneWriter = {
  regex: String.raw`^(?:\./|#src/inventory/store/)(?:revision\.repository|items\.cas\.batch)\.js$`,
  allowTypeImports: true,
  message:
    "The inventory's revision and change log have one writer, store/inventory.mutate.ts: only it reaches revision.repository.ts and the CAS batch",
};
const restrict = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});
const boundaries = [
  ...FEATURES.map((area) => ({
    files: [`src/${area}/**/*.ts`],
    rules: restrict(climbing, repositoryOf(area), internalsOf(area)),
  })),
  ...SHARED.map((area) => ({
    files: [`src/${area}/**/*.ts`],
    rules: restrict(climbing, repositoryOf(area), anyFeature),
  })),
];

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      'data',
      'coverage',
      'test-output',
      'test/fixtures',
      'web/dist',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // the composition roots: src/*.ts, plugins/, cli/
      ...restrict(climbing, repositoryOf('-')),
    },
  },
  ...boundaries,
  ...INVENTORY_FACES.map((face) => ({
    files: [`src/inventory/${face}/**/*.ts`],
    rules: restrict(
      climbing,
      repositoryOf('inventory'),
      internalsOf('inventory'),
      faceOnly(face),
      oneWriter,
    ),
  })),
  {
    files: ['src/inventory/store/**/*.ts'],
    rules: restrict(climbing, repositoryOf('inventory'), internalsOf('inventory'), storeOnly),
  },
  {
    files: ['src/inventory/store/**/*.ts'],
    ignores: ['src/inventory/store/inventory.mutate.ts', 'src/inventory/store/items.cas.batch.ts'],
    rules: restrict(
      climbing,
      repositoryOf('inventory'),
      internalsOf('inventory'),
      storeOnly,
      oneWriter,
    ),
  },
  {
    files: ['src/composition.ts'],
    rules: restrict(climbing, repositoryOf('-'), frontsOnly),
  },
  {
    files: ['src/events/**/*.ts'],
    rules: restrict(climbing, repositoryOf('events'), aboveTheBus),
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: restrict(climbing),
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    // the browser code names its imports too (#web/…, package.json "imports", which Vite and
    // tsc both resolve), and takes nothing of the server but its catalogues
    rules: restrict(
      { ...climbing, message: 'Import from another folder through #web/… or #src/i18n/…, not ../' },
      {
        regex: String.raw`^#src/(?!i18n/)`,
        message: "The browser bundle takes only src/i18n of the server's code",
      },
    ),
  },
);
