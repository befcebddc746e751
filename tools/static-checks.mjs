/**
 * The static checks, `npm run lint` and `npm run typecheck` (and both at once, for `npm test`):
 *
 * - typecheck: the project (tsconfig.json), the `ll-loop ui` page (ui/page/tsconfig.json) and the
 *   sandboxed code without Node's types (tsconfig.core.json), by TypeScript 7's native compiler;
 * - lint: ESLint (its type-aware rule reads TypeScript programs of the project and the page) and
 *   Prettier's check.
 *
 * Why two compilers: ESLint's type-aware rules need TypeScript's JavaScript API, which TypeScript 7
 * does not have (typescript-eslint supports TypeScript up to 6.0), so ESLint is handed programs
 * built here with TypeScript 5 (`parserOptions.programs`, each built once). The type check itself
 * is TypeScript 7's (the `typescript-native` dev dependency, `typescript@7`), single-threaded:
 * the three configurations in 8.6 s of CPU, where TypeScript 5's checker took 22.5 s in this
 * process (docs/decisions.md, "The type check by TypeScript 7"). It runs beside ESLint.
 *
 * Usage: node tools/static-checks.mjs [--lint] [--typecheck]   (neither: both)
 * Output: each check's findings, as tsc, ESLint and Prettier print them; exit 1 if any failed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const all = !args.has('--lint') && !args.has('--typecheck');
const wantLint = all || args.has('--lint');
const wantTypecheck = all || args.has('--typecheck');

/**
 * The plain JavaScript files ESLint lints outside every tsconfig (its config's
 * `allowDefaultProject`), in a program of their own as its default project would be.
 */
const DEFAULT_PROJECT_GLOBS = ['bench', 'bin', 'eslint', 'tools'];
const DEFAULT_PROJECT_EXT = { bench: '.mjs', bin: '.js', eslint: '.js', tools: '.mjs' };

const PRETTIER_CACHE = join(root, 'node_modules', '.cache', 'prettier-check.json');

const formatHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** The TypeScript 5 program of a tsconfig, built once, for ESLint. */
function programOf(configPath) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, configPath),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.formatDiagnostic(d, formatHost));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${configPath}`);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: { ...parsed.options, noEmit: true },
    projectReferences: parsed.projectReferences,
  });
  if (parsed.errors.length > 0) throw new Error(ts.formatDiagnostics(parsed.errors, formatHost));
  return { program };
}

/** The configurations the type check covers. */
const TYPECHECKED = ['tsconfig.json', join('ui', 'page', 'tsconfig.json'), 'tsconfig.core.json'];

/**
 * `tsc --noEmit -p <config>` by TypeScript 7: resolve with its output (diagnostics as tsc prints
 * them, prefixed with the configuration) and whether it found none.
 */
function typecheck(configPath) {
  const tsc = join(root, 'node_modules', 'typescript-native', 'bin', 'tsc');
  const args = [
    tsc,
    '--noEmit',
    '--singleThreaded',
    '--pretty',
    String(process.stdout.isTTY === true),
    '-p',
    configPath,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    child.on('error', (err) =>
      resolve({
        ok: false,
        text: `tsc -p ${configPath}: could not start ${tsc}: ${err.message}\nfix: run "npm install"\n`,
      }),
    );
    child.on('close', (code) => {
      const out = Buffer.concat(chunks).toString();
      resolve({ ok: code === 0, text: code === 0 ? out : `tsc -p ${configPath}:\n${out}` });
    });
  });
}

/** Every configuration's type check, one after another (each is single-threaded, beside ESLint). */
async function typecheckAll() {
  let ok = true;
  for (const config of TYPECHECKED) {
    const r = await typecheck(config);
    if (r.text) process.stdout.write(r.text);
    ok = r.ok && ok;
  }
  return ok;
}

/** The JavaScript tooling ESLint's default project covers, as one program (nothing reported of it). */
function defaultProjectProgram() {
  const rootNames = DEFAULT_PROJECT_GLOBS.flatMap((dir) =>
    ts.sys
      .readDirectory(join(root, dir), [DEFAULT_PROJECT_EXT[dir]], undefined, undefined, 1)
      .filter((f) => f.endsWith(DEFAULT_PROJECT_EXT[dir])),
  );
  rootNames.push(join(root, 'eslint.config.js'));
  return ts.createProgram({
    rootNames,
    options: {
      allowJs: true,
      checkJs: false,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
    },
  });
}

async function eslint(programs) {
  const linter = new ESLint({
    cwd: root,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false, programs } } },
  });
  const results = await linter.lintFiles(['.']);
  const formatter = await linter.loadFormatter('stylish');
  const text = await formatter.format(results);
  if (text) process.stdout.write(text);
  return results.every((r) => r.errorCount === 0);
}

/**
 * Prettier's check, remembering the files it found formatted (by content, in node_modules/.cache):
 * formatting ~700 files is ~30 s of CPU, and between two runs few of them change.
 */
function prettierCheck() {
  const bin = join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
  const cache = ['--cache', '--cache-strategy', 'content', '--cache-location', PRETTIER_CACHE];
  const r = spawnSync(process.execPath, [bin, '--check', ...cache, '--log-level', 'warn', '.'], {
    cwd: root,
    stdio: 'inherit',
  });
  return r.status === 0;
}

const typechecked = wantTypecheck ? typecheckAll() : Promise.resolve(true);
let ok = true;
if (wantLint) {
  const project = programOf('tsconfig.json');
  const page = programOf(join('ui', 'page', 'tsconfig.json'));
  ok = (await eslint([project.program, page.program, defaultProjectProgram()])) && ok;
  ok = prettierCheck() && ok;
}
ok = (await typechecked) && ok;
process.exitCode = ok ? 0 : 1;
