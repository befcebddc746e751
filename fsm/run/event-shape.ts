/**
 * The event union at run time: {@link EVENT_FIELDS} lists every event of fsm/run/events.ts with
 * each field, its JSON kind and whether it may be absent (the compiler holds the table equal to
 * the union), and the checks of an event read from a file or a history against it.
 */
import type { EventFields, EventName, KnownTimedEvent, ReadEvent, TimedEvent } from './events.js';

type Kind<V> = [V] extends [string]
  ? 'string'
  : [V] extends [number]
    ? 'number'
    : [V] extends [boolean]
      ? 'boolean'
      : [V] extends [string[]]
        ? 'string[]'
        : 'object';
type Spec<F> = { [K in keyof F]-?: object extends Pick<F, K> ? `${Kind<Exclude<F[K], undefined>>}?` : Kind<F[K]> };
/** Each event's fields and their JSON kinds (`?`: may be absent), checked against the union by the compiler. */
type EventSpecs = { [E in EventName]: Spec<EventFields<E>> };
type FieldKind = 'string' | 'number' | 'boolean' | 'string[]' | 'object';

/**
 * The runtime list of the union: every event, every field, its kind and whether it may be absent.
 * The compiler rejects a missing or extra event or field, or a wrong kind, so the two cannot drift.
 */
export const EVENT_FIELDS = {
  loop_start: { loop: 'string', initial: 'string', max_iterations: 'number' },
  loop_resume: { loop: 'string', from_run: 'string', state: 'string', iteration: 'number' },
  loop_upgraded: {
    loop: 'string',
    from_semantics: 'number',
    to_semantics: 'number',
    from_build: 'string?',
    state: 'string',
    iteration: 'number',
    reason: 'string',
  },
  state_enter: { state: 'string', iteration: 'number' },
  action_start: { state: 'string', action: 'string', action_type: 'string', attempt: 'number?' },
  subloop_start: { state: 'string', loop: 'string', passthrough: 'boolean' },
  action_complete: {
    state: 'string',
    exit_code: 'number',
    duration_ms: 'number',
    timed_out: 'boolean?',
    timeout_kind: 'string?',
    signal: 'string?',
    log_file: 'string?',
    rate_limited: 'boolean?',
  },
  action_retry: {
    state: 'string',
    attempt: 'number',
    attempts: 'number',
    delay_ms: 'number',
    exit_code: 'number?',
    verdict: 'string?',
    error: 'string?',
  },
  action_error: { state: 'string', error: 'string' },
  tamper_guard: {
    state: 'string',
    policy: 'string',
    findings: 'string[]',
    reverted: 'string[]?',
    error: 'string?',
  },
  prepatch_check: { state: 'string', policy: 'string', outcome: 'string', message: 'string' },
  output_reask: { state: 'string', ask: 'number', asks: 'number', errors: 'string[]' },
  llm_reask: { state: 'string', ask: 'number', asks: 'number', errors: 'string[]' },
  evaluate: {
    state: 'string',
    type: 'string',
    verdict: 'string',
    confidence: 'number?',
    details: 'object?',
    error: 'string?',
  },
  rate_limited: {
    state: 'string',
    source: 'string',
    kind: 'string',
    message: 'string',
    resumes_at: 'string',
    wait_ms: 'number',
    pause: 'number',
  },
  rate_limit_resume: { state: 'string', source: 'string', pause: 'number' },
  handoff: {
    state: 'string',
    mode: 'string',
    payload: 'string',
    max_continuations: 'number?',
    continuation: 'number?',
  },
  handoff_resumed: { state: 'string', waited_ms: 'number' },
  human_wait: { state: 'string', prompt: 'string', ask: 'string', options: 'string[]?', deadline: 'string?' },
  human_answer: { state: 'string', verdict: 'string', by: 'string', latency_ms: 'number' },
  human_timeout: { state: 'string', waited_ms: 'number' },
  fatal_error: { state: 'string', message: 'string' },
  loop_stop: { state: 'string', message: 'string' },
  budget_spent: {
    state: 'string',
    scope: 'string',
    limit: 'string',
    spent: 'number',
    max: 'number',
    needed: 'number?',
  },
  subloop_complete: {
    state: 'string',
    loop: 'string',
    final_state: 'string',
    terminated_by: 'string',
    verdict: 'string',
    duration_ms: 'number',
    error: 'string?',
  },
  route: { from: 'string', to: 'string', verdict: 'string?' },
  maintain_restart: { state: 'string', cycle: 'number', to: 'string' },
  loop_complete: {
    final_state: 'string',
    iterations: 'number',
    steps: 'number',
    terminated_by: 'string',
    failure: 'boolean?',
    duration_ms: 'number',
    cycles: 'number?',
    error: 'string?',
    spent: 'object?',
  },
  host_change: { state: 'string', from_host: 'string?', to_host: 'string', dir: 'string', reason: 'string' },
  paused: { state: 'string', by: 'string' },
  unpaused: { state: 'string', by: 'string', paused_ms: 'number' },
  steered: {
    from: 'string',
    to: 'string',
    replaced: 'string',
    by: 'string',
    note: 'string?',
    context: 'string[]?',
  },
  loop_fork: { loop: 'string', forked_from: 'string', state: 'string', iteration: 'number', context: 'string[]?' },
  fanout_start: { state: 'string', count: 'number', max_workers: 'number', fail_mode: 'string', loop: 'string?' },
  item_done: { state: 'string', index: 'number', outcome: 'string', run_id: 'string?', error: 'string?' },
  fanout_join: { state: 'string', count: 'number', succeeded: 'number', failed: 'number', verdict: 'string' },
} as const satisfies EventSpecs;

function hasKind(value: unknown, kind: FieldKind): boolean {
  if (kind === 'string[]') return Array.isArray(value) && value.every((v) => typeof v === 'string');
  if (kind === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === kind;
}

function fieldsFit(event: TimedEvent, complete: boolean): boolean {
  if (!Object.prototype.hasOwnProperty.call(EVENT_FIELDS, event.event)) return false;
  const spec: Record<string, string> = EVENT_FIELDS[event.event as EventName];
  const fields = event as Record<string, unknown>;
  for (const [name, declared] of Object.entries(spec)) {
    const value = fields[name];
    if (
      value === undefined
        ? complete && !declared.endsWith('?')
        : !hasKind(value, declared.replace('?', '') as FieldKind)
    )
      return false;
  }
  return true;
}

/**
 * Whether a reader knows `event`: one of today's names, each field it has of today's kind (extra
 * fields allowed, missing ones too). Any other event is shown as it is, never read by name.
 */
export function isKnownEvent(event: TimedEvent): event is ReadEvent {
  return fieldsFit(event, false);
}

/** Whether `event` has exactly today's shape: known, and every field it must have present. */
export function isCompleteEvent(event: TimedEvent): event is KnownTimedEvent {
  return fieldsFit(event, true);
}

/**
 * One parsed line of an events file (or any event JSON): the event, or undefined when it is not
 * an event at all (no `event` name). Known or not is told by {@link isKnownEvent}.
 */
export function parseEvent(json: unknown): TimedEvent | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const fields = json as Record<string, unknown>;
  return typeof fields.event === 'string' ? (fields as TimedEvent) : undefined;
}
