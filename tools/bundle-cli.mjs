/**
 * Build step: the CLI as one ESM bundle (dist/cli/cli.js plus the chunks of its lazily loaded
 * commands), which bin/ll-loop.js runs when it exists. Node 20 spends most of a quick command's
 * time resolving and compiling ~200 small modules (ours, zod's, yaml's); bundled, `validate`,
 * `show` and `list` answer in well under 0.3 s (docs/architecture.md, "Performance").
 *
 * The Temporal SDK, the LLM and MCP SDKs, ajv and packages with native or file-relative parts stay
 * external: they load from
 * node_modules as before, one copy each, only when a command needs them.
 *
 * A second bundle, dist/cli-lean/, carries the client side of the Temporal SDK inside (client,
 * common, proto, grpc-js, protobufjs: ~0.15 s of module loading saved per command). It serves only
 * the commands whose code cannot reach an external `@temporalio/*` package (the worker SDK, the
 * activity SDK): those would load a second copy of `@temporalio/common` and mix the two. Which
 * commands those are is read from the lean build's own import graph and written to
 * dist/cli-lean/commands.json, which bin/ll-loop.js reads.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'client', 'cli.js');
const common = {
  entryPoints: [entry],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS code (yaml's, zod's helpers) may call require(): give the ESM bundle one.
  banner: {
    js: "import { createRequire as __llCreateRequire } from 'node:module'; const require = __llCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
const othersExternal = [
  'execa',
  '@inquirer/*',
  'playwright-core',
  '@swc/*',
  '@anthropic-ai/*',
  'openai',
  '@modelcontextprotocol/*',
  'ajv',
];
// `--help` reads the usage lines next to the module that reads them (client/commands/usage-index.ts).
const usage = join(root, 'dist', 'client', 'commands', 'usage.json');

/** Rewrite every chunk of `dir` as ASCII: V8 keeps each module's source at one byte per character then. */
async function asciiChunks(dir) {
  const { asciiSource } = await import(join(root, 'dist', 'worker', 'ascii-source.js'));
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const file = join(dir, name);
    const code = readFileSync(file, 'utf8');
    const ascii = asciiSource(code);
    if (ascii !== code) writeFileSync(file, ascii);
  }
}

const outdir = join(root, 'dist', 'cli');
rmSync(outdir, { recursive: true, force: true });
await build({ ...common, outdir, external: ['@temporalio/*', 'protobufjs', ...othersExternal] });
await asciiChunks(outdir);
if (existsSync(usage)) copyFileSync(usage, join(outdir, 'usage.json'));
console.log(`cli bundle: ${join(outdir, 'cli.js')}`);

const leanDir = join(root, 'dist', 'cli-lean');
rmSync(leanDir, { recursive: true, force: true });
const lean = await build({
  ...common,
  outdir: leanDir,
  metafile: true,
  external: [
    '@temporalio/worker',
    '@temporalio/activity',
    '@temporalio/testing',
    '@temporalio/core-bridge',
    ...othersExternal,
  ],
  plugins: [protoAsJson()],
});
await asciiChunks(leanDir);
if (existsSync(usage)) copyFileSync(usage, join(leanDir, 'usage.json'));
const commands = leanCommands(lean.metafile);
writeFileSync(join(leanDir, 'commands.json'), `${JSON.stringify(commands)}\n`);
console.log(`lean cli bundle: ${join(leanDir, 'cli.js')} for ${commands.join(', ')}`);

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
 * The commands that may run from the lean bundle: everything their run can load (the entry's code
 * but the other commands, what runs before every command, the command's module and whatever those
 * import, statically or lazily) reaches no external `@temporalio/*` package.
 */
function leanCommands(metafile) {
  const outputs = metafile.outputs;
  const rel = (p) => p.replace(/\\/g, '/');
  const chunkOf = (input) =>
    Object.keys(outputs).find((o) => outputs[o].entryPoint && rel(outputs[o].entryPoint).endsWith(input));
  // The command table, read from its source (prettier keeps it one quoted import per line): name → module.
  const table = readFileSync(join(root, 'client', 'commands', 'index.ts'), 'utf8');
  const files = new Map(
    [...table.matchAll(/^\s*(\w+): async \(\) => \(await import\('\.\/([\w-]+)\.js'\)\)/gm)].map((m) => [m[1], m[2]]),
  );
  const commandChunks = new Set([...files.values()].map((f) => chunkOf(`client/commands/${f}.js`)));
  const reach = (start, skip) => {
    const seen = new Set();
    const external = new Set();
    const todo = [start];
    while (todo.length > 0) {
      const out = todo.pop();
      if (seen.has(out) || skip.has(out)) continue;
      seen.add(out);
      for (const i of outputs[out]?.imports ?? []) {
        if (i.external) external.add(i.path);
        else todo.push(i.path);
      }
    }
    return external;
  };
  const sdk = (externals) => [...externals].some((p) => p.startsWith('@temporalio/'));
  const entryChunk = chunkOf('client/cli.js');
  if (!entryChunk || sdk(reach(entryChunk, commandChunks))) return [];
  return [...files]
    .filter(([, file]) => {
      const chunk = chunkOf(`client/commands/${file}.js`);
      return chunk !== undefined && !sdk(reach(chunk, new Set()));
    })
    .map(([name]) => name)
    .sort();
}
