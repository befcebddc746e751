/**
 * Stdout signals (little-loops' CONTEXT_HANDOFF:, FATAL_ERROR:, LOOP_STOP:): how the worker reads
 * them from an action's output, and what the core does with each, for each `on_handoff` mode.
 * A result without `stdout_signal` (an MCP tool's, whose output is not read for signals) is plain
 * output, whatever it prints.
 */
import { describe, expect, it } from 'vitest';
import { detectStdoutSignal } from '../../fsm/stdout-signals.js';
import { closing } from '../../fsm/run/outcome.js';
import type { ActionResult } from '../../fsm/types.js';
import type { Transition } from '../../fsm/run/snapshot.js';
import { begin, def, loop, next } from './helpers.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { refuseControl } from '../../fsm/run/control.js';

const problems = (raw: Record<string, unknown>) => validateLoop(raw).diagnostics;

describe('detectStdoutSignal', () => {
  const cases: Array<[string, string, ReturnType<typeof detectStdoutSignal>]> = [
    ['no marker', 'all good\n', undefined],
    [
      'a handoff on the last line',
      'working…\nCONTEXT_HANDOFF: finish the parser tests\n',
      { kind: 'handoff', payload: 'finish the parser tests' },
    ],
    [
      'a marker inside a line',
      '[agent] CONTEXT_HANDOFF:   resume at step 3  ',
      { kind: 'handoff', payload: 'resume at step 3' },
    ],
    ['a fatal error', 'FATAL_ERROR: database is gone', { kind: 'fatal_error', payload: 'database is gone' }],
    ['a stop with a reason', 'LOOP_STOP: nothing left to do', { kind: 'loop_stop', payload: 'nothing left to do' }],
    ['a stop without one', 'LOOP_STOP:', { kind: 'loop_stop', payload: '' }],
    ['a handoff without payload is no signal', 'CONTEXT_HANDOFF:\n', undefined],
    ['a fatal error without message is no signal', 'FATAL_ERROR:   ', undefined],
    [
      'handoff wins over error and stop',
      'LOOP_STOP: x\nFATAL_ERROR: y\nCONTEXT_HANDOFF: z',
      { kind: 'handoff', payload: 'z' },
    ],
    ['error wins over stop', 'LOOP_STOP: x\nFATAL_ERROR: y', { kind: 'fatal_error', payload: 'y' }],
    [
      'the first of one kind counts',
      'CONTEXT_HANDOFF: one\r\nCONTEXT_HANDOFF: two',
      { kind: 'handoff', payload: 'one' },
    ],
  ];
  it.each(cases)('%s', (_name, output, expected) => {
    expect(detectStdoutSignal(output)).toEqual(expected);
  });
});

const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);
const printed = (output: string, signal?: ActionResult['stdout_signal']): ActionResult => ({
  output,
  stderr: '',
  exit_code: 0,
  duration_ms: 5,
  ...(signal ? { stdout_signal: signal } : {}),
});
const signalOf = (output: string): ActionResult => printed(output, detectStdoutSignal(output));

/** work (a prompt) → check (shell) → done; check failing goes back to work. */
const agentLoop = (extra: Record<string, unknown> = {}) =>
  def(
    loop(
      {
        work: { action: 'do the work', action_type: 'prompt', next: 'check' },
        check: { action: 'make test', evaluate: { type: 'exit_code' }, on_yes: 'done', on_no: 'work' },
      },
      extra,
    ),
  );

function afterWork(
  extra: Record<string, unknown>,
  output: string,
  withSignal = true,
): { t: Transition; d: ReturnType<typeof agentLoop> } {
  const d = agentLoop(extra);
  const t0 = begin(d, T0);
  return {
    d,
    t: next(d, t0, { type: 'action_done', result: withSignal ? signalOf(output) : printed(output), now: T0 + 1000 }),
  };
}
const names = (t: Transition) => t.events.map((e) => e.event);

