#!/usr/bin/env node
// The installed entry point: the CLI bundle (tools/bundle-cli.mjs) built by `npm install` via
// prepare, else the compiled modules in dist/client/ (LL_NO_CLI_BUNDLE=1 chooses those). A command
// listed in dist/cli-lean/commands.json runs from the lean bundle, which carries the Temporal
// client SDK inside (the build lists the commands whose code never loads the worker SDK).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const useBundle = process.env.LL_NO_CLI_BUNDLE !== '1';
const compiled = join(root, 'dist', 'client', 'cli.js');
const entry = useBundle ? bundleFor(argv[0]) : compiled;
if (!existsSync(entry)) {
  process.stderr.write(
    `error: ll-loop is not built (${entry} is missing)\nfix: run "npm install" (or "npm run build") in ${root}\n`,
  );
  process.exit(1);
}
const { runCli } = await import(entry);
await runCli(argv);

function bundleFor(command) {
  const lean = join(root, 'dist', 'cli-lean');
  try {
    if (JSON.parse(readFileSync(join(lean, 'commands.json'), 'utf8')).includes(command)) return join(lean, 'cli.js');
  } catch {
    // no lean bundle (an older build): the main one serves every command
  }
  const bundled = join(root, 'dist', 'cli', 'cli.js');
  return existsSync(bundled) ? bundled : compiled;
}
