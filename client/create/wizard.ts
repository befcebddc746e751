/**
 * The questions of the `ll-loop create` wizard (seed 001's `/ll:create-loop` session: kind of
 * loop, which checks, maximum attempts, name), asked with @inquirer/prompts on the terminal.
 * Answers already given as flags (a preset) are not asked again.
 */
import { checkbox, confirm, input, number, select } from '@inquirer/prompts';
import { parseActionArg, SHELL_PREFIX, type ActionSpec } from './actions.js';
import {
  baseName,
  DEFAULT_INTERVAL_S,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_WORKERS,
  freeName,
  MAX_ATTEMPT_CHOICES,
  nameProblem,
  type Answers,
  type CheckAnswer,
  type Direction,
  type Draft,
} from './answers.js';
import { checkFor, detectChecks } from './detect.js';
import { defaultImprove } from './fixes.js';
import { KIND_INFO, LOOP_KINDS, type LoopKind } from './kinds.js';
import { listLoopNames } from '../../loader/load.js';
import { parseInterval, type Preset } from './preset.js';

const OTHER = '\u0000other';
const CUSTOM = -1;

/** The host CLI prompts go to, for the wording of questions. */
function hostCli(): string {
  return (process.env.LL_HOST_CLI?.trim() || 'claude').split('/').pop()!;
}

function actionHint(): string {
  return `a prompt for ${hostCli()}, or "${SHELL_PREFIX} <command>"`;
}

