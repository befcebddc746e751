/**
 * Build step: the CLI as one ESM bundle (dist/cli/cli.js plus the chunks of its lazily loaded
 * commands), which bin/ll-loop.js runs when it exists. Node 20 spends most of a quick command's
 * time resolving and compiling ~200 small modules (ours, zod's, yaml's); bundled, `validate`,
 * `show` and `list` answer in well under 0.3 s (docs/architecture.md, "Performance").
 *
 * The Temporal SDK, the LLM and MCP SDKs, ajv and packages with native or file-relative parts stay
 * external: they load from
 * node_modules as before, one copy each, only when a command needs them.
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'dist', 'client', 'cli.js')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  external: [
    '@temporalio/*',
    'execa',
    '@inquirer/*',
    'protobufjs',
    'playwright-core',
    '@swc/*',
    '@anthropic-ai/*',
    'openai',
    '@modelcontextprotocol/*',
    'ajv',
  ],
  // Bundled CommonJS code (yaml's, zod's helpers) may call require(): give the ESM bundle one.
  banner: {
    js: "import { createRequire as __llCreateRequire } from 'node:module'; const require = __llCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
// `--help` reads the usage lines next to the module that reads them (client/commands/usage-index.ts).
const usage = join(root, 'dist', 'client', 'commands', 'usage.json');
if (existsSync(usage)) copyFileSync(usage, join(outdir, 'usage.json'));
console.log(`cli bundle: ${join(outdir, 'cli.js')}`);
