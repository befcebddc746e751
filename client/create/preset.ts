/**
 * `ll-loop create` flags → a preset: the answers given on the command line, each checked and
 * parsed (usage errors name the flag). The wizard asks only what a preset leaves open; scripts
 * complete it with defaults (client/create/complete.ts).
 */
import { parseActionArg, type ActionSpec } from './actions.js';
import { nameProblem, type CheckAnswer, type Direction } from './answers.js';
import { checkFor } from './detect.js';
import { LOOP_KINDS, parseLoopKind, type LoopKind } from './kinds.js';
import { UsageError } from '../../errors/errors.js';

/** The raw flag values (strings as typed; repeatable flags as lists). */
export interface CreateFlags {
  kind?: string;
  check: string[];
  fix: string[];
  maxAttempts?: string;
  name?: string;
  measure?: string;
  toward?: string;
  target?: string;
  tolerance?: string;
  step: string[];
  until?: string;
  interval?: string;
  approve?: string;
  items?: string;
  loop?: string;
  maxWorkers?: string;
  isolation?: string;
}

export interface Preset {
  kind?: LoopKind;
  checks?: CheckAnswer[];
  maxAttempts?: number;
  name?: string;
  measure?: string;
  direction?: Direction;
  target?: number;
  tolerance?: number;
  /** metric: the `--fix` that improves the number. */
  improve?: ActionSpec;
  steps?: ActionSpec[];
  until?: string;
  intervalS?: number;
  /** `--approve DURATION`: a person approves the result; the question's deadline in seconds. */
  approvalS?: number;
  items?: string;
  loop?: string;
  maxWorkers?: number;
  isolation?: 'none' | 'worktree';
}

/** Which kinds each kind-specific flag belongs to. */
const FLAG_KINDS: Record<string, readonly LoopKind[]> = {
  check: ['fix', 'constraints'],
  fix: ['fix', 'constraints', 'metric'],
  measure: ['metric'],
  toward: ['metric'],
  target: ['metric'],
  tolerance: ['metric'],
  step: ['sequence'],
  until: ['sequence'],
  interval: ['constraints'],
  approve: ['fix', 'metric', 'sequence'],
  items: ['each'],
  loop: ['each'],
  maxWorkers: ['each'],
  isolation: ['each'],
};

function given(flags: CreateFlags, flag: string): boolean {
  const value = (flags as unknown as Record<string, unknown>)[flag];
  return Array.isArray(value) ? value.length > 0 : value !== undefined;
}

