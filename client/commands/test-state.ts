/**
 * `ll-loop test <loop> <state> [--exit-code N] [--context K=V…] [--captured NAME=VALUE…] [--json]`:
 * run one state's action and evaluation here, and say which route it takes
 * (worker/test-state.ts). No run is started and the next state is not entered.
 */
import { isHumanState } from '../../fsm/human.js';
import { relative } from 'node:path';
import type { LoopDefinition } from '../../fsm/schema.js';
import { didYouMean } from '../../fsm/suggest.js';
import { templateRefs, type RefSegment } from '../../fsm/template.js';
import type { CapturedValue } from '../../fsm/types.js';
import { stateTemplates } from '../../fsm/definition/template-checks.js';
import { testState, type StateTestResult, type TestedAction } from '../../worker/test-state.js';
import { bool, list, str, type CommandSpec } from '../command-table.js';
import { UsageError } from '../../errors/errors.js';
import { EXIT, exitCodeFor } from '../../errors/exit-codes.js';
import { loadValidLoop } from './load-valid.js';

/** Lines of stdout/stderr shown per action (the log file has all of it). */
const TAIL_LINES = 10;

function parseExitCode(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 255)
    throw new UsageError(
      `--exit-code "${value}" is not an exit code (0–255)`,
      'write --exit-code 0 (passes an exit_code check) or --exit-code 1',
    );
  return n;
}

/** The fields `--captured NAME.FIELD=VALUE` may set (the others of a capture come from its action). */
const SETTABLE_FIELDS = ['output', 'stderr', 'exit_code'] as const;
/** The fields of a capture `--captured` gives (duration_ms is 0). */
const GIVABLE_FIELDS: readonly string[] = [...SETTABLE_FIELDS, 'duration_ms'];

/**
 * `--captured NAME=VALUE`: what the state that captures NAME would have printed; `NAME.FIELD=VALUE`
 * sets one field of it (`output`, `stderr`, `exit_code`), the others as an action that printed
 * nothing and exited 0.
 */
function parseCaptured(pairs: readonly string[]): Record<string, CapturedValue> {
  const out: Record<string, CapturedValue> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError(
        `--captured "${pair}" is not NAME=VALUE`,
        'write --captured errors=3 (the output the capturing state would have had)',
      );
    const [name = '', field = 'output', ...deeper] = pair.slice(0, at).split('.');
    const value = pair.slice(at + 1);
    const settable: readonly string[] = SETTABLE_FIELDS;
    if (deeper.length > 0 || !settable.includes(field))
      throw new UsageError(
        `--captured "${pair}": a capture's field to set is one of ${SETTABLE_FIELDS.join(', ')}, not "${pair.slice(name.length + 1, at)}"${didYouMean(field, SETTABLE_FIELDS)}`,
        `write --captured ${name}=VALUE for its output, or --captured ${name}.exit_code=1`,
      );
    if (field === 'exit_code' && !/^\d+$/.test(value))
      throw new UsageError(
        `--captured "${pair}": an exit code is a whole number`,
        `write --captured ${name}.exit_code=1`,
      );
    const captured = out[name] ?? { output: '', stderr: '', exit_code: 0, duration_ms: 0 };
    out[name] = field === 'exit_code' ? { ...captured, exit_code: Number(value) } : { ...captured, [field]: value };
  }
  return out;
}

/**
 * Values a single-state test cannot have, refused before anything runs: captured values no one
 * passed (`--captured`), the previous state (`${prev.*}`) and the last evaluation (`${result.*}`).
 */
