/**
 * `ll-loop test`: one state of a loop, here and now — its action through the activity code runs
 * use (`runAction`, `evaluateLlm`: the same processes, host CLI, `${env.*}` lookup), judged and
 * routed by the core's `transition()` — and no run: nothing is started in Temporal, the next state
 * is not entered, nothing is written but the action's log file.
 *
 * The state is entered the way `ll-loop resume` re-enters one (a `resumeFrom` snapshot at that
 * state), with the captured values the caller supplies, so retries, `next`/`on_error`, terminal
 * states and every evaluator behave exactly as in a run.
 */
import { createActivities } from '../activities/index.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { SNAPSHOT_SEMANTICS, type RunEvent, type RunningSnapshot, type Transition } from '../fsm/run/snapshot.js';
import { llmReplyFact } from '../fsm/run/facts.js';
import { transition } from '../fsm/run/transition.js';
import type { ActionResult, CapturedValue, TerminatedBy } from '../fsm/types.js';

export interface StateTestInput {
  definition: LoopDefinition;
  state: string;
  cwd: string;
  /** Names the action's log file (`.loops/.running/<id>/…`). */
  instanceId: string;
  /** `--exit-code N`: the action is not run; it is judged as if it exited N with no output. */
  exitCode?: number;
  captured?: Record<string, CapturedValue>;
  env?: NodeJS.ProcessEnv;
}

/** What one attempt of the action did (or was taken to do, with `--exit-code`). */
export interface TestedAction {
  kind: 'shell' | 'prompt' | 'mcp';
  /** As the progress display shows it (secrets as `${env.X}`). */
  display: string;
  result: ActionResult;
  simulated: boolean;
}

export interface StateTestResult {
  state: string;
  actions: TestedAction[];
  /** The evaluator that judged the state (`error` when the action could not even be prepared). */
  evaluator?: string;
  verdict?: string;
  details?: Record<string, unknown>;
  /** Where the run would go next. */
  to?: string;
  /** The run would end in this state: how (a terminal, or an error such as "no valid transition"). */
  end?: { terminated_by: TerminatedBy; failure: boolean; error?: string };
  /** An error the state met before or instead of its evaluation (e.g. an undefined variable). */
  actionError?: string;
}

function startSnapshot(def: LoopDefinition, state: string, captured: Record<string, CapturedValue>): RunningSnapshot {
  return {
    status: 'running',
    phase: 'action',
    semantics: SNAPSHOT_SEMANTICS,
    seq: 0,
    current: state,
    iteration: 1,
    visited: [state],
    steps: 0,
    cycles: 0,
    attempt: 1,
    captured,
    prev: null,
    result: null,
    lastValues: {},
    startedAt: new Date(0).toISOString(),
    startedAtMs: 0,
  };
}

/** Run `input.state` once and say where the loop would go. Never starts a run. */
export async function testState(input: StateTestInput): Promise<StateTestResult> {
  const { definition: def, state, cwd, instanceId } = input;
  const activities = createActivities(input.env ? { env: input.env } : {});
  const out: StateTestResult = { state, actions: [] };
  let pendingAction: { kind: 'shell' | 'prompt' | 'mcp'; display: string } | undefined;

  const read = (t: Transition): boolean => {
    for (const e of t.events) {
      if (e.event === 'action_start') pendingAction = { kind: e.action_type, display: e.action };
      else if (e.event === 'action_error') out.actionError = e.error;
      else if (e.event === 'evaluate') {
        out.evaluator = e.type;
        out.verdict = e.verdict;
        out.details = e.details ?? (e.error === undefined ? {} : { error: e.error });
      } else if (e.event === 'route' && e.from === state) {
        out.to = e.to;
        if (out.verdict === undefined && e.verdict !== undefined) out.verdict = e.verdict;
        return true; // the next state is not the test's business
      } else if (e.event === 'maintain_restart') {
        out.to = e.to;
        return true;
      } else if (e.event === 'loop_complete' && t.effect.type === 'finish') {
        const r = t.effect.result;
        out.end = {
          terminated_by: r.terminated_by,
          failure: r.failure,
          ...(r.error === undefined ? {} : { error: r.error }),
        };
        return true;
      }
    }
    return false;
  };

  let now = 1;
  let t = transition(def, null, {
    type: 'start',
    now,
    resumeFrom: { runId: instanceId, snapshot: startSnapshot(def, state, input.captured ?? {}) },
  });
  while (!read(t) && t.snapshot.status === 'running') {
    const effect = t.effect;
    let fact: RunEvent;
    if (effect.type === 'run_action') {
      const simulated = input.exitCode !== undefined;
      const result: ActionResult = simulated
        ? { output: '', stderr: '', exit_code: input.exitCode!, duration_ms: 0 }
        : await activities.runAction({ ...effect.input, instanceId, cwd });
      out.actions.push({ ...(pendingAction ?? { kind: effect.input.kind, display: '' }), result, simulated });
      fact = { type: 'action_done', result, now: ++now };
    } else if (effect.type === 'evaluate_llm') {
      // Answers are checked against their schema as in a run started by this release.
      const reply = await activities.evaluateLlm({ ...effect.input, instanceId, cwd, check_schema: true });
      fact = llmReplyFact(reply, ++now);
    } else if (effect.type === 'diff_stat') {
      // One pass only: a diff_stall state's first snapshot, which is always `yes` (or `error`).
      const reply = await activities.diffStat({ ...effect.input, cwd });
      fact =
        'stat' in reply
          ? { type: 'diff_stat_done', stat: reply.stat, now: ++now }
          : { type: 'diff_stat_error', error: reply.error, now: ++now };
    } else if (effect.type === 'sleep') {
      // A retry's delay: the test does not wait for it.
      fact = { type: 'sleep_done', now: ++now };
    } else {
      throw new Error(
        `internal: ll-loop test cannot carry out ${effect.type} (a sub-loop state is refused before it starts)`,
      );
    }
    t = transition(def, t.snapshot, fact);
  }
  return out;
}
