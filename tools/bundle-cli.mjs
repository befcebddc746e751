/**
 * Build step: the CLI as one ESM bundle (dist/cli/cli.js plus the chunks of its lazily loaded
 * commands), which bin/ll-loop.js runs when it exists. Node 20 spends most of a quick command's
 * time resolving and compiling small modules (ours, zod's, yaml's, and the Temporal SDK's ~600:
 * rxjs alone is 226); bundled, `validate`, `show` and `list` answer in well under 0.3 s, and a
 * checkout worker is up with 0.45 s less CPU (docs/architecture.md, "Performance").
 *
 * The Temporal SDK is inside, worker and client alike, one copy of each package. Three of its
 * parts need help to live in a bundle (plugins below):
 * - the workflow bundler (`@temporalio/worker/lib/workflow/bundler.js`, with webpack and memfs):
 *   ll-loop hands its workers the workflow bundle `npm run build` writes, so the bundled CLI
 *   never bundles workflow code; the module is replaced by one that says so if it is ever asked;
 * - files that find their own siblings through `__dirname` (the native core's `index.node`,
 *   source-map's `mappings.wasm`, grpc-js's `.proto` files): given the directory the file has in
 *   node_modules, resolved when it runs, so an install that hoists packages differently works;
 * - the protobuf descriptors, read as a JSON string (below).
 * Left outside, loaded from node_modules only by the commands that use them: the LLM and MCP
 * SDKs, ajv, execa, the prompts, playwright and swc.
 *
 * The build also writes dist/cli/sdk-chunks.json: which of the bundle's files carry which
 * `@temporalio/*` package, so a test can tell which parts of the SDK a command loaded.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'client', 'cli.js');
// Bundled CommonJS code (yaml's, zod's helpers, the SDK) may call require(): give the ESM bundle one.
const banner =
  "import { createRequire as __llCreateRequire } from 'node:module'; const require = __llCreateRequire(import.meta.url);";
const external = [
  'execa',
  '@inquirer/*',
  'playwright-core',
  '@swc/*',
  '@anthropic-ai/*',
  'openai',
  '@modelcontextprotocol/*',
  'ajv',
];
/** The CommonJS bundle's name in dist/cli/ (bin/ll-loop.js loads it by this name). */
const WHOLE = 'whole.cjs';
/** The early start's file in dist/cli/ (bin/ll-loop.js loads it by this name). */
const EARLY = 'early-start.cjs';
const WHOLE_BANNER =
  "const __llCreateRequire = require('node:module').createRequire; const __llMetaUrl = require('node:url').pathToFileURL(__filename).href;";
/** Packages published only as ES modules: bundled into the CommonJS file, which cannot require them. */
const ESM_ONLY = ['execa', '@inquirer/*'];
// `--help` reads the usage lines next to the module that reads them (client/commands/usage-index.ts).
const usage = join(root, 'dist', 'client', 'commands', 'usage.json');

/** Rewrite every chunk of `dir` as ASCII: V8 keeps each module's source at one byte per character then. */
async function asciiChunks(dir) {
  const { asciiSource } = await import(join(root, 'dist', 'worker', 'ascii-source.js'));
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.js') || n.endsWith('.cjs'))) {
    const file = join(dir, name);
    const code = readFileSync(file, 'utf8');
    const ascii = asciiSource(code);
    if (ascii !== code) writeFileSync(file, ascii);
  }
}

/**
 * The Temporal SDK's protobuf descriptors (`@temporalio/proto/protos/json-module.js`) are one
 * 0.5 MB object literal handed to `Root.addJSON`; V8 reads the same data as a JSON string several
 * times faster than it compiles and runs the literal. The literal is replaced by `JSON.parse` of
 * itself only when it is JSON (checked here), so the descriptors are the same either way.
 */
function protoAsJson() {
  return {
    name: 'proto-as-json',
    setup(b) {
      b.onLoad({ filter: /@temporalio[\\/]proto[\\/]protos[\\/]json-module\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const open = source.indexOf('.addJSON(');
        const close = source.lastIndexOf('});');
        if (open === -1 || close === -1) return undefined;
        let descriptors;
        try {
          descriptors = JSON.parse(source.slice(open + '.addJSON('.length, close + 1));
        } catch {
          return undefined; // not plain JSON (a newer SDK): bundled as it is
        }
        // The Cloud Operations API (a quarter of the descriptors) is never called by ll-loop, and no
        // other service's message refers to it.
        delete descriptors.temporal?.nested?.api?.nested?.cloud;
        const json = JSON.stringify(JSON.stringify(descriptors));
        return {
          contents: `${source.slice(0, open)}.addJSON(JSON.parse(${json}));${source.slice(close + 3)}`,
          loader: 'js',
        };
      });
    },
  };
}

/**
 * The worker SDK's workflow bundler (webpack, memfs, swc) in place of the module that loads it:
 * its exports, with the bundler itself refusing with the fix. Workers of the bundled CLI are
 * always given the prebuilt workflow bundle (worker/create-worker.ts `workflowBundle`), which the
 * same `npm run build` writes before this bundle.
 */