function missingValues(def: LoopDefinition, name: string, captured: Record<string, CapturedValue>): string[] {
  const state = def.states[name]!;
  const problems = new Set<string>();
  for (const { path, text } of stateTemplates(name, state)) {
    let refs: RefSegment[];
    try {
      refs = templateRefs(text);
    } catch {
      continue; // validation reported it
    }
    // After the action, the state's own capture exists (for evaluate: and route targets).
    const ownCaptureExists = path[2] !== 'action' && state.capture !== undefined;
    for (const ref of refs) {
      if (ref.fallback !== undefined) continue;
      const [head, field] = ref.path;
      const givable = field === undefined || GIVABLE_FIELDS.includes(field);
      if (ref.namespace === 'captured' && head !== undefined && !(ownCaptureExists && head === state.capture)) {
        // A join's count, an answer, a child's values, a schema's json: nothing a test is given makes them.
        if (!givable)
          problems.add(
            `${ref.raw} (${path.slice(2).join('.')}): a test cannot give a capture's "${field}" (--captured gives ${SETTABLE_FIELDS.join(', ')}); write ${ref.raw.slice(0, -1)}:-default} in the loop, or run the loop`,
          );
        else if (!Object.hasOwn(captured, head))
          problems.add(
            `${ref.raw} (${path.slice(2).join('.')}): no state has run before this one in a test, so nothing is captured; pass --captured ${head}=VALUE`,
          );
      } else if (ref.namespace === 'prev') {
        problems.add(
          `${ref.raw} (${path.slice(2).join('.')}): the state run before this one does not exist in a test; write ${ref.raw.slice(0, -1)}:-default} in the loop, or run the loop`,
        );
      } else if (ref.namespace === 'result' && (path[2] === 'action' || path[2] === 'evaluate')) {
        // In a route target, `${result.*}` is this state's own evaluation; before it, the last one's.
        problems.add(
          `${ref.raw} (${path.slice(2).join('.')}): no evaluation has run before this state in a test; write ${ref.raw.slice(0, -1)}:-default} in the loop, or run the loop`,
        );
      } else if (ref.namespace === 'context' && head !== undefined && !Object.hasOwn(def.context, head)) {
        problems.add(`${ref.raw} (${path.slice(2).join('.')}): not in context:; pass --context ${head}=VALUE`);
      }
    }
  }
  return [...problems];
}

function tail(text: string): string[] {
  const lines = text.replace(/\n$/, '').split('\n');
  if (text === '') return [];
  return lines.length > TAIL_LINES
    ? [`… (${lines.length - TAIL_LINES} more lines)`, ...lines.slice(-TAIL_LINES)]
    : lines;
}

function printAction(a: TestedAction, n: number, total: number, cwd: string, out: (t: string) => void): void {
  const attempt = total > 1 ? ` (attempt ${n})` : '';
  out(`action${attempt} (${a.kind}): ${a.display}\n`);
  if (a.simulated) {
    out(`  not run: judged as if it exited ${a.result.exit_code} with no output (--exit-code)\n`);
    return;
  }
  const r = a.result;
  const how = r.timed_out ? ' (timed out)' : r.signal ? ` (${r.signal})` : '';
  out(
    `  exit code ${r.exit_code}${how} after ${(r.duration_ms / 1000).toFixed(2)} s${r.error ? `: ${r.error}` : ''}\n`,
  );
  for (const [label, text] of [
    ['stdout', r.output],
    ['stderr', r.stderr],
  ] as const) {
    const lines = tail(text);
    if (lines.length) out(`  ${label}:\n${lines.map((l) => `    | ${l}\n`).join('')}`);
  }
  if (r.log_file) out(`  full output: ${relative(cwd, r.log_file) || r.log_file}\n`);
}

function exitCodeOf(r: StateTestResult): number {
  return r.end ? exitCodeFor(r.end) : EXIT.ok;
}

