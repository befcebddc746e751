/**
 * Fuzzing `ll-loop validate`: mutated copies of the bundled loops and seed 001's examples (keys
 * deleted, duplicated and retyped, lines dropped and repeated, files truncated, YAML syntax and
 * random bytes injected) never give exit 5 or a stack trace; an invalid file always gets an
 * `error:` naming it, and `--json` always parses; a file that validates also simulates.
 * Deterministic (a fixed seed), in process.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCliInProcess } from '../support/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = [
  ...readdirSync(join(ROOT, 'loops'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(ROOT, 'loops', f)),
  ...readdirSync(join(ROOT, 'tests', 'fixtures', 'seed-examples')).map((f) =>
    join(ROOT, 'tests', 'fixtures', 'seed-examples', f),
  ),
].map((file) => ({ file, text: readFileSync(file, 'utf8') }));

// Fixed in CI; LL_FUZZ_SEED / LL_FUZZ_CASES hunt further by hand.
const SEED = Number(process.env.LL_FUZZ_SEED ?? 0x5eed12);
const CASES = Number(process.env.LL_FUZZ_CASES ?? 400);

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = prng(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;

const SYNTAX = [
  '*a',
  '&a ',
  ': ',
  '- ',
  '{',
  '}',
  '[',
  ']',
  '"',
  "'",
  '\t',
  '\n---\n',
  '!!binary ',
  '? ',
  '|',
  '>',
  '%YAML 1.1\n',
  '<<: *a\n',
  '${',
  '${context.',
  '${captured.x.output}',
  '}',
  '#',
  '@',
  '`',
  '\\',
  '\u0000',
  '\ufeff',
  ' &a [*a, *a]',
  '\n  - *a\n',
];
const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  '',
  'x'.repeat(300),
  [],
  {},
  [1, 'a'],
  { type: 'nope' },
  '${context.nope}',
  '${',
  'done',
  { terminal: 'yes' },
  3.5,
];

type Mutation = (text: string) => string;

function lines(text: string): string[] {
  return text.split('\n');
}

/** Walk a parsed document to a random container and change it. */
function mutateValue(root: unknown): unknown {
  if (root === null || typeof root !== 'object') return pick(VALUES);
  const container = root as Record<string, unknown>;
  const keys = Object.keys(container);
  if (keys.length === 0) {
    container[pick(['name', 'states', 'initial', 'action', 'evaluate', 'on_yes', 'x'])] = pick(VALUES);
    return root;
  }
  const key = pick(keys);
  const child = container[key];
  const roll = rand();
  if (roll < 0.45 && child !== null && typeof child === 'object') container[key] = mutateValue(child);
  else if (roll < 0.6) delete container[key];
  else if (roll < 0.7) container[`${key}_copy`] = child;
  else if (roll < 0.8 && !Array.isArray(container))
    container[
      pick([
        'on_yes',
        'on_no',
        'next',
        'route',
        'evaluate',
        'retry',
        'loop',
        'with',
        'capture',
        'terminal',
        'from',
        'import',
        'fragment',
        'paradigm',
        'parameters',
        'scope',
      ])
    ] = pick(VALUES);
  else container[key] = pick(VALUES);
  return root;
}

const MUTATIONS: Record<string, Mutation> = {
  deleteLine: (t) => {
    const l = lines(t);
    l.splice(int(l.length), 1);
    return l.join('\n');
  },
  duplicateLine: (t) => {
    const l = lines(t);
    const i = int(l.length);
    l.splice(i, 0, l[i] ?? '');
    return l.join('\n');
  },
  swapLines: (t) => {
    const l = lines(t);
    const i = int(l.length);
    const j = int(l.length);
    [l[i], l[j]] = [l[j]!, l[i]!];
    return l.join('\n');
  },
  reindent: (t) => {
    const l = lines(t);
    const i = int(l.length);
    l[i] = `${' '.repeat(int(7))}${(l[i] ?? '').trimStart()}`;
    return l.join('\n');
  },
  truncate: (t) => t.slice(0, int(t.length)),
  aliasValue: (t) => {
    // A value replaced by an alias, whose anchor is missing, later in the file, or present.
    const l = lines(t);
    const candidates = l.map((line, i) => [line, i] as const).filter(([line]) => /^\s*[\w-]+:\s+\S/.test(line));
    if (!candidates.length) return t;
    const [line, i] = pick(candidates);
    const anchor = pick(['a', 'b', 'missing']);
    l[i] = line.replace(/^(\s*[\w-]+:)\s+.*$/, `$1 *${anchor}`);
    if (anchor === 'a') l.unshift('x-anchor: &a done');
    if (anchor === 'b') l.push('x-anchor: &b done');
    return l.join('\n');
  },
  aliasBomb: (t) => {
    const levels = ['x0: &x0 [a, a, a, a, a, a, a, a, a]'];
    for (let n = 1; n < 2 + int(6); n++)
      levels.push(
        `x${n}: &x${n} [${Array(9)
          .fill(`*x${n - 1}`)
          .join(', ')}]`,
      );
    return `${levels.join('\n')}\n${t}`;
  },
  injectSyntax: (t) => {
    const at = int(t.length + 1);
    return t.slice(0, at) + pick(SYNTAX) + t.slice(at);
  },
  randomBytes: (t) => {
    const at = int(t.length + 1);
    const bytes = Array.from({ length: 1 + int(24) }, () => String.fromCharCode(int(256))).join('');
    return t.slice(0, at) + bytes + t.slice(at + int(8));
  },
  mutateStructure: (t) => {
    let doc: unknown;
    try {
      doc = parse(t);
    } catch {
      return t;
    }
    for (let n = 1 + int(3); n > 0; n--) doc = mutateValue(doc);
    try {
      return stringify(doc);
    } catch {
      return t;
    }
  },
};