describe('a CONTEXT_HANDOFF: by on_handoff', () => {
  it('terminate: the run ends terminated_by handoff in the state that handed off, keeping the payload for resume', () => {
    const { t } = afterWork({ on_handoff: 'terminate' }, 'CONTEXT_HANDOFF: step 3 of 5');
    expect(t.effect).toMatchObject({
      type: 'finish',
      result: {
        terminated_by: 'handoff',
        final_state: 'work',
        error: 'state "work" handed off (CONTEXT_HANDOFF: step 3 of 5)',
      },
    });
    expect(names(t)).toEqual(['action_complete', 'handoff', 'loop_complete']);
    expect(t.events[1]).toMatchObject({ state: 'work', mode: 'terminate', payload: 'step 3 of 5' });
    expect(t.snapshot.continuation).toBe('step 3 of 5');
    // Neither failed nor cancelled from outside: the workflow completes.
    if (t.effect.type === 'finish') expect(closing(t.effect.result)).toEqual({ kind: 'complete' });
  });

  it('pause (the default): the run waits on a handoff, unevaluated; resuming runs the state again with the payload in its prompt', () => {
    const { d, t } = afterWork({}, 'CONTEXT_HANDOFF: step 3 of 5');
    expect(t.effect).toEqual({ type: 'await_handoff', state: 'work' });
    expect(t.snapshot).toMatchObject({
      status: 'running',
      phase: 'handoff',
      current: 'work',
      handoff: { state: 'work', payload: 'step 3 of 5', since_ms: T0 + 1000 },
    });
    expect(names(t)).toEqual(['action_complete', 'handoff']);
    if (t.snapshot.status !== 'running') throw new Error('expected a running run');
    const resumed = next(d, t, { type: 'handoff_resumed', now: T0 + 61_000 });
    expect(names(resumed)).toEqual(['handoff_resumed', 'state_enter', 'action_start']);
    expect(resumed.events[0]).toMatchObject({ state: 'work', waited_ms: 60_000 });
    expect(resumed.effect).toMatchObject({ type: 'run_action', input: { kind: 'prompt', state: 'work', step: 2 } });
    const parts = resumed.effect.type === 'run_action' ? (resumed.effect.input.prompt?.parts ?? []) : [];
    expect(parts.join('')).toMatch(/^do the work\n\nA previous agent session handed this task off[^]*:\nstep 3 of 5$/);
    expect(resumed.snapshot).toMatchObject({ continuations: 1 });
    expect(resumed.snapshot.handoff).toBeUndefined();
    expect(resumed.snapshot.continuation).toBeUndefined();
  });

  it('pause: an unpause is refused with the command that continues a handoff (resume), not pause', () => {
    const { d, t } = afterWork({}, 'CONTEXT_HANDOFF: step 3 of 5');
    const why = refuseControl(d, t.snapshot, { type: 'unpause', by: 'ann@box', now: T0 + 2000 });
    expect(why).toBe(
      'the run is not paused by ll-loop pause: it waits on a handoff in state "work", which ll-loop resume continues',
    );
  });

  it('spawn: the same state runs again at once in a fresh session carrying the payload; the run state is intact', () => {
    const { t } = afterWork({ on_handoff: 'spawn', context: { x: 1 } }, 'CONTEXT_HANDOFF: step 3 of 5');
    expect(names(t)).toEqual(['action_complete', 'handoff', 'state_enter', 'action_start']);
    expect(t.events[1]).toMatchObject({ mode: 'spawn', continuation: 1 });
    expect(t.effect).toMatchObject({ type: 'run_action', input: { state: 'work', step: 2 } });
    const parts = t.effect.type === 'run_action' ? (t.effect.input.prompt?.parts ?? []) : [];
    expect(parts.at(-1)).toContain('step 3 of 5');
    expect(t.snapshot).toMatchObject({ continuations: 1, current: 'work' });
  });

  it('spawn into a shell action: the payload is in $LL_CONTINUATION', () => {
    const d = def(loop({ wrap: { action: 'claude -p "go"', next: 'done' } }, { on_handoff: 'spawn' }));
    const t = next(d, begin(d, T0), { type: 'action_done', result: signalOf('CONTEXT_HANDOFF: half done'), now: T0 });
    expect(t.effect).toMatchObject({
      type: 'run_action',
      input: { kind: 'shell', shell: { vars: { LL_CONTINUATION: 'half done' } } },
    });
  });

  it('config.automation.max_continuations caps the continued handoffs: past it the run ends as under terminate', () => {
    const d = agentLoop({ on_handoff: 'spawn', config: { automation: { max_continuations: 1 } } });
    const once = next(d, begin(d, T0), { type: 'action_done', result: signalOf('CONTEXT_HANDOFF: a'), now: T0 });
    expect(once.effect.type).toBe('run_action');
    if (once.snapshot.status !== 'running') throw new Error('expected a running run');
    const twice = next(d, once, { type: 'action_done', result: signalOf('CONTEXT_HANDOFF: b'), now: T0 });
    expect(twice.effect).toMatchObject({
      type: 'finish',
      result: {
        terminated_by: 'handoff',
        error: expect.stringContaining('config.automation.max_continuations (1) reached'),
      },
    });
    expect(twice.events.find((e) => e.event === 'handoff')).toMatchObject({ mode: 'terminate', max_continuations: 1 });
  });

  it('continuation.max_continuations is the alias', () => {
    const d = agentLoop({ on_handoff: 'spawn', config: { continuation: { max_continuations: 0 + 1 } } });
    const once = next(d, begin(d, T0), { type: 'action_done', result: signalOf('CONTEXT_HANDOFF: a'), now: T0 });
    if (once.snapshot.status !== 'running') throw new Error('expected a running run');
    expect(
      next(d, once, { type: 'action_done', result: signalOf('CONTEXT_HANDOFF: b'), now: T0 }).effect,
    ).toMatchObject({ type: 'finish', result: { terminated_by: 'handoff' } });
  });
});

