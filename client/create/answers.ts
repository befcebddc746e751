/**
 * The answers of an `ll-loop create` session, whether they come from the wizard or from flags,
 * and the rules they share: loop names, derived default names, ids for extra checks.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionSpec } from './actions.js';
import type { ApprovalAnswer } from './approval.js';
import type { CheckTopic } from './fixes.js';
import type { LoopKind } from './kinds.js';

export interface CheckAnswer {
  /** Constraint name: the states are `check_<id>` / `fix_<id>`. An identifier, unique in the loop. */
  id: string;
  topic: CheckTopic;
  command: string;
  fix: ActionSpec;
}

interface Common {
  name: string;
  /** The loop's `max_iterations` (its passes; see docs/loop-format.md). */
  maxAttempts: number;
  /** A person approves the result before the loop ends (client/create/approval.ts). */
  approval?: ApprovalAnswer;
}

export type Direction = 'minimize' | 'maximize';

export type Answers =
  | (Common & { kind: 'fix'; checks: CheckAnswer[] })
  | (Common & { kind: 'constraints'; checks: CheckAnswer[]; intervalS: number })
  | (Common & {
      kind: 'metric';
      measure: string;
      direction: Direction;
      target: number;
      tolerance: number;
      improve: ActionSpec;
    })
  | (Common & { kind: 'sequence'; steps: ActionSpec[]; until: string })
  | (Common & {
      kind: 'each';
      /** A command printing one item per line. */
      items: string;
      /** The loop each item runs (in .loops/ or built in). */
      loop: string;
      maxWorkers: number;
      isolation: 'none' | 'worktree';
    });

export type AnswersOf<K extends LoopKind> = Extract<Answers, { kind: K }>;

/** Answers before the name is chosen (the default name is derived from them). */
export type Draft = Answers extends infer A ? (A extends Answers ? Omit<A, 'name'> : never) : never;

export const MAX_ATTEMPT_CHOICES = [10, 20, 50] as const;
export const DEFAULT_MAX_ATTEMPTS = 10;
/** Seconds between rounds of a "maintain constraints" loop. */
export const DEFAULT_INTERVAL_S = 60;
/** A parallel state's `max_workers` when none is given (the loop format's default). */
export const DEFAULT_MAX_WORKERS = 4;

/** Loop names become file names (`.loops/<name>.yaml`) and workflow ids. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `name` cannot be a loop name, or undefined when it can. */
export function nameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'the name is empty';
  if (!NAME.test(name))
    return `"${name}" is not a usable loop name: use letters, digits, ".", "_" and "-", starting with a letter or digit`;
  if (/\.ya?ml$/i.test(name))
    return `"${name}" ends in a YAML extension; give the name only (the file becomes .loops/<name>.yaml)`;
  if (name.length > 80) return `"${name}" is longer than 80 characters`;
  return undefined;
}

export function loopFilePath(cwd: string, name: string): string {
  return join(cwd, '.loops', `${name}.yaml`);
}

/** An existing `.loops/<name>.yaml` or `.yml` — both resolve for `ll-loop run <name>`. */
export function existingLoopFile(cwd: string, name: string): string | undefined {
  return [loopFilePath(cwd, name), join(cwd, '.loops', `${name}.yml`)].find((f) => existsSync(f));
}

/** "types", "types and lint", "types, lint and tests" as a name part: types-lint-and-tests. */
function joinIds(ids: readonly string[]): string {
  const parts = ids.map((id) => id.replaceAll('_', '-'));
  if (parts.length <= 1) return parts[0] ?? 'checks';
  return `${parts.slice(0, -1).join('-')}-and-${parts[parts.length - 1]}`;
}

/** The name the wizard suggests (seed 001: "fix-types-and-lint"), before making it unique. */
export function baseName(answers: Draft): string {
  switch (answers.kind) {
    case 'fix':
      return `fix-${joinIds(answers.checks.map((c) => c.id))}`;
    case 'constraints':
      return `guard-${joinIds(answers.checks.map((c) => c.id))}`;
    case 'metric':
      return answers.direction === 'minimize' ? 'reduce-metric' : 'raise-metric';
    case 'sequence':
      return 'run-steps';
    case 'each':
      return `each-${answers.loop.replace(/[^A-Za-z0-9._-]+/g, '-')}`;
  }
}

/** `base`, or `base-2`, `base-3`, … whichever has no file in `.loops/` yet. */
export function freeName(cwd: string, base: string): string {
  if (!existingLoopFile(cwd, base)) return base;
  for (let n = 2; ; n++) if (!existingLoopFile(cwd, `${base}-${n}`)) return `${base}-${n}`;
}

/** Words that run a tool rather than name it (`npx eslint .` is about eslint). */
const RUNNERS = new Set([
  'npx',
  'npm',
  'pnpm',
  'yarn',
  'run',
  'exec',
  'bunx',
  'bun',
  'uv',
  'poetry',
  'python',
  'python3',
  '-m',
  'go',
  'cargo',
  'make',
  'sudo',
  'env',
]);

/**
 * An identifier for a check given as a command, e.g. `npx eslint .` → `eslint`, `make check` →
 * `check`: the first word that is not a runner, else the last word; `check` when none is usable.
 * The shell's `test`/`[` is named after what it tests: `test -f ok.txt` → `ok_txt`.
 */
export function idForCommand(command: string): string {
  const all = command.trim().split(/\s+/);
  const operands = all[0] === 'test' || all[0] === '[' ? all.slice(1).filter((w) => w !== ']') : all;
  const words = operands.filter((w) => /^[A-Za-z]/.test(w));
  const word = words.find((w) => !RUNNERS.has(w.toLowerCase())) ?? words[words.length - 1] ?? '';
  const slug = word
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[a-z]/.test(slug) ? slug.slice(0, 30) : 'check';
}
