/**
 * `ll-loop create`: write a new `.loops/<name>.yaml`. On a terminal it is a wizard (seed 001's
 * `/ll:create-loop` session); with `--yes` or without a terminal the answers come from flags.
 * Either way the loop is generated through a paradigm compiler, loaded like `ll-loop validate`
 * loads it before it is written, and then optionally validated or run.
 */
import { relative } from 'node:path';
import { confirm, select } from '@inquirer/prompts';
import { bool, list, str, type CommandContext, type CommandSpec } from '../command-table.js';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { existingLoopFile, loopFilePath, type Answers } from '../create/answers.js';
import { completePreset } from '../create/complete.js';
import { generateLoop } from '../create/generate.js';
import { presetFromFlags, type CreateFlags } from '../create/preset.js';
import { checkLoopText, InvalidLoopError, saveLoop } from '../create/save.js';
import { askAnswers, askName } from '../create/wizard.js';
import { runCommand } from '../../runs/start/run-loop.js';
import { runsService } from '../../runs/service/runs-service.js';
import { validateLoop } from './validate-report.js';
import { describeCommand } from './create-describe.js';
import { DEFAULT_DRAFT_TIMEOUT_MS } from '../create/describe-run.js';
import { parseDuration } from '../../runs/schedules/durations.js';
import { colourWanted } from '../../reporters/style.js';

type Next = 'validate' | 'run' | 'none';

