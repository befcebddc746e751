/**
 * little-loops' fields (fsm/original-fields.ts, fsm/definition/original-fields.ts): each loads,
 * the spellings fold into ours, the original's constraints hold, and the fields that mean nothing
 * here get one note each. Loops written here, never the original's files.
 */
import { describe, expect, it } from 'vitest';
import { validateLoop } from '../../fsm/definition/validate.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';

const base = (states: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: 'x',
  description: 'd',
  initial: 'a',
  ...extra,
  states: { a: { action: 'make', on_yes: 'done', on_no: 'a' }, done: { terminal: true }, ...states },
});

const bySeverity = (raw: unknown, severity: string) =>
  validateLoop(raw).diagnostics.filter((d) => d.severity === severity);

describe('loop fields of the original load', () => {
  it.each([
    ['input_key', 'issue_id'],
    ['required_inputs', ['input', 'issue_id']],
    ['visibility', 'internal'],
    ['on_max_steps', 'done'],
    ['on_max_iterations', 'done'],
    ['max_edge_revisits', 5],
    ['artifact_versioning', true],
    ['flow', 'a -> done'],
    ['targets', [{ file: 'x.yaml', states: [] }]],
    ['circuit', { repeated_failure: { window: 3 } }],
    ['host_guard', { enabled: false }],
    ['pruning_profile', { enabled: true, name: 'p' }],
    ['tamper_guard', 'revert'],
    ['session_mode', 'fresh'],
    ['meta_self_eval_ok', true],
    ['shared_state_ok', true],
    ['partial_route_ok', true],
    ['artifact_versioning_ok', true],
    ['capture_reachability_ok', true],
  ])('%s', (key, value) => {
    const result = validateLoop(base({}, { [key]: value }));
    expect(bySeverity(base({}, { [key]: value }), 'error')).toEqual([]);
    expect(result.definition).toMatchObject({ [key]: value });
  });
});

describe('state fields of the original load', () => {
  it.each([
    [{ max_retries: 2, on_retry_exhausted: 'done' }],
    [{ max_retries: 2, on_retry_exhausted: 'done', retryable_exit_codes: [1, 137], on_error: 'done' }],
    [{ max_rate_limit_retries: 3, on_rate_limit_exhausted: 'done', rate_limit_backoff_base_seconds: 30 }],
    [{ rate_limit_max_wait_seconds: 600, rate_limit_long_wait_ladder: [300, 900] }],
    [{ parameters: { issue_id: { type: 'string', required: true } } }],
    [{ pruning_profile: { enabled: true, name: 'wire-issue-auto', suppress_claude_md: true } }],
    [{ pruning_profile: 'decide-issue-auto' }],
    [{ worktree: true }],
    [{ type: 'learning', learning: { targets: ['Some SDK'], max_retries: 2 } }],
    [{ session_mode: 'fresh', idle_timeout: 300, tamper_guard: 'fail', prepatch_check: 'warn', cannot_judge: true }],
    [{ throttle: { normal_max: 3, warn_max: 8, hard_max: 12 }, append_to_messages: 'x' }],
  ])('%j', (fields) => {
    const raw = base({ b: { action: 'make', next: 'done', ...fields } }, {});
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    expect(bySeverity(raw, 'error')).toEqual([]);
  });
});

describe('spellings folded into ours', () => {
  it('with_ is with', () => {
    const raw = base({ b: { loop: 'child', with_: { x: 1 }, on_yes: 'done', on_no: 'done' } });
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    const state = validateLoop(raw).definition!.states.b!;
    expect(state.with).toEqual({ x: 1 });
    expect('with_' in state).toBe(false);
  });

  it('with_ and with together are an error', () => {
    const raw = base({ b: { loop: 'child', with: { x: 1 }, with_: { x: 2 }, on_yes: 'done', on_no: 'done' } });
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    expect(bySeverity(raw, 'error').map((d) => d.message)).toEqual(['both with: and with_: are set']);
  });

  it('model is llm.model', () => {
    const raw = base({ b: { action: 'do it', action_type: 'prompt', model: 'haiku', next: 'done' } });
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    const state = validateLoop(raw).definition!.states.b!;
    expect(state.llm).toEqual({ model: 'haiku' });
    expect('model' in state).toBe(false);
  });
});

