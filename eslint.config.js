/**
 * ESLint (flat config): the determinism boundary of fsm/ and workflows/ (eslint/boundary.js) and
 * the layer and room tables (eslint/layers.js), on the syntax alone. The one type-aware rule (no
 * floating promises) is oxlint's (.oxlintrc.json); `npm run lint` runs both, and `npm run
 * typecheck` checks those two folders without Node's types too (tsconfig.core.json).
 */
import { defineConfig, globalIgnores } from 'eslint/config';
import { boundaryConfigs } from './eslint/boundary.js';
import { layersConfig } from './eslint/layers.js';

export default defineConfig([
  globalIgnores(['dist/', 'coverage/', '.cache/', '**/.loops/']),
  // Only a few rules are on, so a directive for one that is off (e.g. no-control-regex) is not stale.
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  ...boundaryConfigs,
  layersConfig,
]);