export interface CreateOptions {
  cwd: string;
  flags: CreateFlags;
  /** Take the defaults instead of asking (also what happens without a terminal). */
  yes: boolean;
  force: boolean;
  /** Print the YAML, write nothing. */
  dryRun: boolean;
  /** What to do after writing; undefined = ask (wizard) or nothing (flags). */
  next?: Exclude<Next, 'none'>;
  interactive: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

function preview(yaml: string, out: (t: string) => void): void {
  out(`\nHere's the loop configuration:\n\n${yaml.endsWith('\n') ? yaml : `${yaml}\n`}\n`);
}

function stateCount(fsm: Record<string, unknown>): string {
  const states = fsm.states;
  return states && typeof states === 'object' ? `${Object.keys(states).length} states` : 'no states';
}

/** The wizard: ask, preview, confirm the save (and any overwrite), then offer what to do next. */
async function wizard(opts: CreateOptions): Promise<{ answers: Answers; file?: string }> {
  let answers = await askAnswers(presetFromFlags(opts.flags), opts.cwd);
  for (;;) {
    const { yaml } = generateLoop(answers, opts.cwd);
    const problems = checkLoopText(yaml, opts.cwd, answers.name);
    if (problems) throw new InvalidLoopError(problems, relative(opts.cwd, loopFilePath(opts.cwd, answers.name)));
    preview(yaml, opts.out);
    if (opts.dryRun) return { answers };
    const shown = relative(opts.cwd, loopFilePath(opts.cwd, answers.name));
    if (!(await confirm({ message: `Save to ${shown}?`, default: true }))) return { answers };
    const existing = existingLoopFile(opts.cwd, answers.name);
    if (
      existing &&
      !opts.force &&
      !(await confirm({ message: `${relative(opts.cwd, existing)} already exists. Replace it?`, default: false }))
    ) {
      answers = { ...answers, name: await askName(answers, opts.cwd, answers.name) };
      continue;
    }
    return { answers, file: saveLoop(yaml, opts.cwd, answers.name, true) };
  }
}

function askNext(name: string): Promise<Next> {
  return select({
    message: 'What next?',
    choices: [
      { value: 'validate' as const, name: `Validate it (ll-loop validate ${name})` },
      { value: 'run' as const, name: `Run it now (ll-loop run ${name})` },
      { value: 'none' as const, name: 'Nothing for now' },
    ],
    default: 'validate',
  });
}

async function afterWrite(next: Next, name: string, opts: CreateOptions): Promise<number> {
  if (next === 'validate')
    return validateLoop({
      cwd: opts.cwd,
      target: name,
      json: false,
      out: opts.out,
      err: opts.err,
      invokedIn: opts.cwd,
    });
  if (next === 'run')
    return runCommand({
      cwd: opts.cwd,
      target: name,
      context: [],
      dryRun: false,
      noLlm: false,
      json: false,
      out: opts.out,
      err: opts.err,
      runs: runsService(),
    });
  opts.out(`Run it with: ll-loop run ${name}   (or look at it first: ll-loop show ${name})\n`);
  return EXIT.ok;
}

/** Inquirer rejects with ExitPromptError on Ctrl-C / a closed terminal. */
function isPromptExit(err: unknown): boolean {
  return err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError');
}

export async function createCommand(opts: CreateOptions): Promise<number> {
  if (opts.interactive) {
    let result: { answers: Answers; file?: string };
    try {
      result = await wizard(opts);
    } catch (err) {
      if (isPromptExit(err))
        throw new CliError(
          'cancelled; nothing was written',
          'run ll-loop create again, or give the answers as flags (see ll-loop help)',
          EXIT.cancelled,
        );
      throw err;
    }
    if (!result.file) {
      if (!opts.dryRun) opts.out('Nothing was written.\n');
      return EXIT.ok;
    }
    opts.out(`✓ Wrote ${relative(opts.cwd, result.file)}\n`);
    let next: Next;
    try {
      next = opts.next ?? (await askNext(result.answers.name));
    } catch (err) {
      if (isPromptExit(err)) return EXIT.ok;
      throw err;
    }
    return afterWrite(next, result.answers.name, opts);
  }
  const answers = completePreset(presetFromFlags(opts.flags), opts.cwd, opts.yes);
  const { yaml, fsm } = generateLoop(answers, opts.cwd);
  if (opts.dryRun) {
    const problems = checkLoopText(yaml, opts.cwd, answers.name);
    if (problems) throw new InvalidLoopError(problems, relative(opts.cwd, loopFilePath(opts.cwd, answers.name)));
    opts.out(yaml);
    return EXIT.ok;
  }
  const file = saveLoop(yaml, opts.cwd, answers.name, opts.force);
  opts.out(`✓ Wrote ${relative(opts.cwd, file)} (${stateCount(fsm)})\n`);
  return afterWrite(opts.next ?? 'none', answers.name, opts);
}

export const createSpec: CommandSpec = {
  usage:
    'create [--kind K] [--check CMD]… [--fix ACTION]… [--items CMD --loop L [--max-workers N]] [--max-attempts N] [--approve D] [--name N] [--yes] [--force] [--dry-run] [--validate|--run]   write .loops/<name>.yaml (a wizard on a terminal; docs/create.md)\n' +
    '  ll-loop create --describe TEXT [--provider P --model M [--base-url U]] [--timeout D] [--name N] [--yes] [--force] [--dry-run]   an LLM drafts the loop',
  flags: {
    kind: { type: 'string' },
    check: { type: 'string', multiple: true },
    fix: { type: 'string', multiple: true },
    'max-attempts': { type: 'string' },
    name: { type: 'string' },
    measure: { type: 'string' },
    toward: { type: 'string' },
    target: { type: 'string' },
    tolerance: { type: 'string' },
    step: { type: 'string', multiple: true },
    until: { type: 'string' },
    interval: { type: 'string' },
    approve: { type: 'string' },
    items: { type: 'string' },
    loop: { type: 'string' },
    'max-workers': { type: 'string' },
    isolation: { type: 'string' },
    yes: { type: 'boolean', short: 'y' },
    force: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    validate: { type: 'boolean' },
    run: { type: 'boolean' },
    describe: { type: 'string' },
    provider: { type: 'string' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    timeout: { type: 'string' },
  },
  run(ctx: CommandContext) {
    if (ctx.positionals.length > 1)
      throw new UsageError(
        `unexpected arguments: ${ctx.positionals.slice(1).join(' ')}`,
        'quote values that contain spaces, e.g. --check "npm run lint"',
      );
    if (bool(ctx, 'validate') && bool(ctx, 'run'))
      throw new UsageError(
        '--validate and --run cannot be used together',
        'pick one: --run validates before it starts the loop',
      );
    if (bool(ctx, 'dry-run') && (bool(ctx, 'validate') || bool(ctx, 'run')))
      throw new UsageError(
        '--dry-run writes nothing, so there is nothing to --validate or --run',
        'remove --dry-run, or the other flag',
      );
    const positionalName = ctx.positionals[0];
    const flagName = str(ctx, 'name');
    if (positionalName !== undefined && flagName !== undefined && positionalName !== flagName) {
      throw new UsageError(`two names given: "${positionalName}" and --name "${flagName}"`, 'give the name once');
    }
    const name = flagName ?? positionalName;
    const description = str(ctx, 'describe');
    if (description !== undefined) return describe(ctx, description, name);
    const stray = DESCRIBE_ONLY.find((f) => ctx.values[f] !== undefined);
    if (stray) throw new UsageError(`--${stray} goes with --describe`, 'add --describe "what the loop should do"');
    const optional = (flag: string) => {
      const value = str(ctx, flag);
      const key = flag === 'max-attempts' ? 'maxAttempts' : flag === 'max-workers' ? 'maxWorkers' : flag;
      return value === undefined ? {} : { [key]: value };
    };
    const flags: CreateFlags = {
      check: list(ctx, 'check'),
      fix: list(ctx, 'fix'),
      step: list(ctx, 'step'),
      ...optional('kind'),
      ...optional('max-attempts'),
      ...optional('measure'),
      ...optional('toward'),
      ...optional('target'),
      ...optional('tolerance'),
      ...optional('until'),
      ...optional('interval'),
      ...optional('approve'),
      ...optional('items'),
      ...optional('loop'),
      ...optional('max-workers'),
      ...optional('isolation'),
      ...(name === undefined ? {} : { name }),
    };
    const yes = bool(ctx, 'yes');
    const next = bool(ctx, 'run') ? 'run' : bool(ctx, 'validate') ? 'validate' : undefined;
    return createCommand({
      cwd: ctx.cwd,
      flags,
      yes,
      force: bool(ctx, 'force'),
      dryRun: bool(ctx, 'dry-run'),
      ...(next === undefined ? {} : { next }),
      interactive: !yes && process.stdin.isTTY === true && ctx.terminal.isTTY === true,
      out: ctx.out,
      err: ctx.err,
    });
  },
};

/** Flags that only `--describe` reads. */
const DESCRIBE_ONLY = ['provider', 'model', 'base-url', 'timeout'] as const;

/** Flags of the wizard and its presets, which `--describe` does not take. */
const PRESET_FLAGS = Object.keys(createSpec.flags).filter(
  (f) => !['describe', 'name', 'yes', 'force', 'dry-run', ...DESCRIBE_ONLY].includes(f),
);

/** `create --describe TEXT`: the flags checked here, the drafting in create-describe.ts. */
function describe(ctx: CommandContext, description: string, name: string | undefined): Promise<number> {
  const preset = PRESET_FLAGS.find((f) => {
    const v = ctx.values[f];
    return v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);
  });
  if (preset)
    throw new UsageError(
      `--${preset} cannot be used with --describe: the LLM drafts the whole loop`,
      'put it into the description, or drop --describe and use the wizard flags',
    );
  const timeout = str(ctx, 'timeout');
  const yes = bool(ctx, 'yes');
  return describeCommand({
    cwd: ctx.cwd,
    description,
    ...optionalString('provider', str(ctx, 'provider')),
    ...optionalString('baseUrl', str(ctx, 'base-url')),
    ...optionalString('model', str(ctx, 'model')),
    ...optionalString('name', name),
    timeoutMs: timeout === undefined ? DEFAULT_DRAFT_TIMEOUT_MS : parseDuration(timeout, '--timeout'),
    yes,
    force: bool(ctx, 'force'),
    dryRun: bool(ctx, 'dry-run'),
    interactive: !yes && process.stdin.isTTY === true && ctx.terminal.isTTY === true,
    colour: colourWanted(ctx.terminal),
    width: ctx.terminal.isTTY && ctx.terminal.columns ? ctx.terminal.columns : 80,
    env: process.env,
    out: ctx.out,
    err: ctx.err,
  });
}

function optionalString<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