describe("the original's constraints", () => {
  it.each([
    [{ max_retries: 2 }, /max_retries requires on_retry_exhausted/],
    [{ retryable_exit_codes: [1] }, /retryable_exit_codes requires on_error/],
    [{ max_rate_limit_retries: 2 }, /max_rate_limit_retries requires on_rate_limit_exhausted/],
  ])('%j', (fields, message) => {
    const raw = base({ a: { action: 'make', on_yes: 'done', on_no: 'a', ...fields } });
    const found = bySeverity(raw, 'error');
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(message);
    expect(found[0]!.state).toBe('a');
  });

  it.each([
    [{ visibility: 'hidden' }, ['visibility']],
    [{ input_key: 'not a key' }, ['input_key']],
    [{ required_inputs: 'input' }, ['required_inputs']],
  ])('a wrong value is refused: %j', (extra, path) => {
    const found = bySeverity(base({}, extra), 'error');
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toEqual(path);
  });

  it('a guard word outside its set loads with a warning, as in the original', () => {
    const raw = base({ a: { action: 'make', on_yes: 'done', on_no: 'a', tamper_guard: 'maybe' } });
    expect(bySeverity(raw, 'error')).toEqual([]);
    expect(bySeverity(raw, 'warning').map((d) => d.message)).toContain(
      'tamper_guard: "maybe" is not one of revert, fail, warn, allow; no guard applies',
    );
  });

  it('a wrong state value points at it', () => {
    const found = bySeverity(
      base({ a: { action: 'make', on_yes: 'done', on_no: 'a', retryable_exit_codes: ['1'], on_error: 'done' } }),
      'error',
    );
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toEqual(['states', 'a', 'retryable_exit_codes', 0]);
  });

  it('an unknown field still gets a did-you-mean', () => {
    const found = bySeverity(base({}, { input_kye: 'x' }), 'error');
    expect(found[0]!.message).toMatch(/unknown top-level field "input_kye" \(did you mean "input_key"\?\)/);
  });
});

describe('notes for fields that mean nothing here', () => {
  it('one note each, naming the field, and the loop stays valid', () => {
    const raw = base(
      { b: { action: 'make', next: 'done', worktree: true, session_mode: 'fresh' } },
      { flow: 'x', max_edge_revisits: 3, meta_self_eval_ok: true, shared_state_ok: true },
    );
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    const result = validateLoop(raw);
    expect(result.definition).toBeDefined();
    const notes = bySeverity(raw, 'note').map(formatDiagnostic);
    expect(notes).toHaveLength(4);
    expect(notes.join('\n')).toMatch(/note: flow: accepted/);
    expect(notes.join('\n')).toMatch(/note: meta_self_eval_ok, shared_state_ok: accepted/);
    expect(notes.join('\n')).toMatch(/note: state "b": worktree: accepted/);
    // session_mode means what the original means (fsm/run/agent-session.ts): not noted.
    expect(notes.join('\n')).not.toMatch(/session_mode/);
  });

  it('a field on several states is noted once, naming them', () => {
    const raw = base({
      b: { action: 'make', next: 'c', pruning_profile: 'p' },
      c: { action: 'make', next: 'done', pruning_profile: 'p' },
    });
    (raw.states.a as Record<string, unknown>).on_no = 'b';
    const notes = bySeverity(raw, 'note').map((d) => d.message);
    expect(notes).toEqual([expect.stringMatching(/^pruning_profile \(states b, c\): accepted/)]);
  });

  it('score_stall without source: says where it reads the history', () => {
    const raw = base({ a: { action: 'make', evaluate: { type: 'score_stall' }, on_yes: 'a', on_no: 'done' } });
    expect(bySeverity(raw, 'note').map((d) => d.message)).toEqual([
      expect.stringMatching(/judges \$\{context.run_dir\}\/.score_history when the run's context has run_dir/),
    ]);
  });

  it('a loop without them has no notes', () => {
    expect(bySeverity(base(), 'note')).toEqual([]);
  });
});
