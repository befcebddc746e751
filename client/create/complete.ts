/**
 * Completing a preset without asking (scripts: no TTY, or `--yes`). Answers with a default in the
 * wizard (attempts, name, fixes, interval, direction, tolerance) take it. The answers that say
 * what the loop is about (kind, checks, measure, target, steps, until) must be given — with
 * `--yes` the wizard's defaults stand in where it has one (kind fix, the detected checks, target
 * 0 when minimizing). All missing flags are reported at once.
 */
import { UsageError } from '../../errors/errors.js';
import {
  baseName,
  DEFAULT_INTERVAL_S,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_WORKERS,
  freeName,
  type Answers,
  type CheckAnswer,
  type Draft,
} from './answers.js';
import { detectChecks } from './detect.js';
import { defaultImprove } from './fixes.js';
import type { Preset } from './preset.js';

/** Example invocations, shown with "missing flags" errors. */
const EXAMPLES: Record<string, string> = {
  fix: 'll-loop create --kind fix --check "npx tsc --noEmit" --check "npm run lint" --max-attempts 10',
  constraints: 'll-loop create --kind constraints --check "npm test" --interval 5m',
  metric: 'll-loop create --kind metric --measure "npx eslint . -f json | jq length" --toward min --target 0',
  sequence:
    'll-loop create --kind sequence --step "shell: npm run build" --step "Fix the build errors" --until "npm run build"',
  each: 'll-loop create --kind each --items "npx vitest list --failed" --loop fix-one --max-workers 4',
};

function detectedChecks(cwd: string): CheckAnswer[] {
  return detectChecks(cwd)
    .filter((c) => c.preselected)
    .map(({ id, topic, command, fix }) => ({ id, topic, command, fix }));
}

/** `yes`: take the wizard's default where the wizard has one. */
export function completePreset(preset: Preset, cwd: string, yes: boolean): Answers {
  const missing: string[] = [];
  const kind = preset.kind ?? (yes ? 'fix' : undefined);
  if (!kind) {
    throw new UsageError(
      'll-loop create needs --kind (fix, constraints, metric, sequence or each) when it cannot ask (no terminal)',
      `give the answers as flags, e.g. ${EXAMPLES.fix} — or run it in a terminal for the wizard, or add --yes to take the defaults`,
    );
  }
  const maxAttempts = preset.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let answers: Draft | undefined;
  if (kind === 'fix' || kind === 'constraints') {
    const checks = preset.checks ?? (yes ? detectedChecks(cwd) : []);
    if (!checks.length)
      missing.push(yes ? '--check (none detected in this project)' : '--check (repeat it for each check)');
    answers =
      kind === 'fix'
        ? { kind, maxAttempts, checks }
        : { kind, maxAttempts, checks, intervalS: preset.intervalS ?? DEFAULT_INTERVAL_S };
  } else if (kind === 'metric') {
    const direction = preset.direction ?? 'minimize';
    const target = preset.target ?? (yes && direction === 'minimize' ? 0 : undefined);
    if (preset.measure === undefined) missing.push('--measure (a command that prints the number)');
    if (target === undefined) missing.push('--target (the number to reach)');
    if (preset.measure !== undefined && target !== undefined) {
      const improve = preset.improve ?? defaultImprove(preset.measure, direction, target);
      answers = {
        kind,
        maxAttempts,
        measure: preset.measure,
        direction,
        target,
        tolerance: preset.tolerance ?? 0,
        improve,
      };
    }
  } else if (kind === 'each') {
    if (preset.items === undefined) missing.push('--items (a command that prints one item per line)');
    if (preset.loop === undefined) missing.push('--loop (the loop each item runs)');
    if (preset.items !== undefined && preset.loop !== undefined)
      answers = {
        kind,
        maxAttempts,
        items: preset.items,
        loop: preset.loop,
        maxWorkers: preset.maxWorkers ?? DEFAULT_MAX_WORKERS,
        isolation: preset.isolation ?? 'none',
      };
  } else {
    if (!preset.steps?.length) missing.push('--step (repeat it for each step, in order)');
    if (preset.until === undefined) missing.push('--until (the command that ends the sequence when it passes)');
    if (preset.steps?.length && preset.until !== undefined)
      answers = { kind, maxAttempts, steps: preset.steps, until: preset.until };
  }
  if (missing.length || !answers) {
    throw new UsageError(`ll-loop create --kind ${kind} needs ${missing.join(' and ')}`, `e.g. ${EXAMPLES[kind]}`);
  }
  const name = preset.name ?? freeName(cwd, baseName(answers));
  return { ...answers, name, ...(preset.approvalS ? { approval: { timeoutS: preset.approvalS } } : {}) } as Answers;
}