const dir = mkdtempSync(join(tmpdir(), 'll-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  id: number;
  source: string;
  mutations: string[];
  file: string;
}

const cases: Case[] = Array.from({ length: CASES }, (_, id) => {
  const source = pick(SOURCES);
  let text = source.text;
  const names: string[] = [];
  for (let n = 1 + int(3); n > 0; n--) {
    const name = pick(Object.keys(MUTATIONS));
    names.push(name);
    text = MUTATIONS[name]!(text);
  }
  const file = join(dir, `case-${id}.yaml`);
  writeFileSync(file, text);
  return { id, source: source.file.slice(ROOT.length + 1), mutations: names, file };
});

describe(`validate on ${CASES} mutated loop files (seed ${SEED.toString(16)})`, () => {
  it('never exit 5, never a stack trace; an error names the file; --json parses', async () => {
    const failures: string[] = [];
    let invalid = 0;
    for (const c of cases) {
      const where = `case ${c.id} (${c.source}: ${c.mutations.join(', ')})`;
      const text = await runCliInProcess(['validate', c.file], { cwd: dir });
      const all = text.stdout + text.stderr;
      if (text.code !== 0 && text.code !== 1) failures.push(`${where}: exit ${text.code}: ${all.slice(0, 300)}`);
      if (/^\s+at /m.test(all)) failures.push(`${where}: stack trace: ${all.slice(0, 300)}`);
      if (text.code === 1) {
        invalid += 1;
        // `<file>:<line>:<col>: error:` or, for the whole document, `<file>: error:`.
        if (
          !new RegExp(
            `^${relative(dir, c.file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(:\\d+:\\d+)?: error: `,
            'm',
          ).test(text.stderr)
        )
          failures.push(`${where}: no error naming the file: ${text.stderr.slice(0, 300)}`);
      }
      if (text.code === 0) {
        // A file that validates can be simulated: the engine never fails on it either.
        const sim = await runCliInProcess(
          [
            'simulate',
            c.file,
            '--scenario',
            pick(['all-pass', 'all-fail', 'first-fail', 'alternating']),
            '--max-steps',
            '50',
            '--json',
          ],
          { cwd: dir },
        );
        if (sim.code !== 0 || /^\s+at /m.test(sim.stderr))
          failures.push(`${where}: simulate exit ${sim.code}: ${sim.stderr.slice(0, 300)}`);
        else JSON.parse(sim.stdout);
      }
      const json = await runCliInProcess(['validate', c.file, '--json'], { cwd: dir });
      try {
        const parsed = JSON.parse(json.stdout) as {
          valid: boolean;
          file: string;
          diagnostics: Array<{ severity: string; file?: string }>;
        };
        if (parsed.valid !== (json.code === 0))
          failures.push(`${where}: --json valid ${parsed.valid} with exit ${json.code}`);
        if (json.code !== text.code) failures.push(`${where}: --json exit ${json.code}, text exit ${text.code}`);
        if (!parsed.valid && !parsed.diagnostics.some((d) => d.severity === 'error' && d.file !== undefined))
          failures.push(`${where}: --json has no error with a file`);
      } catch {
        failures.push(
          `${where}: --json does not parse (exit ${json.code}): ${(json.stdout + json.stderr).slice(0, 300)}`,
        );
      }
    }
    expect(failures).toEqual([]);
    // The mutations mostly break the files, and some leave them valid: both paths are exercised.
    expect(invalid).toBeGreaterThan(CASES / 4);
    expect(invalid).toBeLessThan(CASES);
  }, 600_000);
});
