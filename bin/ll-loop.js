#!/usr/bin/env node
// The installed entry point: the CLI bundle (tools/bundle-cli.mjs) built by `npm install` via
// prepare, else the compiled modules in dist/client/ (LL_NO_CLI_BUNDLE=1 chooses those).
// The commands that load most of the bundle run its CommonJS build with V8's code cache
// (bin/code-cache.js); LL_NO_CODE_CACHE=1 gives them the split ES-module bundle like the rest.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'client', 'cli.js');
const bundled = join(root, 'dist', 'cli', 'cli.js');
const whole = join(root, 'dist', 'cli', 'whole.cjs');
/**
 * The commands that load most of the bundle (the SDK, zod, yaml): a worker (not `worker stop`
 * and the like), `run` and `resume`. Their name keys their code cache. Measured (CPU of one
 * command, cache against split bundle): `run` 0.22 against 0.33 s, `resume` 0.75 against 0.98 s,
 * a worker's start 1.1 against 1.42 s; `status`, `logs` or `inbox` through the worker 0.01–0.02 s
 * more, so they stay on the split bundle.
 */
function codeCached(args) {
  if (args[0] === 'run' || args[0] === 'resume') return args[0];
  if (args[0] === 'worker' && (args[1] === undefined || args[1].startsWith('-'))) return 'worker';
  return undefined;
}

const args = process.argv.slice(2);
const useBundle = process.env.LL_NO_CLI_BUNDLE !== '1';
const cached = useBundle && process.env.LL_NO_CODE_CACHE !== '1' ? codeCached(args) : undefined;
if (cached !== undefined && existsSync(whole)) {
  const { loadWithCodeCache } = await import('./code-cache.js');
  await loadWithCodeCache(whole, cached).exports.runCli(args);
} else {
  const entry = useBundle && existsSync(bundled) ? bundled : compiled;
  if (!existsSync(entry)) {
    process.stderr.write(
      `error: ll-loop is not built (${entry} is missing)\nfix: run "npm install" (or "npm run build") in ${root}\n`,
    );
    process.exit(1);
  }
  const { runCli } = await import(entry);
  await runCli(args);
}