function positiveInteger(value: string, flag: string): number {
  const n = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a whole number of 1 or more, got "${value}"`, `e.g. ${flag} 10`);
  return n;
}

function finiteNumber(value: string, flag: string, min?: number): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`${flag} must be a number, got "${value}"`, `e.g. ${flag} 0`);
  if (min !== undefined && n < min)
    throw new UsageError(`${flag} must be ${min} or more, got "${value}"`, `e.g. ${flag} ${min}`);
  return n;
}

const UNIT_S: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600 };

/** `90`, `90s`, `5m`, `1h` → seconds (0 = no wait between rounds). */
export function parseInterval(value: string, flag = '--interval'): number {
  const m = /^(\d+(?:\.\d+)?)\s*([smh]?)$/i.exec(value.trim());
  if (!m)
    throw new UsageError(`${flag} must be a duration such as 60, 90s, 5m or 1h, got "${value}"`, `e.g. ${flag} 5m`);
  return Number(m[1]) * UNIT_S[m[2]!.toLowerCase()]!;
}

function parseDirection(value: string): Direction {
  const v = value.trim().toLowerCase();
  if (['min', 'minimize', 'down', 'lower'].includes(v)) return 'minimize';
  if (['max', 'maximize', 'up', 'higher'].includes(v)) return 'maximize';
  throw new UsageError(
    `--toward must be min or max, got "${value}"`,
    'e.g. --toward min (a lower number is better) or --toward max',
  );
}

function parseIsolation(value: string): 'none' | 'worktree' {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === 'worktree') return v;
  throw new UsageError(
    `--isolation must be none or worktree, got "${value}"`,
    'e.g. --isolation worktree (each item in its own git worktree)',
  );
}

function checkName(name: string, flag = '--name'): string {
  const problem = nameProblem(name);
  if (problem) throw new UsageError(`${flag}: ${problem}`, `e.g. ${flag} fix-types-and-lint`);
  return name;
}

function nonEmpty(value: string, flag: string, what: string): string {
  const text = value.trim();
  if (text === '') throw new UsageError(`${flag} needs ${what}`, `e.g. ${flag} "npm test"`);
  return text;
}

/** `--check` commands paired in order with `--fix` actions (checks without one get the default). */
function checksFrom(flags: CreateFlags): CheckAnswer[] | undefined {
  if (!flags.check.length) return undefined;
  if (flags.fix.length > flags.check.length) {
    throw new UsageError(
      `${flags.fix.length} --fix for ${flags.check.length} --check: each --fix belongs to the --check in the same position`,
      'give one --check per --fix (a check without --fix gets a fix prompt for the host CLI)',
    );
  }
  const taken = new Set<string>();
  return flags.check.map((raw, i) => {
    const command = nonEmpty(raw, '--check', 'a command that exits 0 when the check passes');
    const fix = flags.fix[i] === undefined ? undefined : parseActionArg(flags.fix[i]!, '--fix');
    const check = checkFor(command, taken, fix);
    taken.add(check.id);
    return { id: check.id, topic: check.topic, command: check.command, fix: check.fix };
  });
}

export function presetFromFlags(flags: CreateFlags): Preset {
  let kind: LoopKind | undefined;
  if (flags.kind !== undefined) {
    kind = parseLoopKind(flags.kind);
    if (!kind)
      throw new UsageError(`--kind must be one of ${LOOP_KINDS.join(', ')}, got "${flags.kind}"`, 'e.g. --kind fix');
    for (const [flag, kinds] of Object.entries(FLAG_KINDS)) {
      if (given(flags, flag) && !kinds.includes(kind)) {
        const shown = flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
        throw new UsageError(
          `--${shown} does not apply to --kind ${kind} (it is for --kind ${kinds.join(' or ')})`,
          `remove --${shown}, or change --kind`,
        );
      }
    }
  }
  const preset: Preset = {};
  if (kind) preset.kind = kind;
  if (flags.name !== undefined) preset.name = checkName(flags.name.trim());
  if (flags.maxAttempts !== undefined) preset.maxAttempts = positiveInteger(flags.maxAttempts, '--max-attempts');
  const checks = checksFrom(flags);
  if (checks) preset.checks = checks;
  if (kind === 'metric' && flags.fix.length > 1)
    throw new UsageError('--kind metric takes one --fix (the action that improves the number)', 'keep one --fix');
  if (kind === 'metric' && flags.fix[0] !== undefined) preset.improve = parseActionArg(flags.fix[0], '--fix');
  if (flags.measure !== undefined)
    preset.measure = nonEmpty(flags.measure, '--measure', 'a command that prints a number');
  if (flags.toward !== undefined) preset.direction = parseDirection(flags.toward);
  if (flags.target !== undefined) preset.target = finiteNumber(flags.target, '--target');
  if (flags.tolerance !== undefined) preset.tolerance = finiteNumber(flags.tolerance, '--tolerance', 0);
  if (flags.step.length) preset.steps = flags.step.map((s) => parseActionArg(s, '--step'));
  if (flags.until !== undefined)
    preset.until = nonEmpty(flags.until, '--until', 'a command that exits 0 when the sequence is done');
  if (flags.interval !== undefined) preset.intervalS = parseInterval(flags.interval);
  if (flags.approve !== undefined) {
    preset.approvalS = parseInterval(flags.approve, '--approve');
    if (preset.approvalS <= 0)
      throw new UsageError(
        '--approve needs a deadline longer than 0',
        'e.g. --approve 4h (nobody answering by then counts as no)',
      );
  }
  if (flags.items !== undefined)
    preset.items = nonEmpty(flags.items, '--items', 'a command that prints one item per line');
  if (flags.loop !== undefined) preset.loop = checkName(flags.loop.trim(), '--loop');
  if (flags.maxWorkers !== undefined) preset.maxWorkers = positiveInteger(flags.maxWorkers, '--max-workers');
  if (flags.isolation !== undefined) preset.isolation = parseIsolation(flags.isolation);
  return preset;
}
