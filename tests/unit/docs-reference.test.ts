/**
 * The docs stay a reference: docs/*.md under a size a reader can hold, no "(issue N)" diary
 * references, the performance figures as the bench wrote them, and every `LL_*` variable the product's code reads documented in docs/cli.md's
 * tables (the variables a user may set, and those ll-loop sets for a run's processes) or named
 * below as internal, with the reason it is not for users.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
const MAX_DOC_LINES = 7000;

/** Read by the code, not for users to set: each with why. */
const INTERNAL: Record<string, string> = {
  LL_ACTION_SPAWNER: '`0` turns the action spawner off, to measure the worker without it (bench, tests)',
  LL_ACTION_SPAWNER_ENTRY: 'the spawner entry for a worker run from the TypeScript sources (the test tiers)',
  LL_WORKFLOW_BUNDLE: 'a workflow bundle other than the build’s (tests and bench compare bundles)',
  LL_CODE_ID: 'stands for another build, so tests can show a worker handing over',
  LL_WORKER_STARTED_BY: 'set by ll-loop on the worker it starts (on demand, or by the service unit)',
  LL_INPUT_END: 'a here-document delimiter in generated loops, not a variable',
  LL_LOOP_BIN: 'a constant’s name (the path of bin/ll-loop.js), not a variable',
  LL_EARLY_START: 'a switch for comparing start paths, not for users',
  LL_START_SOCKET: 'a switch for comparing start paths, not for users',
  LL_FOLLOW_SOCKET: 'a switch for comparing follow paths, not for users',
  LL_EAGER_START: 'a switch for comparing start paths, not for users',
  LL_NO_CLI_BUNDLE: 'a switch for comparing the bundle with plain modules, not for users',
  LL_NO_CODE_CACHE: 'a switch for comparing the code cache with the split bundle, not for users',
};

/** Folders that are not the product: tests, the bench, build and lint tooling, output. */
const NOT_PRODUCT = new Set(['tests', 'bench', 'tools', 'eslint', 'docs', 'dist', 'node_modules', 'loops']);
const CODE_FILE = /\.(ts|js|mjs|cjs)$/;

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return codeFiles(path);
    return CODE_FILE.test(e.name) ? [path] : [];
  });
}

function productCode(): string[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NOT_PRODUCT.has(e.name))
    .flatMap((e) => codeFiles(join(ROOT, e.name)));
}

/** Every `LL_*` name in the product's code, with one file that names it. */
function variablesInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of productCode())
    for (const [name] of readFileSync(file, 'utf8').matchAll(/\bLL_[A-Z0-9_]*[A-Z0-9]\b/g))
      if (!found.has(name)) found.set(name, file.slice(ROOT.length + 1));
  return found;
}

/** The names in the first cell of each table row of docs/cli.md's "Environment variables". */
function documentedVariables(): string[] {
  const cli = readFileSync(join(DOCS, 'cli.md'), 'utf8');
  const start = cli.indexOf('\n## Environment variables');
  expect(start, 'docs/cli.md has a "## Environment variables" section').toBeGreaterThan(0);
  const end = cli.indexOf('\n## ', start + 1);
  const section = cli.slice(start, end < 0 ? undefined : end);
  const names: string[] = [];
  for (const line of section.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1]!;
    for (const [, name] of firstCell.matchAll(/`(LL_[A-Z0-9_]+(?:<n>)?)`/g)) names.push(name!);
  }
  return names;
}

/** `LL_V<n>` covers `LL_V`, `LL_V1`, `LL_V12`…; any other name covers itself. */
function covers(documented: string, name: string): boolean {
  if (!documented.endsWith('<n>')) return documented === name;
  return new RegExp(`^${documented.slice(0, -3)}\\d*$`).test(name);
}

const docFiles = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .map((f) => join(DOCS, f));

describe('the docs as a reference', () => {
  it(`docs/*.md are under ${MAX_DOC_LINES} lines in all`, () => {
    const lines = docFiles.map((f) => [f.slice(ROOT.length + 1), readFileSync(f, 'utf8').split('\n').length] as const);
    const total = lines.reduce((sum, [, n]) => sum + n, 0);
    expect(total, `docs/*.md: ${lines.map(([f, n]) => `${f} ${n}`).join(', ')}`).toBeLessThan(MAX_DOC_LINES);
  });

  it('no doc refers to the issue a change came from: history belongs in git and CHANGELOG.md', () => {
    const hits = [...docFiles, join(ROOT, 'README.md')].flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\(issues? \d/i.test(line) ? [`${f.slice(ROOT.length + 1)}:${i + 1}: ${line}`] : [])),
    );
    expect(hits).toEqual([]);
  });

  it('every LL_* variable the code reads is in docs/cli.md or named internal here', () => {
    const documented = documentedVariables();
    const missing = [...variablesInCode()]
      .filter(([name]) => !INTERNAL[name] && !documented.some((d) => covers(d, name)))
      .map(([name, file]) => `${name} (named in ${file})`);
    expect(missing, 'add them to a table of docs/cli.md, "Environment variables", or to INTERNAL').toEqual([]);
  });

  it('every LL_* variable docs/cli.md documents is one the code reads or sets', () => {
    const inCode = [...variablesInCode().keys()];
    const stale = documentedVariables().filter((d) => !inCode.some((name) => covers(d, name)));
    expect(stale, 'documented in docs/cli.md but named nowhere in the code').toEqual([]);
  });

  it("docs/architecture.md's performance figures are one table the bench wrote (tools/bench-table.mjs)", () => {
    const doc = readFileSync(join(DOCS, 'architecture.md'), 'utf8');
    const table = /<!-- bench-table:start -->\n([\s\S]*?)\n<!-- bench-table:end -->/.exec(doc)?.[1] ?? '';
    expect(table, 'no bench table between its markers').toMatch(/^Measured .* yardstick .* ms/);
    expect(table).toContain('| Measure | Value | Goal |');
    expect(doc.split('<!-- bench-table:start -->').length, 'one table').toBe(2);
  });

  it('a variable is documented or internal, not both', () => {
    const documented = documentedVariables();
    expect(Object.keys(INTERNAL).filter((name) => documented.some((d) => covers(d, name)))).toEqual([]);
  });
});