function printResult(loop: string, r: StateTestResult, cwd: string, out: (t: string) => void): void {
  out(
    `Testing state "${r.state}" of ${loop}: its action and evaluation only; no run is started and the next state is not entered.\n\n`,
  );
  if (!r.actions.length) out('action: none\n');
  r.actions.forEach((a, i) => printAction(a, i + 1, r.actions.length, cwd, out));
  if (r.actionError) out(`error: ${r.actionError}\n`);
  if (r.evaluator !== undefined) {
    out(`evaluator: ${r.evaluator}\nverdict: ${r.verdict}\n`);
    const details = Object.entries(r.details ?? {}).filter(([k]) => k !== 'raw');
    for (const [k, v] of details) out(`  ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
  }
  out('\n');
  if (r.to !== undefined) out(`route: ${r.state} → ${r.to}${r.verdict ? ` (verdict ${r.verdict})` : ' (next)'}\n`);
  else if (r.end?.terminated_by === 'terminal')
    out(
      `route: none — "${r.state}" is a ${r.end.failure ? 'failure ' : ''}terminal state: the run would end here (ll-loop run would exit ${exitCodeOf(r)})\n`,
    );
  else if (r.end) out(`route: none — the run would end here with an error: ${r.end.error ?? r.end.terminated_by}\n`);
}

export const testSpec: CommandSpec = {
  usage:
    'test <loop> <state> [--exit-code N] [--context K=V] [--captured NAME=VALUE] [--json]   run one state, show its route',
  flags: {
    'exit-code': { type: 'string' },
    context: { type: 'string', multiple: true },
    captured: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  },
  async run(ctx) {
    const [target, stateName] = ctx.positionals;
    if (target === undefined)
      throw new UsageError('test needs a loop and a state', 'll-loop test <loop> <state> [--exit-code N]');
    const exitCode = parseExitCode(str(ctx, 'exit-code'));
    const captured = parseCaptured(list(ctx, 'captured'));
    const json = bool(ctx, 'json');
    const { file, definition } = loadValidLoop(target, ctx.cwd, list(ctx, 'context'), json, ctx.out, ctx.err, 'tested');
    const names = Object.keys(definition.states);
    if (stateName === undefined)
      throw new UsageError(
        `test needs the state to run; ${definition.name} has ${names.join(', ')}`,
        `ll-loop test ${target} ${definition.initial}`,
      );
    const state = definition.states[stateName];
    if (state === undefined) {
      throw new UsageError(
        `${definition.name} has no state "${stateName}"${didYouMean(stateName, names)}; its states: ${names.join(', ')}`,
        `ll-loop test ${target} <state>`,
      );
    }
    if (state.loop !== undefined) {
      throw new UsageError(
        `state "${stateName}" runs a sub-loop (loop: ${state.loop}); ll-loop test runs one state's action, not a whole child loop`,
        `test the child's states (ll-loop test ${state.loop} <state>), or trace this loop with ll-loop simulate ${target}`,
      );
    }
    if (isHumanState(state)) {
      throw new UsageError(
        `state "${stateName}" asks a person (action_type: human); ll-loop test runs one state's action, and a person's answer is not one`,
        `trace the answers with ll-loop simulate ${target}, or run the loop and answer it with ll-loop answer`,
      );
    }
    if (state.parallel !== undefined) {
      const loops = state.parallel.branches?.map((b) => (typeof b === 'string' ? b : b.loop)) ?? [state.parallel.loop];
      throw new UsageError(
        `state "${stateName}" is a parallel state (it runs ${loops.join(', ')} as child loops); ll-loop test runs one state's action, not child loops`,
        `test the child's states (ll-loop test ${loops[0] ?? '<loop>'} <state>), or trace this loop with ll-loop simulate ${target}`,
      );
    }
    const missing = missingValues(definition, stateName, captured);
    if (missing.length) {
      throw new UsageError(
        `state "${stateName}" reads values a single-state test does not have:\n  ${missing.join('\n  ')}`,
        'pass them as said above, then test again',
      );
    }
    const result = await testState({
      definition,
      state: stateName,
      cwd: ctx.cwd,
      instanceId: `test-${definition.name}-${Date.now()}`,
      captured,
      ...(exitCode === undefined ? {} : { exitCode }),
    });
    const code = exitCodeOf(result);
    if (json) {
      const actions = result.actions.map((a) => ({
        kind: a.kind,
        action: a.display,
        simulated: a.simulated,
        ...a.result,
      }));
      const { actionError, ...rest } = result;
      ctx.out(
        `${JSON.stringify({ file, loop: definition.name, ...rest, actions, ...(actionError === undefined ? {} : { action_error: actionError }), exit_code: code }, null, 2)}\n`,
      );
    } else printResult(definition.name, result, ctx.cwd, ctx.out);
    return code;
  },
};
