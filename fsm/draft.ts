/**
 * The working copy one `step()` mutates, and the small operations every transition shares:
 * emitting events, finishing the run, remembering `prev`. Pure, like the rest of fsm/.
 */
import { formatDuration } from './format.js';
import { InterpolationError, type InterpolationScope } from './interpolate.js';
import type { LoopDefinition, StateConfig } from './schema.js';
import type { Command, Snapshot } from './snapshot.js';
import { TemplateSyntaxError } from './template.js';
import type { ActionResult, ExecutionResult, TerminatedBy } from './types.js';

/** Mutable working copy for one step; `commands` collects the effects. */
export interface Draft {
  def: LoopDefinition;
  snap: Snapshot;
  now: number;
  commands: Command[];
  /** The state to enter next; `step()` drains this in a loop, so action-less chains never recurse. */
  goto?: { name: string; newCycle?: boolean };
}

/** Append an event to the stream. */
export function emit(d: Draft, event: string, fields: Record<string, unknown> = {}): void {
  d.commands.push({ type: 'emit', event: { event, ...fields } });
}

/** Everything templates can see while the current state runs. */
export function scopeOf(def: LoopDefinition, snap: Snapshot, now: number): InterpolationScope {
  const elapsed = now - snap.startedAtMs;
  return {
    context: def.context,
    captured: snap.captured,
    prev: snap.prev,
    result: snap.result,
    state: { name: snap.current, iteration: snap.iteration },
    loop: { name: def.name, started_at: snap.startedAt, elapsed_ms: elapsed, elapsed: formatDuration(elapsed) },
    ...(snap.dataContext?.length ? { dataContext: snap.dataContext } : {}),
  };
}

/** The config of a state the definition has (validated before the run). */
export function stateOf(d: Draft, name = d.snap.current): StateConfig {
  const state = d.def.states[name];
  if (!state) throw new Error(`internal: state "${name}" is not in the definition`);
  return state;
}

/** End the run: the result, the loop_complete event and the finish command. */
export function finish(d: Draft, terminatedBy: TerminatedBy, error?: string): void {
  const { snap } = d;
  const state = d.def.states[snap.current];
  const result: ExecutionResult = {
    loop: d.def.name,
    final_state: snap.current,
    iterations: snap.iteration,
    steps: snap.steps,
    terminated_by: terminatedBy,
    failure: terminatedBy === 'terminal' && state?.failure === true,
    duration_ms: d.now - snap.startedAtMs,
    captured: snap.captured,
  };
  if (error !== undefined) result.error = error;
  if (d.def.maintain) result.cycles = snap.cycles;
  snap.phase = 'done';
  snap.pending = null;
  snap.outcome = result;
  emit(d, 'loop_complete', {
    final_state: result.final_state,
    iterations: result.iterations,
    steps: result.steps,
    terminated_by: terminatedBy,
    duration_ms: result.duration_ms,
    ...(result.cycles === undefined ? {} : { cycles: result.cycles }),
    ...(error === undefined ? {} : { error }),
  });
  d.commands.push({ type: 'finish', result });
}

/** The message of an interpolation or other error. */
export function messageOf(err: unknown): string {
  if (err instanceof InterpolationError || err instanceof TemplateSyntaxError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** Captured and `prev` text drops trailing newlines, as bash's `$(…)` does. */
export function chomp(text: string): string {
  return text.replace(/[\r\n]+$/, '');
}

/** `prev` becomes the current state's outcome. */
export function setPrev(d: Draft, action: ActionResult | null): void {
  d.snap.prev = {
    state: d.snap.current,
    output: chomp(action?.output ?? ''),
    stderr: chomp(action?.stderr ?? ''),
    exit_code: action?.exit_code ?? 0,
  };
}
