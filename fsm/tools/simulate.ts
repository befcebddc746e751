/**
 * `ll-loop simulate`: a loop's path through its graph when every check passes, fails, fails
 * first, or alternates — nothing runs. The trace comes from `transition()` itself, fed synthetic
 * facts, so limits, retries, backoff, `next`/`on_error`, maintain mode and routing are exactly the
 * engine's. Pure: no I/O, no clock (time is a counter).
 *
 * How a verdict is imposed: every state whose answer depends on its action (an evaluated state,
 * whatever its evaluator) is judged in the simulation as if by an LLM, and the synthetic LLM
 * answers the verdict the scenario picks from the evaluator's declared verdicts
 * (fsm/evaluators/verdicts.ts). The state's routes are untouched, so the route taken is the one
 * that verdict would take in a run. Its action exits 0 for a pass and 1 for a fail (retries on a
 * non-zero exit happen as in a run; `failExitCode` makes it another code, 127 for "not found");
 * a sub-loop ends in a success terminal or a failure one.
 *
 * A check of what the simulation knows is judged for real, by its own evaluator: one whose `source:`
 * (and every other templated field) reads only the loop's counters and parameters (`state.*`,
 * `context.*`, `loop.*`) and exit codes (`captured.X.exit_code`, `prev.exit_code`, which the
 * scenario set). A budget (`${state.iteration}` le `${context.max_fixes}`) or a triage of the exit
 * code then answers as in a run: "all-fail" means the checks keep failing until the budget is spent,
 * not that the budget is spent at once. A check of output (which nothing printed) takes the scenario's
 * verdict.
 */
import { HUMAN_TIMEOUT_VERDICT, isHumanState } from '../human.js';
import { effectiveEvaluator } from '../evaluate-state.js';
import type { LoopDefinition, StateConfig } from '../schema.js';
import type { CoreEvent, RunEvent, Transition } from '../run/snapshot.js';
import { transition } from '../run/transition.js';
import { templateRefs, type RefSegment } from '../template.js';
import type { ExecutionResult, TerminatedBy } from '../types.js';
import { stateVerdicts, type VerdictSet } from '../verdicts.js';

/** What every action becomes in a simulation (never run). */
const SIMULATED_ACTION = 'simulated';