function noWorkflowBundler() {
  const refusal =
    '\'ll-loop: the bundled CLI does not bundle workflow code: dist/workflow-bundle.js is missing; fix: run "npm run build"\'';
  return {
    name: 'no-workflow-bundler',
    setup(b) {
      b.onLoad({ filter: /@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]bundler\.js$/ }, () => ({
        contents: [
          '"use strict";',
          'exports.defaultWorkflowInterceptorModules = [];',
          `exports.WorkflowCodeBundler = class WorkflowCodeBundler { constructor() { throw new Error(${refusal}); } };`,
          `exports.bundleWorkflowCode = async () => { throw new Error(${refusal}); };`,
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/**
 * A package file that uses `__dirname` or `__filename` (CommonJS) gets them as they would be in
 * node_modules. The path is resolved when the module runs, package by package along the chain
 * of nested node_modules folders it was built from (`a/node_modules/b/lib/x.js`: b as `a`
 * resolves it), so it is right wherever the install put the packages.
 */
function fileRelative() {
  return {
    name: 'file-relative',
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
        // From the first node_modules folder on: the path may lead elsewhere first (a worktree whose
        // node_modules is a link to another checkout's, which esbuild resolves).
        const parts = args.path.split(sep);
        const chain = [];
        let i = parts.indexOf('node_modules');
        while (i !== -1 && parts[i] === 'node_modules') {
          const scoped = parts[i + 1].startsWith('@');
          chain.push(scoped ? `${parts[i + 1]}/${parts[i + 2]}` : parts[i + 1]);
          i += scoped ? 3 : 2;
        }
        if (chain.length === 0) return undefined;
        const sub = parts.slice(i).join('/');
        // Each package of the chain resolved from the one before it, the first from the bundle.
        const prelude =
          `var __filename = (() => { const path = require('node:path'); let req = require, dir = ''; ` +
          `for (const name of ${JSON.stringify(chain)}) { dir = path.dirname(req.resolve(name + '/package.json')); ` +
          `req = __llCreateRequire(dir + '/'); } return path.join(dir, ${JSON.stringify(sub)}); })(); ` +
          "var __dirname = require('node:path').dirname(__filename);\n";
        return { contents: prelude + source, loader: 'js' };
      });
    },
  };
}

/**
 * The CommonJS bundle holds every package it bundles, and runs each one's module on its first
 * `require` (esbuild's `__commonJS`): that first require is reported to `globalThis.__llModuleInit`
 * (the module's path in node_modules) when a process has set it. The tests' probe
 * (tests/support/sdk-probe.ts) does, to tell which parts of the SDK a command started; nothing
 * else sets it.
 */
function reportModuleInits(file) {
  const code = readFileSync(file, 'utf8');
  const helper = 'return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;';
  if (!code.includes(helper))
    throw new Error(`${file}: esbuild's __commonJS helper is not the one reportModuleInits knows; update it`);
  const reporting =
    'return mod || (globalThis.__llModuleInit?.(__getOwnPropNames(cb)[0]), ' +
    '(0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod)), mod.exports;';
  writeFileSync(file, code.replace(helper, reporting));
}

/** `{ "<chunk file>": ["@temporalio/client", …] }` for every output that carries SDK code. */
function sdkChunks(metafile, outdir) {
  const chunks = {};
  for (const [out, meta] of Object.entries(metafile.outputs)) {
    const packages = new Set();
    for (const input of Object.keys(meta.inputs)) {
      const m = /node_modules\/(@temporalio\/[^/]+)\//.exec(input.replace(/\\/g, '/'));
      if (m) packages.add(m[1]);
    }
    if (packages.size > 0) chunks[relative(outdir, join(root, out)).replace(/\\/g, '/')] = [...packages].sort();
  }
  return chunks;
}

const outdir = join(root, 'dist', 'cli');
rmSync(outdir, { recursive: true, force: true });
// An earlier build's second bundle (the lean one): nothing reads it any more.
rmSync(join(root, 'dist', 'cli-lean'), { recursive: true, force: true });
const common = {
  entryPoints: [entry],
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  metafile: true,
  absWorkingDir: root,
  plugins: [protoAsJson(), noWorkflowBundler(), fileRelative()],
};
const result = await build({ ...common, splitting: true, format: 'esm', banner: { js: banner }, outdir, external });
/**
 * The same CLI as one CommonJS file, for the commands bin/ll-loop.js loads with V8's code cache
 * (bin/code-cache.js: Node 20 caches no ES module's code). `import.meta.url` is the file's own
 * URL, as in the chunks beside it. The ES-module-only packages (execa, the prompts) are inside:
 * Node 20 cannot `require()` them.
 */
await build({
  ...common,
  format: 'cjs',
  banner: { js: WHOLE_BANNER },
  define: { 'import.meta.url': '__llMetaUrl' },
  outfile: join(outdir, WHOLE),
  external: external.filter((e) => !ESM_ONLY.includes(e)),
  // The SDK's thread-based workflow runner and debug replayer resolve files beside themselves;
  // ll-loop runs neither (workflows and replays run on the main thread), as in the chunks above.
  logOverride: { 'require-resolve-not-external': 'silent' },
});
reportModuleInits(join(outdir, WHOLE));
/**
 * `ll-loop run`'s early start on its own (runs/start/early-start.ts): the bin asks the
 * checkout's worker to start the run with it before it loads either bundle above, so it must
 * stay small (a few hundred lines, no package).
 */
await build({
  ...common,
  entryPoints: [join(root, 'dist', 'runs', 'start', 'early-start.js')],
  format: 'cjs',
  banner: { js: WHOLE_BANNER },
  define: { 'import.meta.url': '__llMetaUrl' },
  outfile: join(outdir, EARLY),
  plugins: [],
});
await asciiChunks(outdir);
if (existsSync(usage)) copyFileSync(usage, join(outdir, 'usage.json'));
writeFileSync(join(outdir, 'sdk-chunks.json'), `${JSON.stringify(sdkChunks(result.metafile, outdir), null, 1)}\n`);
console.log(`cli bundle: ${join(outdir, 'cli.js')} (and ${WHOLE})`);
