#!/usr/bin/env node
// The installed entry point: the compiled CLI from dist/ (built by `npm install` via prepare).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'client', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write(`error: ll-loop is not built (${entry} is missing)\nfix: run "npm install" (or "npm run build") in ${root}\n`);
  process.exit(1);
}
const { runCli } = await import(entry);
await runCli(process.argv.slice(2));
