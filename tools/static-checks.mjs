/**
 * The static checks, `npm run lint` and `npm run typecheck` (and both at once, for `npm test`):
 *
 * - typecheck: the project (tsconfig.json) and the `ll-loop ui` page (ui/page/tsconfig.json);
 * - lint: ESLint (its type-aware rule reads the same programs), Prettier's check, and the
 *   sandboxed code type-checked without Node's types (tsconfig.core.json).
 *
 * Why one tool: ESLint's type-aware rule needs a TypeScript program of every file it lints, and
 * built them itself, the same programs the type check builds: ~45 s of CPU twice over in every
 * `npm test` on two cores. Here each program is built once; ESLint is handed them
 * (`parserOptions.programs`), so it reads the types the checker already has.
 *
 * Usage: node tools/static-checks.mjs [--lint] [--typecheck]   (neither: both)
 * Output: each check's findings, as tsc, ESLint and Prettier print them; exit 1 if any failed.
 */
import { spawnSync } from 'node:child_process';
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

/** The program of a tsconfig, built once. */
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
  return { program, configErrors: parsed.errors };
}

/** `tsc --noEmit -p <config>`: its diagnostics, printed as tsc prints them; true when none. */
function typecheck(configPath, built = programOf(configPath)) {
  const diagnostics = [...built.configErrors, ...ts.getPreEmitDiagnostics(built.program)];
  if (diagnostics.length === 0) return true;
  process.stdout.write(`tsc -p ${configPath}:\n`);
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(format(diagnostics, formatHost));
  return false;
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

let ok = true;
const project = programOf('tsconfig.json');
const page = programOf(join('ui', 'page', 'tsconfig.json'));
if (wantTypecheck) {
  ok = typecheck('tsconfig.json', project) && ok;
  ok = typecheck(join('ui', 'page', 'tsconfig.json'), page) && ok;
}
if (wantLint) {
  ok = (await eslint([project.program, page.program, defaultProjectProgram()])) && ok;
  ok = prettierCheck() && ok;
  ok = typecheck('tsconfig.core.json') && ok;
}
process.exitCode = ok ? 0 : 1;
