#!/usr/bin/env node
// The installed entry point: the CLI bundle (tools/bundle-cli.mjs) built by `npm install` via
// prepare, else the compiled modules in dist/client/ (LL_NO_CLI_BUNDLE=1 chooses those).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'client', 'cli.js');
const bundled = join(root, 'dist', 'cli', 'cli.js');
const entry = process.env.LL_NO_CLI_BUNDLE !== '1' && existsSync(bundled) ? bundled : compiled;
if (!existsSync(entry)) {
  process.stderr.write(
    `error: ll-loop is not built (${entry} is missing)\nfix: run "npm install" (or "npm run build") in ${root}\n`,
  );
  process.exit(1);
}
const { runCli } = await import(entry);
await runCli(process.argv.slice(2));
