/**
 * `ll-loop init [--yes] [--json]`: find the project's checks, show them with the loops proposed
 * for them (client/init/), and write those loops into `.loops/` on confirmation (a y/N prompt on a
 * terminal) or at once with `--yes`. Existing files are kept; a second run changes nothing.
 */
import { confirm } from '@inquirer/prompts';
import { CliError, UsageError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import { table } from '../../reporters/table.js';
import { planInit, writePlan, type InitPlan, type PlannedLoop } from '../init/plan.js';
import type { CheckerStatus } from '../init/checker.js';
import { bool, type CommandSpec } from '../command-table.js';

export interface InitOptions {
  cwd: string;
  yes: boolean;
  json: boolean;
  /** A terminal to ask on (stdin and stdout are both terminals). */
  interactive: boolean;
  out: (text: string) => void;
}

const LOOKED_FOR =
  'package.json scripts (test, lint, typecheck, build), pyproject.toml / setup.cfg / tox.ini (pytest, ruff, mypy, pyright), Cargo.toml, go.mod, Makefile targets (test, check, lint, typecheck, build), .pre-commit-config.yaml';

function checkerText(s: CheckerStatus): string {
  return s.found ? `${s.tool}: ${s.where}` : `${s.tool}: not installed (${s.fix})`;
}

function parametersText(loop: PlannedLoop): string {
  return Object.entries(loop.parameters)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
}

function printPlan(plan: InitPlan, out: (text: string) => void): void {
  out(`Checks found in ${plan.root}:\n`);
  const unmatched = new Map(plan.unmatched.map((u) => [u.check, u.reason]));
  const checker = new Map(plan.loops.map((l) => [l.check, checkerText(l.checker)]));
  out(
    table(
      plan.checks.map((c) => [`  ${c.kind}`, c.command, c.source, checker.get(c) ?? `(${unmatched.get(c) ?? ''})`]),
    ),
  );
  if (plan.loops.length === 0) return;
  out(`\nLoops proposed (each from: a built-in, with this project's commands):\n`);
  out(
    table(
      plan.loops.map((l) => [
        `  ${l.file}`,
        `from ${l.from}`,
        parametersText(l),
        l.status === 'new' ? 'new' : 'kept (already there)',
      ]),
    ),
  );
  const missing = plan.loops.filter((l) => !l.checker.found);
  for (const l of missing)
    out(`warning: ${l.name} cannot run until ${l.checker.tool} is installed: ${(l.checker as { fix: string }).fix}\n`);
  out(
    plan.agent.found
      ? `agent for the fix steps: ${plan.agent.tool} (${plan.agent.where})\n`
      : `warning: the fix steps need the agent ${plan.agent.tool}, which is not found: ${plan.agent.fix}\n`,
  );
}

function jsonReport(plan: InitPlan, written: string[], kept: string[]): string {
  const report = {
    root: plan.root,
    checks: plan.checks,
    loops: plan.loops.map((l) => ({
      name: l.name,
      file: l.file,
      from: l.from,
      parameters: l.parameters,
      status: l.status,
      check: l.check.command,
      checker: l.checker,
    })),
    unmatched: plan.unmatched.map((u) => ({ ...u.check, reason: u.reason })),
    agent: plan.agent,
    written,
    kept,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function noProposalError(plan: InitPlan): UsageError {
  const fix =
    'write a loop for your check with ll-loop create, or run a built-in with your command, e.g. ll-loop run test-until-pass --context test_cmd="<your test command>" (ll-loop list --builtin lists them)';
  if (plan.checks.length === 0) return new UsageError(`no checks found in ${plan.root}; looked for ${LOOKED_FOR}`, fix);
  const kinds = [...new Set(plan.unmatched.map((u) => u.check.kind))].join(', ');
  return new UsageError(`found only ${kinds} checks, and no built-in loop works on them yet`, fix);
}

function nextSteps(plan: InitPlan, out: (text: string) => void): void {
  const first = plan.loops[0];
  if (!first) return;
  out(`next:\n  ll-loop validate ${first.name}\n  ll-loop run ${first.name} --dry-run\n  ll-loop run ${first.name}\n`);
}

/** The y/N question; Ctrl-C or a closed terminal (inquirer's ExitPromptError) is a cancel. */
async function ask(message: string): Promise<boolean> {
  try {
    return await confirm({ message, default: false });
  } catch (err) {
    if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError'))
      throw new CliError(
        'cancelled; nothing was written',
        'run ll-loop init again, or ll-loop init --yes',
        EXIT.cancelled,
      );
    throw err;
  }
}

/** `ll-loop init`. Returns the exit code. */
export async function initCommand(opts: InitOptions): Promise<number> {
  const plan = planInit(opts.cwd);
  const toWrite = plan.loops.filter((l) => l.status === 'new');
  if (opts.json) {
    const { written, kept } =
      opts.yes && toWrite.length
        ? writePlan(plan)
        : { written: [], kept: plan.loops.filter((l) => l.status === 'kept').map((l) => l.file) };
    opts.out(jsonReport(plan, written, kept));
    if (plan.loops.length === 0) throw noProposalError(plan);
    return EXIT.ok;
  }
  if (plan.checks.length === 0) throw noProposalError(plan);
  printPlan(plan, opts.out);
  if (plan.loops.length === 0) throw noProposalError(plan);
  if (toWrite.length === 0) {
    opts.out(`\nnothing to change: every proposed loop is already in .loops/ (kept as it is)\n`);
    return EXIT.ok;
  }
  opts.out('\n');
  if (!opts.yes) {
    if (!opts.interactive)
      throw new UsageError(
        `nothing written: there is no terminal to confirm on`,
        're-run with --yes to write the loops above: ll-loop init --yes',
      );
    const files = toWrite.length === 1 ? toWrite[0]?.file : `${toWrite.length} loops into .loops/`;
    if (!(await ask(`Write ${files}?`))) {
      opts.out('nothing written\n');
      return EXIT.ok;
    }
  }
  const { written, kept } = writePlan(plan);
  for (const file of written) opts.out(`wrote ${file}\n`);
  for (const file of kept) opts.out(`kept ${file} (already there; not overwritten)\n`);
  nextSteps(plan, opts.out);
  return EXIT.ok;
}

/** `ll-loop init` in the command table. */
export const initSpec: CommandSpec = {
  usage: "init [--yes] [--json]   find the project's checks and write loops for them into .loops/",
  flags: { yes: { type: 'boolean', short: 'y' }, json: { type: 'boolean' } },
  run(ctx) {
    if (ctx.positionals.length)
      throw new UsageError(`unexpected arguments: ${ctx.positionals.join(' ')}`, 'll-loop init [--yes] [--json]');
    return initCommand({
      cwd: ctx.cwd,
      yes: bool(ctx, 'yes'),
      json: bool(ctx, 'json'),
      interactive: process.stdin.isTTY === true && ctx.terminal.isTTY === true,
      out: ctx.out,
    });
  },
};
