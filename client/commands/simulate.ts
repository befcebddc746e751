/**
 * `ll-loop simulate <loop> [--scenario S] [--max-steps N] [--context K=V…] [--json]`: the path a
 * run would take if every check passed, failed, failed first, or alternated (fsm/tools/simulate.ts).
 * Nothing runs and no server is needed.
 */
import { SCENARIOS, simulate, type Scenario, type Simulation } from '../../fsm/tools/simulate.js';
import { didYouMean } from '../../fsm/suggest.js';
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT, exitCodeFor } from '../../errors/exit-codes.js';
import { table } from '../../reporters/table.js';
import { loadValidLoop } from './load-valid.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { unsetContextRefs } from '../../fsm/definition/unset-context.js';

/** State executions traced when `--max-steps` is not given: enough for any loop that ends. */
export const DEFAULT_SIMULATION_STEPS = 100;

const SCENARIO_TEXT: Record<Scenario, string> = {
  'all-pass': 'every check passes',
  'all-fail': 'every check fails',
  'first-fail': 'the first check fails, every later one passes',
  alternating: 'checks pass and fail in turn, the first one passing',
};

function parseScenario(value: string | undefined): Scenario {
  if (value === undefined) return 'all-pass';
  if ((SCENARIOS as readonly string[]).includes(value)) return value as Scenario;
  throw new UsageError(
    `unknown scenario "${value}"${didYouMean(value, SCENARIOS)}`,
    `use --scenario ${SCENARIOS.join('|')}`,
  );
}

function parseExitCode(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 255)
    throw new UsageError(
      `--exit-code "${value}" is not an exit code a failing command gives (1 to 255)`,
      'write --exit-code 127 (command not found) or --exit-code 2',
    );
  return n;
}

function parseMaxSteps(value: string | undefined): number {
  if (value === undefined) return DEFAULT_SIMULATION_STEPS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--max-steps "${value}" is not a positive whole number`, 'write --max-steps 50');
  return n;
}

/** What `ll-loop run` would refuse before starting: each `${context.KEY}` nothing gives (fsm/definition/unset-context.ts). */
function refusal(definition: LoopDefinition): string | undefined {
  const unset = unsetContextRefs(definition);
  if (!unset.length) return undefined;
  const keys = [...new Set(unset.map((u) => u.key))];
  const where = unset.map((u) => `${u.ref.raw} in state "${String(u.path[1])}"`).join(', ');
  return `ll-loop run would not start it: nothing gives ${where} a value; pass ${keys.map((k) => `--context ${k}=VALUE`).join(' ')}`;
}

function printSimulation(
  s: Simulation,
  maxSteps: number,
  out: (t: string) => void,
  refused: string | undefined,
  failExitCode: number | undefined,
): void {
  const exit = failExitCode === undefined ? '' : `, a failing command exiting ${failExitCode}`;
  out(`Simulation of ${s.loop}: ${SCENARIO_TEXT[s.scenario]}${exit} (--scenario ${s.scenario}); nothing runs.\n\n`);
  const rows = s.steps.map((step) => [
    String(step.step),
    String(step.iteration),
    step.state,
    step.evaluator ?? '-',
    `${step.verdict ?? '-'}${step.retries ? ` (after ${step.retries} ${step.retries === 1 ? 'retry' : 'retries'})` : ''}`,
    step.to === undefined ? '(end)' : `→ ${step.to}`,
  ]);
  out(`${table([['STEP', 'PASS', 'STATE', 'EVALUATOR', 'VERDICT', 'NEXT'], ...rows])}\n`);
  if (refused !== undefined) out(`The path above is what the states would do, but ${refused}.\n`);
  if (s.truncated || !s.outcome) {
    out(`Stopped after ${maxSteps} steps (--max-steps) without reaching an end; the loop would go on.\n`);
    return;
  }
  const o = s.outcome;
  if (refused !== undefined) return;
  const how =
    o.terminated_by === 'terminal'
      ? `reaches ${o.failure ? 'the failure terminal' : 'the terminal'} "${o.final_state}"`
      : `ends by ${o.terminated_by} in state "${o.final_state}"${o.error ? `: ${o.error}` : ''}`;
  out(
    `The run ${how} after ${o.iterations} pass${o.iterations === 1 ? '' : 'es'} and ${s.steps.length} step${s.steps.length === 1 ? '' : 's'} (ll-loop run would exit ${exitCodeFor(o)}).\n`,
  );
}

export const simulateSpec: CommandSpec = {
  usage:
    'simulate <loop> [--scenario all-pass|all-fail|first-fail|alternating] [--exit-code N] [--max-steps N] [--json]   trace the path without running anything',
  flags: {
    scenario: { type: 'string' },
    'max-steps': { type: 'string' },
    'exit-code': { type: 'string' },
    context: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
  run(ctx) {
    const target = ctx.positionals[0];
    if (target === undefined)
      throw new UsageError('simulate needs a loop name or path', 'll-loop simulate <loop> --scenario all-fail');
    const scenario = parseScenario(str(ctx, 'scenario'));
    const maxSteps = parseMaxSteps(str(ctx, 'max-steps'));
    const failExitCode = parseExitCode(str(ctx, 'exit-code'));
    const json = bool(ctx, 'json');
    const { definition, file } = loadValidLoop(
      target,
      ctx.cwd,
      list(ctx, 'context'),
      json,
      ctx.out,
      ctx.err,
      'simulated',
    );
    const simulation = simulate(definition, scenario, maxSteps, failExitCode === undefined ? {} : { failExitCode });
    const refused = refusal(definition);
    const exitCode =
      refused !== undefined ? EXIT.usage : simulation.outcome ? exitCodeFor(simulation.outcome) : undefined;
    if (json)
      ctx.out(
        `${JSON.stringify({ file, ...simulation, ...(exitCode === undefined ? {} : { exit_code: exitCode }), ...(refused === undefined ? {} : { not_started: refused }) }, null, 2)}\n`,
      );
    else printSimulation(simulation, maxSteps, ctx.out, refused, failExitCode);
    return EXIT.ok;
  },
};
