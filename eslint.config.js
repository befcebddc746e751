/**
 * ESLint (flat config): promises are never left floating anywhere (type-aware), and the
 * determinism boundary of fsm/ and workflows/ (eslint/boundary.js), and the layer and room tables
 * (eslint/layers.js). `npm run lint` runs it with
 * tsconfig.core.json, which type-checks those two folders without Node's types.
 */
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { boundaryConfigs } from './eslint/boundary.js';
import { layersConfig } from './eslint/layers.js';

export default defineConfig([
  globalIgnores(['dist/', 'coverage/', '.cache/', '**/.loops/']),
  // Only a few rules are on, so a directive for one that is off (e.g. no-control-regex) is not stale.
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  {
    name: 'll-loop/promises',
    files: [
      '{fsm,workflows,activities,worker,host,client,loader,tests,bench,bin,eslint,tools}/**/*.{ts,js,mjs}',
      '*.{ts,js,mjs}',
    ],
    plugins: { '@typescript-eslint': tseslint.plugin },
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Files outside tsconfig.json (plain JS tooling) get the default project.
        // The bench is one module per part (bench/run.mjs), more than the default cap of 8 such files.
        projectService: {
          allowDefaultProject: ['bench/*.mjs', 'bin/*.js', 'eslint/*.js', 'tools/*.mjs', 'eslint.config.js'],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 32,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  ...boundaryConfigs,
  layersConfig,
]);
