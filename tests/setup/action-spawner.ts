/**
 * Vitest globalSetup: the action spawner (activities/spawner-main.ts) bundled from source once per
 * test run and named by LL_ACTION_SPAWNER_ENTRY, so the workers the integration files run in
 * their own process start quick actions the way an installed worker does: from a small process
 * of their own, not by forking the test process (a fork costs the parent in proportion to its
 * memory: a test fork holds hundreds of MB). The file is named like the built entry, since tests
 * tell an action started by the spawner by its command line (`spawner-main`). It is made under the
 * package's node_modules, so that what the spawner requires only when an action needs it (ajv, for
 * a burst's `output_schema`: loader/json-schema.ts) resolves as it does from dist/.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { oncePerRun } from './once-per-run.js';

export default function setup(): Promise<() => void> {
  return oncePerRun(
    'action-spawner',
    'LL_ACTION_SPAWNER_ENTRY',
    async (dir) => {
      const path = join(dir, 'spawner-main.mjs');
      // Node's built-ins and this package's code: the whole entry fits in one module.
      await build({
        entryPoints: [join(import.meta.dirname, '..', '..', 'activities', 'spawner-main.ts')],
        outfile: path,
        bundle: true,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        logLevel: 'warning',
      });
      return path;
    },
    join(import.meta.dirname, '..', '..', 'node_modules', '.cache'),
  );
}