export const SCENARIOS = ['all-pass', 'all-fail', 'first-fail', 'alternating'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Whether the `n`-th evaluation (0-based) of the run passes under `scenario`. */
function scenarioPasses(scenario: Scenario, n: number): boolean {
  switch (scenario) {
    case 'all-pass':
      return true;
    case 'all-fail':
      return false;
    case 'first-fail':
      return n > 0;
    case 'alternating':
      return n % 2 === 0;
  }
}

/** One state execution of the trace. */
interface SimulatedStep {
  step: number;
  iteration: number;
  state: string;
  /** The evaluator that would judge it (absent for `next:`, terminal and sub-loop states). */
  evaluator?: string;
  /** The verdict the scenario picked (or `error`, when the engine produced one). */
  verdict?: string;
  /** Where the run goes next; absent when the run ended here. */
  to?: string;
  /** Attempts under `retry:` beyond the first. */
  retries?: number;
}

export interface Simulation {
  loop: string;
  scenario: Scenario;
  steps: SimulatedStep[];
  /** How the run would end; absent when the simulation stopped at `maxSteps` first. */
  outcome?: { terminated_by: TerminatedBy; final_state: string; failure: boolean; iterations: number; error?: string };
  /** True when the simulation stopped after `maxSteps` state executions without the run ending. */
  truncated: boolean;
}

/** A reference whose value the simulation knows: a counter, a parameter, or an exit code the scenario set. */
function knownInSimulation(ref: RefSegment): boolean {
  if (ref.namespace === 'state' || ref.namespace === 'context' || ref.namespace === 'loop') return true;
  if (ref.namespace === 'prev') return ref.path.length === 1 && ref.path[0] === 'exit_code';
  if (ref.namespace === 'captured') return ref.path.length === 2 && ref.path[1] === 'exit_code';
  return false;
}

/** Every string below `value` (an evaluator's fields). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

/**
 * True when the state's evaluator judges only what the simulation knows (see the header), so it
 * runs for real: a pure evaluator with a `source:` whose templated fields read known values only.
 */
function judgedForReal(state: StateConfig): boolean {
  const config = state.evaluate;
  if (config === undefined || state.loop !== undefined || state.parallel !== undefined || isHumanState(state))
    return false;
  if (!['exit_code', 'output_numeric', 'output_contains', 'output_json'].includes(config.type)) return false;
  if (!('source' in config) || typeof config.source !== 'string') return false;
  try {
    return strings(config).every((text) => templateRefs(text).every(knownInSimulation));
  } catch {
    return false;
  }
}

/** The states whose verdict the scenario decides, with the verdicts their evaluator can give. */
function decidedStates(def: LoopDefinition): Map<string, VerdictSet> {
  const out = new Map<string, VerdictSet>();
  for (const [name, state] of Object.entries(def.states)) {
    const set = stateVerdicts(def, state);
    if (set && set.pass !== set.fail && !judgedForReal(state)) out.set(name, set);
  }
  return out;
}

/**
 * The definition the simulation runs: decided states judged by the (synthetic) LLM, and every
 * action a fixed text. Nothing runs, so an action's template (`${result.details.current}` after a
 * synthetic verdict that has no details) would only fail for want of real output.
 */
function simulationDefinition(def: LoopDefinition, decided: ReadonlyMap<string, VerdictSet>): LoopDefinition {
  const states: Record<string, StateConfig> = {};
  for (const [name, state] of Object.entries(def.states)) {
    const judged =
      decided.has(name) && state.loop === undefined && !isHumanState(state) && state.parallel === undefined
        ? { evaluate: { type: 'llm_structured', min_confidence: 0, uncertain_suffix: false } as const }
        : {};
    states[name] = {
      ...state,
      ...(state.action === undefined ? {} : { action: SIMULATED_ACTION, action_type: 'shell' as const }),
      ...judged,
      ...simulatedParallel(state),
    };
  }
  return { ...def, llm: { ...def.llm, enabled: true }, states };
}

/**
 * A parallel state with items from run-time data (or per-item parameters from it) runs one
 * synthetic item: nothing ran that could have printed the list.
 */
function simulatedParallel(state: StateConfig): Partial<StateConfig> {
  const parallel = state.parallel;
  if (parallel === undefined || parallel.branches !== undefined) return {};
  const { items_from: _from, with: _with, ...rest } = parallel;
  return { parallel: { ...rest, items: Array.isArray(parallel.items) ? parallel.items : ['simulated item'] } };
}

export interface SimulateOptions {
  /** The exit code of an action whose check fails (default 1; 127 asks what happens when a command is not found). */
  failExitCode?: number;
}

/** Trace `def` under `scenario`, for at most `maxSteps` state executions. */
export function simulate(
  def: LoopDefinition,
  scenario: Scenario,
  maxSteps: number,
  options: SimulateOptions = {},
): Simulation {
  const failExitCode = options.failExitCode ?? 1;
  const decided = decidedStates(def);
  const sim = simulationDefinition(def, decided);
  const steps: SimulatedStep[] = [];
  let evaluations = 0;
  let now = 0;
  const verdictFor = (state: string): string => {
    const set = decided.get(state);
    if (!set) return 'yes';
    return scenarioPasses(scenario, evaluations) ? set.pass : set.fail;
  };

  const record = (t: Transition): void => {
    for (const e of t.events) {
      const last = steps.at(-1);
      if (e.event === 'state_enter') {
        const state = String(e.state);
        const original = def.states[state]!;
        const evaluated =
          (decided.has(state) || judgedForReal(original)) &&
          original.loop === undefined &&
          original.parallel === undefined;
        steps.push({
          step: steps.length + 1,
          iteration: Number(e.iteration),
          state,
          // A human state is judged by a person's answer (whatever routes it), not by an evaluator
          // of its (absent) action.
          ...(isHumanState(original)
            ? { evaluator: 'human' }
            : evaluated
              ? { evaluator: effectiveEvaluator(def, original).type }
              : {}),
        });
      } else if (e.event === 'evaluate' && last) {
        last.verdict = String(e.verdict);
        if (decided.has(last.state)) evaluations += 1;
      } else if (e.event === 'subloop_complete' && last) {
        last.verdict = String(e.verdict);
        evaluations += 1;
      } else if (e.event === 'action_retry' && last) {
        last.retries = (last.retries ?? 0) + 1;
      } else if (e.event === 'route' && last) {
        last.to = String(e.to);
        if (e.verdict !== undefined && last.verdict === undefined) last.verdict = String(e.verdict);
      }
    }
  };

  let t: Transition = transition(sim, null, { type: 'start', now } satisfies CoreEvent);
  record(t);
  while (t.snapshot.status === 'running' && steps.length <= maxSteps) {
    now += 1;
    const state = t.snapshot.current;
    const fact = factFor(t, state, verdictFor(state), decided.get(state), now, failExitCode);
    t = transition(sim, t.snapshot, fact);
    record(t);
  }
  if (steps.length > maxSteps || t.effect.type !== 'finish') {
    // Steps past the bound were entered only to learn that the run goes on; the last kept step
    // keeps its route (emitted before the next state is entered).
    steps.length = Math.min(steps.length, maxSteps);
    return { loop: def.name, scenario, steps, truncated: true };
  }
  const r = t.effect.result;
  return {
    loop: def.name,
    scenario,
    steps,
    outcome: {
      terminated_by: r.terminated_by,
      final_state: r.final_state,
      failure: r.failure,
      iterations: r.iterations,
      ...(r.error === undefined ? {} : { error: r.error }),
    },
    truncated: false,
  };
}

/** A person's simulated answer: the chosen verdict as an answer of the question's kind (`timeout`: nobody answers). */
function humanFact(
  effect: Extract<Transition['effect'], { type: 'await_human' }>,
  verdict: string,
  now: number,
): RunEvent {
  if (verdict === HUMAN_TIMEOUT_VERDICT) return { type: 'human_timeout', now };
  const by = 'simulate';
  if (effect.ask === 'choice') return { type: 'human_answered', reply: { kind: 'choice', option: verdict }, by, now };
  if (effect.ask === 'text') return { type: 'human_answered', reply: { kind: 'text', text: 'simulated' }, by, now };
  if (effect.ask === 'json') return { type: 'human_answered', reply: { kind: 'json', value: {} }, by, now };
  const reply =
    verdict === 'edit'
      ? { kind: 'edit' as const, text: 'simulated edit' }
      : { kind: verdict === 'no' ? ('no' as const) : ('yes' as const) };
  return { type: 'human_answered', reply, by, now };
}

/** The synthetic fact that answers the transition's effect. */
function factFor(
  t: Transition,
  state: string,
  verdict: string,
  set: VerdictSet | undefined,
  now: number,
  failExitCode: number,
): RunEvent {
  const effect = t.effect;
  const passes = set === undefined || verdict === set.pass;
  switch (effect.type) {
    case 'run_action':
      // Only a decided state's action fails; `next:` and terminal states' actions succeed.
      return {
        type: 'action_done',
        result: { output: '', stderr: '', exit_code: passes ? 0 : failExitCode, duration_ms: 0 },
        now,
      };
    case 'evaluate_llm':
      return { type: 'llm_replied', judgement: { verdict, confidence: 1, reason: 'simulated', raw: { verdict } }, now };
    case 'run_loop': {
      const result: ExecutionResult = {
        loop: effect.input.loop,
        final_state: passes ? 'done' : 'failed',
        iterations: 1,
        steps: 1,
        terminated_by: 'terminal',
        failure: !passes,
        duration_ms: 0,
        captured: {},
      };
      return { type: 'subloop_done', result, timedOut: false, now };
    }
    case 'run_parallel': {
      // Every item ends as the scenario's verdict says: all succeed (yes) or none does (no).
      const results = effect.input.items.map((item) => ({
        index: item.index,
        item: item.item,
        loop: item.loop,
        outcome: passes ? ('yes' as const) : ('no' as const),
        run_id: `simulated-${item.index}`,
      }));
      return { type: 'parallel_done', results, now };
    }
    case 'diff_stat': {
      // A passing pass changed the diff; a failing one shows the last diff again (a state's first
      // snapshot is always `yes`, as in a real run).
      const last = t.snapshot.diffStats?.[state]?.stat;
      return {
        type: 'diff_stat_done',
        stat: passes || last === undefined ? `simulated change ${t.snapshot.seq}` : last,
        now,
      };
    }
    case 'sleep':
      return { type: 'sleep_done', now };
    case 'await_handoff':
      // Simulated actions print no signals; a handoff pause cannot come up, but would be continued.
      return { type: 'handoff_resumed', now };
    case 'await_release':
      // Nobody pauses a simulation; a held run would be let go.
      return { type: 'released', now };
    case 'await_human':
      return humanFact(effect, verdict, now);
    case 'finish':
      throw new Error('internal: a finished simulation has no next fact');
  }
}