/** An input that must parse as an action (a prompt, or `shell: <command>`). */
async function askAction(message: string, fallback: string | undefined, flag: string): Promise<ActionSpec> {
  const text = await input({
    message,
    ...(fallback === undefined ? {} : { default: fallback }),
    required: true,
    validate: (v) => {
      try {
        parseActionArg(v, flag);
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return parseActionArg(text, flag);
}

function askKind(): Promise<LoopKind> {
  return select({
    message: 'What kind of automation loop do you want to create?',
    choices: LOOP_KINDS.map((k) => ({
      value: k,
      name: `${KIND_INFO[k].label}${k === 'fix' ? ' (Recommended)' : ''}`,
      description: KIND_INFO[k].description,
    })),
    default: 'fix',
  });
}

async function askOtherChecks(taken: Set<string>): Promise<CheckAnswer[]> {
  const out: CheckAnswer[] = [];
  do {
    const command = (
      await input({ message: 'Command for the other check (it exits 0 when the check passes):', required: true })
    ).trim();
    const proposed = checkFor(command, taken);
    const fix = await askAction(`How should its failures be fixed? (${actionHint()})`, proposed.fix.text, 'the fix');
    const check = checkFor(command, taken, fix);
    taken.add(check.id);
    out.push({ id: check.id, topic: check.topic, command: check.command, fix: check.fix });
  } while (await confirm({ message: 'Add another check?', default: false }));
  return out;
}

async function askChecks(kind: 'fix' | 'constraints', cwd: string): Promise<CheckAnswer[]> {
  const detected = detectChecks(cwd);
  const picked = await checkbox({
    message: kind === 'fix' ? 'What should the loop fix?' : 'Which checks must keep passing?',
    choices: [
      ...detected.map((c) => ({ value: c.id, name: `${c.what} (${c.command})`, checked: c.preselected })),
      { value: OTHER, name: 'Other…', checked: detected.length === 0 },
    ],
    required: true,
  });
  const checks: CheckAnswer[] = detected
    .filter((c) => picked.includes(c.id))
    .map(({ id, topic, command, fix }) => ({ id, topic, command, fix }));
  if (picked.includes(OTHER)) checks.push(...(await askOtherChecks(new Set(checks.map((c) => c.id)))));
  return checks;
}

async function askInterval(): Promise<number> {
  const choice = await select({
    message: 'How long should it wait between rounds of checks?',
    choices: [
      { value: DEFAULT_INTERVAL_S, name: '1 minute (Recommended)' },
      { value: 300, name: '5 minutes' },
      { value: 3600, name: '1 hour' },
      { value: 0, name: 'No wait' },
      { value: CUSTOM, name: 'Custom…' },
    ],
    default: DEFAULT_INTERVAL_S,
  });
  if (choice !== CUSTOM) return choice;
  const text = await input({
    message: 'Wait between rounds (e.g. 90s, 10m, 2h):',
    required: true,
    validate: (v) => {
      try {
        parseInterval(v, 'the wait');
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  return parseInterval(text, 'the wait');
}

async function askMetric(preset: Preset, maxAttempts: () => Promise<number>): Promise<Draft> {
  const measure =
    preset.measure ??
    (await input({ message: 'Command that prints the number to drive (e.g. an error count):', required: true })).trim();
  const direction: Direction =
    preset.direction ??
    (await select({
      message: 'Which way is better?',
      choices: [
        { value: 'minimize' as const, name: 'Lower (Recommended)', description: 'e.g. errors, warnings, bundle size' },
        { value: 'maximize' as const, name: 'Higher', description: 'e.g. coverage, a score' },
      ],
      default: 'minimize',
    }));
  const target =
    preset.target ??
    (await number({
      message: 'Target value:',
      ...(direction === 'minimize' ? { default: 0 } : {}),
      required: true,
      step: 'any',
    }));
  const improve =
    preset.improve ??
    (await askAction(
      `What should each round do to improve it? (${actionHint()})`,
      defaultImprove(measure, direction, target).text,
      'the improvement',
    ));
  return {
    kind: 'metric',
    measure,
    direction,
    target,
    tolerance: preset.tolerance ?? 0,
    improve,
    maxAttempts: await maxAttempts(),
  };
}

async function askSteps(): Promise<ActionSpec[]> {
  const steps: ActionSpec[] = [];
  for (;;) {
    const n = steps.length + 1;
    const text = await input({
      message: `Step ${n} (${actionHint()})${n > 1 ? ', empty to finish' : ''}:`,
      required: n === 1,
    });
    if (text.trim() === '') return steps;
    steps.push(parseActionArg(text, `step ${n}`));
  }
}

async function askMaxAttempts(kind: LoopKind): Promise<number> {
  const what =
    kind === 'metric' ? 'rounds of improvement' : kind === 'sequence' ? 'rounds of the steps' : 'fix attempts';
  const choice = await select({
    message: `What's the maximum number of ${what}?`,
    choices: [
      ...MAX_ATTEMPT_CHOICES.map((n) => ({
        value: n as number,
        name: n === DEFAULT_MAX_ATTEMPTS ? `${n} (Recommended)` : String(n),
      })),
      { value: CUSTOM, name: 'Custom…' },
    ],
    default: DEFAULT_MAX_ATTEMPTS,
  });
  if (choice !== CUSTOM) return choice;
  return (await number({ message: 'Maximum attempts:', min: 1, required: true, step: 1 }))!;
}

/** The `each` kind: the command listing the items, the loop each runs, how many at once, isolation. */
async function askEach(preset: Preset, cwd: string): Promise<Draft> {
  const items =
    preset.items ?? (await input({ message: 'Which command lists the items (one per line)?', required: true })).trim();
  const loops = listLoopNames(cwd);
  const loop =
    preset.loop ??
    (loops.length
      ? await select({ message: 'Which loop runs for each item?', choices: loops.map((l) => ({ value: l, name: l })) })
      : (await input({ message: 'Which loop runs for each item (its name)?', required: true })).trim());
  const maxWorkers =
    preset.maxWorkers ??
    (await number({
      message: 'How many items at once?',
      default: DEFAULT_MAX_WORKERS,
      min: 1,
      required: true,
      step: 1,
    }))!;
  const isolation =
    preset.isolation ??
    ((await confirm({ message: 'Run each item in its own git worktree?', default: false })) ? 'worktree' : 'none');
  return { kind: 'each', items, loop, maxWorkers, isolation, maxAttempts: preset.maxAttempts ?? DEFAULT_MAX_ATTEMPTS };
}

/** The loop's name, defaulting to one derived from the answers that no file in .loops/ has. */
export function askName(draft: Draft, cwd: string, avoid?: string): Promise<string> {
  let suggestion = freeName(cwd, baseName(draft));
  if (suggestion === avoid) suggestion = freeName(cwd, `${suggestion}-2`);
  return input({
    message: 'Name for the loop:',
    default: suggestion,
    validate: (v) => nameProblem(v.trim()) ?? true,
  }).then((v) => v.trim());
}

/** Ask everything the preset leaves open, in the seed's order. */
export async function askAnswers(preset: Preset, cwd: string): Promise<Answers> {
  const kind = preset.kind ?? (await askKind());
  const maxAttempts = async () => preset.maxAttempts ?? (await askMaxAttempts(kind));
  let draft: Draft;
  switch (kind) {
    case 'fix':
    case 'constraints': {
      const checks = preset.checks ?? (await askChecks(kind, cwd));
      if (kind === 'fix') draft = { kind, checks, maxAttempts: await maxAttempts() };
      else
        draft = {
          kind,
          checks,
          intervalS: preset.intervalS ?? (await askInterval()),
          maxAttempts: await maxAttempts(),
        };
      break;
    }
    case 'metric':
      draft = await askMetric(preset, maxAttempts);
      break;
    case 'sequence': {
      const steps = preset.steps ?? (await askSteps());
      const until =
        preset.until ??
        (await input({ message: 'Repeat the steps until which command passes?', required: true })).trim();
      draft = { kind, steps, until, maxAttempts: await maxAttempts() };
      break;
    }
    case 'each':
      draft = await askEach(preset, cwd);
      break;
  }
  // Seed 001's questions, no more: an approval is asked for with `--approve` (client/create/approval.ts).
  const approvalS = preset.approvalS;
  const name = preset.name ?? (await askName(draft, cwd));
  return { ...draft, name, ...(approvalS ? { approval: { timeoutS: approvalS } } : {}) } as Answers;
}