describe('FATAL_ERROR: and LOOP_STOP:', () => {
  it('FATAL_ERROR: ends the run as an error with the message, without evaluating or routing', () => {
    const { t } = afterWork({}, 'FATAL_ERROR: the repository is read-only');
    expect(t.effect).toMatchObject({
      type: 'finish',
      result: {
        terminated_by: 'error',
        final_state: 'work',
        error: 'state "work": FATAL_ERROR: the repository is read-only',
      },
    });
    expect(names(t)).toEqual(['action_complete', 'fatal_error', 'loop_complete']);
  });

  it('LOOP_STOP: the state evaluates and routes, then the run ends stopped in the routed-to state (resume continues there)', () => {
    const { t } = afterWork({}, 'LOOP_STOP: nothing left');
    expect(names(t)).toEqual(['action_complete', 'loop_stop', 'route', 'loop_complete']);
    expect(t.events[2]).toMatchObject({ from: 'work', to: 'check' });
    expect(t.effect).toMatchObject({
      type: 'finish',
      result: {
        terminated_by: 'cancelled',
        final_state: 'check',
        stopped_by: 'loop_stop',
        error: 'LOOP_STOP: nothing left',
      },
    });
    if (t.effect.type === 'finish') expect(closing(t.effect.result)).toEqual({ kind: 'complete' });
  });

  it('LOOP_STOP: waits for an LLM evaluation to route', () => {
    const d = def(
      loop({
        judge: {
          action: 'echo LOOP_STOP: enough',
          evaluate: { type: 'llm_structured', prompt: 'ok?' },
          on_yes: 'done',
          on_no: 'judge',
        },
      }),
    );
    const t1 = next(d, begin(d, T0), { type: 'action_done', result: signalOf('LOOP_STOP: enough'), now: T0 });
    expect(t1.effect.type).toBe('evaluate_llm');
    if (t1.snapshot.status !== 'running') throw new Error('expected a running run');
    const t2 = next(d, t1, {
      type: 'llm_replied',
      judgement: { verdict: 'no', confidence: 1, reason: '', raw: {} },
      now: T0,
    });
    expect(t2.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'cancelled', final_state: 'judge' } });
  });
});

describe('a result the worker did not read for signals', () => {
  it.each(['CONTEXT_HANDOFF: x', 'FATAL_ERROR: y', 'LOOP_STOP: z'])(
    'treats %s as plain output (its results carry no stdout_signal)',
    (line) => {
      const { t } = afterWork({ on_handoff: 'terminate' }, line, false);
      expect(names(t)).toEqual(['action_complete', 'route', 'state_enter', 'action_start']);
      expect(t.effect).toMatchObject({ type: 'run_action', input: { state: 'check' } });
    },
  );
});

describe('validation of on_handoff and config', () => {
  const base = loop({ a: { action: 'echo', next: 'done' } });
  it.each([
    [
      { on_handoff: 'resume' },
      'on_handoff',
      /expected one of "pause"\|"spawn"\|"terminate"/,
      /use pause .*, spawn .* or terminate/,
    ],
    [{ config: { handoff_threshold: 101 } }, 'config.handoff_threshold', /<=100/, /from 1 to 100/],
    [{ config: { automation: { max_continuations: 0 } } }, 'config.automation.max_continuations', />0/, /at least 1/],
    [
      { config: { continuation: { max_continuations: 1.5 } } },
      'config.continuation.max_continuations',
      /integer|int/i,
      /at least 1/,
    ],
  ])('%j is an error with a fix', (extra, path, message, fix) => {
    const found = problems({ ...base, ...extra }).filter((p) => p.severity === 'error');
    expect(found).toHaveLength(1);
    expect(found[0]!.path.join('.')).toBe(path);
    expect(found[0]!.message).toMatch(message);
    expect(found[0]!.fix).toMatch(fix);
  });
  it('accepts the documented keys and passes other config keys through', () => {
    const ok = {
      ...base,
      on_handoff: 'spawn',
      config: {
        handoff_threshold: 70,
        automation: { max_continuations: 3 },
        commands: { confidence_gate: { readiness_threshold: 80 } },
      },
    };
    expect(problems(ok).filter((p) => p.severity === 'error')).toEqual([]);
  });
});
