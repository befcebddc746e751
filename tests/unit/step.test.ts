import { describe, expect, it } from 'vitest';
import { transition } from '../../fsm/run/transition.js';
import { begin, def, drive, eventsNamed, loop, next, scriptOf } from './helpers.js';

/** check → (no) fix → check …; check passes on the n-th attempt. */
const checkFix = (extra: Record<string, unknown> = {}) =>
  def(
    loop(
      {
        check: { action: 'make lint', on_yes: 'done', on_no: 'fix' },
        fix: { action: 'make fix', next: 'check' },
      },
      extra,
    ),
  );

describe('passes and limits', () => {
  it('check → fix → check → done is two passes', () => {
    const run = drive(checkFix(), { actions: { check: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.entered).toEqual(['check', 'fix', 'check', 'done']);
    expect(eventsNamed(run, 'state_enter').map((e) => e.iteration)).toEqual([1, 1, 2, 2]);
    expect(run.result).toMatchObject({
      terminated_by: 'terminal',
      final_state: 'done',
      iterations: 2,
      steps: 4,
      failure: false,
    });
  });

  it.each([
    ['a → b → c → done', { a: { next: 'b' }, b: { next: 'c' }, c: { next: 'done' } }, ['a', 'b', 'c', 'done'], 1],
    [
      'a → b → a → done (a repeats)',
      { a: { action: 'x', on_yes: 'done', on_no: 'b' }, b: { next: 'a' } },
      ['a', 'b', 'a', 'done'],
      2,
    ],
    [
      'a → b → c → b → done (a non-initial state repeats)',
      { a: { next: 'b' }, b: { action: 'x', on_no: 'c', on_yes: 'done' }, c: { next: 'b' } },
      ['a', 'b', 'c', 'b', 'done'],
      2,
    ],
  ])('%s', (_label, states, entered, iterations) => {
    const run = drive(def(loop(states)), {
      actions: { a: [{ exit_code: 1 }, { exit_code: 0 }], b: [{ exit_code: 1 }, { exit_code: 0 }] },
    });
    expect(run.entered).toEqual(entered);
    expect(run.result.iterations).toBe(iterations);
    expect(run.result.terminated_by).toBe('terminal');
  });

  it('a $current retry starts a new pass', () => {
    const d = def(loop({ check: { action: 'pytest', route: { yes: 'done', no: '$current' } } }));
    const run = drive(d, { actions: { check: [{ exit_code: 1 }, { exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.entered).toEqual(['check', 'check', 'check', 'done']);
    expect(eventsNamed(run, 'state_enter').map((e) => e.iteration)).toEqual([1, 2, 3, 3]);
    expect(run.result.iterations).toBe(3);
  });

  it('max_iterations ends the run before the state of the extra pass runs', () => {
    const run = drive(checkFix({ max_iterations: 3 }), { actions: { check: [{ exit_code: 1 }] } });
    expect(run.entered).toEqual(['check', 'fix', 'check', 'fix', 'check', 'fix']);
    expect(run.result).toMatchObject({
      terminated_by: 'max_iterations',
      iterations: 3,
      final_state: 'check',
      steps: 6,
      failure: false,
    });
    expect(run.actions).toHaveLength(6);
    expect(run.events.at(-1)).toMatchObject({
      event: 'loop_complete',
      terminated_by: 'max_iterations',
      iterations: 3,
      final_state: 'check',
    });
  });

  it.each([1, 2, 5])('max_steps: %i caps state executions', (maxSteps) => {
    const run = drive(checkFix({ max_steps: maxSteps }), { actions: { check: [{ exit_code: 1 }] } });
    expect(run.result.terminated_by).toBe('max_steps');
    expect(run.result.steps).toBe(maxSteps);
    expect(run.entered).toHaveLength(maxSteps);
    expect(run.result.final_state).toBe(maxSteps % 2 === 0 ? 'check' : 'fix');
  });

  it('${state.iteration} and ${state.name} in an action are the pass number and the state', () => {
    const d = def(
      loop({
        check: { action: 'echo ${state.name} ${state.iteration}', on_yes: 'done', on_no: 'fix' },
        fix: { action: 'echo ${state.name} ${state.iteration}', next: 'check' },
      }),
    );
    const run = drive(d, { actions: { check: [{ exit_code: 1 }, { exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.actions.map((a) => a.shell?.script)).toEqual([
      'echo check 1',
      'echo fix 1',
      'echo check 2',
      'echo fix 2',
      'echo check 3',
    ]);
  });

  it('${loop.name} and ${loop.elapsed_ms} use the definition and the event clock', () => {
    const d = def(
      loop({
        a: { action: 'true', next: 'b' },
        b: { action: 'echo ${loop.name} ${loop.elapsed_ms} ${loop.started_at}', next: 'done' },
      }),
    );
    const run = drive(d, { startAt: 0 });
    expect(scriptOf(run, 1)).toBe('echo test-loop 10 1970-01-01T00:00:00.000Z');
  });

  it('a run that finishes at once is a done snapshot with the finish effect (no further transition is typed)', () => {
    const d = def(loop({ a: { next: 'done' } }));
    const out = begin(d);
    expect(out.snapshot).toMatchObject({ status: 'done', phase: 'done', outcome: { terminated_by: 'terminal' } });
    expect(out.effect).toEqual({
      type: 'finish',
      result: out.snapshot.status === 'done' ? out.snapshot.outcome : null,
    });
  });

  it('transition does not mutate the snapshot it is given', () => {
    const d = checkFix();
    const first = begin(d);
    const copy = structuredClone(first.snapshot);
    next(d, first, { type: 'action_done', result: { output: '', stderr: '', exit_code: 1, duration_ms: 1 }, now: 5 });
    expect(first.snapshot).toEqual(copy);
  });

  it('numbers its events and times them with the clock it is given', () => {
    const d = checkFix();
    const first = begin(d, 1_000);
    const second = next(d, first, {
      type: 'action_done',
      result: { output: '', stderr: '', exit_code: 1, duration_ms: 1 },
      now: 2_500,
    });
    const stream = [...first.events, ...second.events];
    expect(stream.map((e) => e.seq)).toEqual(stream.map((_, i) => i + 1));
    expect(first.events.every((e) => e.ts === new Date(1_000).toISOString())).toBe(true);
    expect(second.events.every((e) => e.ts === new Date(2_500).toISOString())).toBe(true);
    expect(second.snapshot.seq).toBe(stream.length);
  });
});

describe('terminal states', () => {
  it("runs the terminal state's action, does not evaluate it, and ends terminal", () => {
    const d = def({
      name: 'l',
      description: 'd',
      initial: 'a',
      states: { a: { next: 'end' }, end: { terminal: true, action: 'echo bye', capture: 'bye' } },
    });
    const run = drive(d, { actions: { end: [{ exit_code: 3, output: 'bye' }] } });
    expect(run.actions.map((a) => a.state)).toEqual(['end']);
    expect(scriptOf(run)).toBe('echo bye');
    expect(run.names).toEqual([
      'loop_start',
      'state_enter',
      'route',
      'state_enter',
      'action_start',
      'action_complete',
      'loop_complete',
    ]);
    expect(eventsNamed(run, 'evaluate')).toEqual([]);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'end', failure: false });
    expect(run.result.captured.bye).toEqual({ output: 'bye', stderr: '', exit_code: 3, duration_ms: 5 });
  });

  it.each([
    [true, true],
    [false, false],
  ])('failure: %s → result.failure %s', (failure, expected) => {
    const d = def({
      name: 'l',
      description: 'd',
      initial: 'a',
      states: {
        a: { action: 'x', on_yes: 'ok', on_no: 'bad' },
        ok: { terminal: true },
        bad: { terminal: true, failure },
      },
    });
    const run = drive(d, { actions: { a: [{ exit_code: 1 }] } });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'bad', failure: expected });
  });

  it('a failure terminal never reached does not mark other endings as failures', () => {
    const d = def({
      name: 'l',
      description: 'd',
      initial: 'a',
      max_iterations: 1,
      states: { a: { action: 'x', on_yes: 'ok', on_no: 'a' }, ok: { terminal: true, failure: true } },
    });
    expect(drive(d, { actions: { a: [{ exit_code: 1 }] } }).result).toMatchObject({
      terminated_by: 'max_iterations',
      failure: false,
    });
  });
});

describe('event stream', () => {
  it('emits the exact events of a small run', () => {
    const run = drive(checkFix(), { actions: { check: [{ exit_code: 1 }, { exit_code: 0 }] } });
    const check = (iteration: number, exit_code: number, verdict: string, to: string) => [
      { event: 'state_enter', state: 'check', iteration },
      { event: 'action_start', state: 'check', action: 'make lint', action_type: 'shell' },
      { event: 'action_complete', state: 'check', exit_code, duration_ms: 5 },
      { event: 'evaluate', state: 'check', type: 'exit_code', verdict, details: { exit_code } },
      { event: 'route', from: 'check', to, verdict },
    ];
    expect(run.events).toEqual([
      { event: 'loop_start', loop: 'test-loop', initial: 'check', max_iterations: 50 },
      ...check(1, 1, 'no', 'fix'),
      { event: 'state_enter', state: 'fix', iteration: 1 },
      { event: 'action_start', state: 'fix', action: 'make fix', action_type: 'shell' },
      { event: 'action_complete', state: 'fix', exit_code: 0, duration_ms: 5 },
      { event: 'route', from: 'fix', to: 'check' },
      ...check(2, 0, 'yes', 'done'),
      { event: 'state_enter', state: 'done', iteration: 2 },
      {
        event: 'loop_complete',
        final_state: 'done',
        iterations: 2,
        steps: 4,
        terminated_by: 'terminal',
        duration_ms: 30,
      },
    ]);
    expect(run.commands.map((c) => c.type)).toEqual(['run_action', 'run_action', 'run_action', 'finish']);
  });

  it('carries the seed fields on every event kind', () => {
    const d = def(
      loop({
        check: { action: 'mypy src/', on_yes: 'done', on_no: 'fix' },
        fix: { action: '/ll:manage-issue bug fix', on_yes: 'check' },
      }),
    );
    const run = drive(d, {
      actions: { check: [{ exit_code: 1, duration_ms: 2340 }, { exit_code: 0 }] },
      llm: { fix: ['yes'] },
    });
    const seed = [
      { event: 'loop_start', loop: 'test-loop' },
      { event: 'state_enter', state: 'check', iteration: 1 },
      { event: 'action_start', action: 'mypy src/' },
      { event: 'action_complete', exit_code: 1, duration_ms: 2340 },
      { event: 'evaluate', type: 'exit_code', verdict: 'no' },
      { event: 'route', from: 'check', to: 'fix', verdict: 'no' },
      { event: 'state_enter', state: 'fix', iteration: 1 },
      { event: 'action_start', action: '/ll:manage-issue bug fix' },
      { event: 'action_complete' },
      { event: 'evaluate', type: 'llm_structured', verdict: 'yes', confidence: 0.9 },
      { event: 'route', from: 'fix', to: 'check', verdict: 'yes' },
    ];
    seed.forEach((expected, i) => expect(run.events[i]).toMatchObject(expected));
    expect(run.events.at(-1)).toMatchObject({
      event: 'loop_complete',
      final_state: 'done',
      iterations: 2,
      terminated_by: 'terminal',
    });
  });

  it('reports timed_out, signal and log_file on action_complete', () => {
    const d = def(loop({ a: { action: 'x', next: 'done' } }));
    const run = drive(d, {
      actions: { a: [{ exit_code: 137, signal: 'SIGKILL', timed_out: true, log_file: '/tmp/a.log' }] },
    });
    expect(eventsNamed(run, 'action_complete')[0]).toEqual({
      event: 'action_complete',
      state: 'a',
      exit_code: 137,
      duration_ms: 5,
      timed_out: true,
      signal: 'SIGKILL',
      log_file: '/tmp/a.log',
    });
  });
});

describe('captured, prev and result', () => {
  it('capture stores output, stderr, exit_code and duration_ms, and the result returns them', () => {
    const d = def(loop({ lint: { action: 'ruff', capture: 'errors', next: 'done' } }));
    const run = drive(d, {
      actions: {
        lint: [{ output: 'E1', stderr: 'warn', exit_code: 1, duration_ms: 42, log_file: '/x', truncated: true }],
      },
    });
    expect(run.result.captured).toEqual({ errors: { output: 'E1', stderr: 'warn', exit_code: 1, duration_ms: 42 } });
    expect(run.final.captured).toEqual(run.result.captured);
  });

  it('a later run of the capturing state overwrites the value', () => {
    const d = def(loop({ check: { action: 'count', capture: 'n', on_yes: 'done', on_no: 'check' } }));
    const run = drive(d, {
      actions: {
        check: [
          { output: '3', exit_code: 1 },
          { output: '0', exit_code: 0 },
        ],
      },
    });
    expect(run.result.captured.n).toMatchObject({ output: '0', exit_code: 0 });
  });

  it('a next: state after an llm-evaluated state sees ${result.*} of that evaluation', () => {
    const d = def(
      loop({
        fix: { action: '/ll:manage-issue bug fix', route: { yes: 'log', _: 'fix' } },
        log: {
          action: "echo 'Fixed (${result.verdict}, ${result.details.confidence}): ${result.details.reason}' >> fix.log",
          next: 'done',
        },
      }),
    );
    const run = drive(d, {
      llm: { fix: [{ verdict: 'yes', details: { confidence: 0.92, reason: "it's fixed; rm -rf /" } }] },
    });
    expect(run.actions[1]?.shell).toEqual({
      script: `echo 'Fixed ('"\${LL_V1}"', '"\${LL_V2}"'): '"\${LL_V3}"'' >> fix.log`,
      vars: { LL_V1: 'yes', LL_V2: '0.92', LL_V3: "it's fixed; rm -rf /" },
      env: {},
    });
  });

  it.each([
    ['the previous state had an action', { a: { action: 'make', next: 'b' } }, 0, ['a', 'built', '0']],
    ['the previous state had none', { a: { action: 'make', next: 'z' }, z: { next: 'b' } }, 0, ['z', '', '0']],
    ['the previous state failed', { a: { action: 'make', on_no: 'b', on_yes: 'done' } }, 1, ['a', 'built', '1']],
  ])('${prev.*} names the previously executed state when %s', (_label, states, exit_code, values) => {
    const b = { action: 'echo ${prev.state} ${prev.output} ${prev.exit_code}', next: 'done' };
    const run = drive(def(loop({ ...states, b })), { actions: { a: [{ output: 'built', exit_code }] } });
    const shell = run.actions.find((a) => a.state === 'b')?.shell;
    expect(shell?.script).toBe('echo ${LL_V1} ${LL_V2} ${LL_V3}');
    expect(shell?.vars).toEqual({ LL_V1: values[0], LL_V2: values[1], LL_V3: values[2] });
  });

  it('${prev.output} in the first state is an undefined-variable error', () => {
    const run = drive(def(loop({ a: { action: 'echo ${prev.output}', next: 'done' } })));
    expect(run.result.terminated_by).toBe('error');
    expect(run.result.error).toContain('${prev.output}');
  });
});

describe('backoff', () => {
  it('sleeps backoff seconds before each new pass, never on the first', () => {
    const run = drive(checkFix({ backoff: 2 }), {
      actions: { check: [{ exit_code: 1 }, { exit_code: 1 }, { exit_code: 0 }] },
    });
    expect(run.commands.map((c) => (c.type === 'run_action' ? c.input.state : c.type))).toEqual([
      'check',
      'fix',
      'sleep',
      'check',
      'fix',
      'sleep',
      'check',
      'finish',
    ]);
    expect(run.commands.filter((c) => c.type === 'sleep')).toEqual([
      { type: 'sleep', ms: 2000, reason: 'backoff' },
      { type: 'sleep', ms: 2000, reason: 'backoff' },
    ]);
    // The pass-2 state_enter comes after the sleep, not before.
    const trace = run.all.map((c) => (c.type === 'emit' ? `${c.event.event}` : c.type));
    const sleepAt = trace.indexOf('sleep');
    expect(trace.slice(sleepAt - 1, sleepAt + 2)).toEqual(['route', 'sleep', 'state_enter']);
  });

  it('a $current retry also backs off', () => {
    const d = def(loop({ check: { action: 'x', on_yes: 'done', on_no: '$current' } }, { backoff: 0.5 }));
    const run = drive(d, { actions: { check: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.commands.map((c) => c.type)).toEqual(['run_action', 'sleep', 'run_action', 'finish']);
    expect(run.commands[1]).toEqual({ type: 'sleep', ms: 500, reason: 'backoff' });
  });

  it.each([{}, { backoff: 0 }])('no sleep without backoff (%j)', (extra) => {
    const run = drive(checkFix(extra), { actions: { check: [{ exit_code: 1 }, { exit_code: 0 }] } });
    expect(run.commands.some((c) => c.type === 'sleep')).toBe(false);
  });

  it('max_iterations wins over backoff: no sleep before a pass that will not run', () => {
    const run = drive(checkFix({ backoff: 1, max_iterations: 1 }), { actions: { check: [{ exit_code: 1 }] } });
    expect(run.commands.map((c) => c.type)).toEqual(['run_action', 'run_action', 'finish']);
  });
});

describe('timeout, cancel and failed activities', () => {
  it.each([
    ['timeout', 'timeout'],
    ['cancel', 'cancelled'],
  ] as const)('a %s event ends the run as %s and keeps captured values', (event, terminatedBy) => {
    const d = def(
      loop(
        { a: { action: 'x', capture: 'first', next: 'b' }, b: { action: 'sleep 100', next: 'done' } },
        { timeout: 60 },
      ),
    );
    const run = drive(d, { actions: { a: [{ output: 'one' }] }, interrupt: { atAction: 2, event } });
    expect(run.result).toMatchObject({ terminated_by: terminatedBy, final_state: 'b', failure: false });
    expect(run.result.captured.first).toMatchObject({ output: 'one' });
    if (event === 'timeout') expect(run.result.error).toMatch(/timeout of 60s.*"b"/);
    else expect(run.result.error).toBeUndefined();
  });

  it.each([
    [
      'routes to on_error',
      { a: { action: 'x', on_yes: 'done', on_error: 'recover' }, recover: { next: 'done' } },
      'terminal',
      ['a', 'recover', 'done'],
    ],
    ['ends the run without on_error', { a: { action: 'x', on_yes: 'done' } }, 'error', ['a']],
  ])('a failed activity %s', (_label, states, terminatedBy, entered) => {
    // The runtime reports the failure's error chain; the core words it.
    const run = drive(def(loop(states)), { interrupt: { atAction: 1, event: 'action_failed', error: 'worker lost' } });
    expect(run.result.terminated_by).toBe(terminatedBy);
    expect(run.entered).toEqual(entered);
    expect(eventsNamed(run, 'action_error')).toEqual([
      { event: 'action_error', state: 'a', error: 'action could not run: worker lost' },
    ]);
  });

  it('an action result carrying error (worker-side preparation failure) is an error verdict', () => {
    const d = def(
      loop({ a: { action: 'echo ${env.NOPE}', on_yes: 'done', on_error: 'recover' }, recover: { next: 'done' } }),
    );
    const run = drive(d, { actions: { a: [{ exit_code: 0, error: 'undefined environment variable NOPE' }] } });
    expect(run.entered).toEqual(['a', 'recover', 'done']);
    expect(eventsNamed(run, 'evaluate')).toEqual([
      { event: 'evaluate', state: 'a', type: 'error', verdict: 'error', error: 'undefined environment variable NOPE' },
    ]);
  });
});

describe('known bugs', () => {
  // BUG: states without actions are processed recursively inside one step(), so a long chain of
  // them overflows the stack and step() throws RangeError (it promises never to throw for
  // run-time problems). Expected: the run ends with max_iterations.
  it('a decision-only $current loop with a high max_iterations ends normally', () => {
    const d = def(
      loop(
        { a: { evaluate: { type: 'exit_code', source: '1' }, on_no: '$current', on_yes: 'done' } },
        { max_iterations: 20_000 },
      ),
    );
    const out = begin(d);
    expect(out.effect).toMatchObject({
      type: 'finish',
      result: { terminated_by: 'max_iterations', iterations: 20_000 },
    });
  });
});

describe('spinning guard', () => {
  it('a maintain loop with no action anywhere ends with an error instead of hanging', () => {
    const d = def({ name: 'spin', initial: 'done', maintain: true, states: { done: { terminal: true } } });
    const out = begin(d);
    const finish = out.effect;
    expect(finish).toMatchObject({ type: 'finish', result: { terminated_by: 'error' } });
    expect((finish as { result: { error: string } }).result.error).toContain('spinning');
  });

  it('max_steps does not count a pass that never started', () => {
    const d = def(loop({ a: { action: 'x', next: 'a' } }, { max_iterations: 10, max_steps: 3 }));
    let out = begin(d);
    for (let i = 0; i < 3; i += 1)
      out = next(d, out, {
        type: 'action_done',
        result: { output: '', stderr: '', exit_code: 0, duration_ms: 1 },
        now: i + 1,
      });
    expect(out.effect).toMatchObject({
      type: 'finish',
      result: { terminated_by: 'max_steps', steps: 3, iterations: 3 },
    });
  });
});

describe('resume from an earlier run', () => {
  it('re-runs the state the run was in, keeping captured values and the pass count, with a fresh clock', async () => {
    const d = def(loop({ a: { action: 'echo a', capture: 'a', next: 'b' }, b: { action: 'sleep 100', next: 'done' } }));
    let out = begin(d);
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'A\n', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 5,
    });
    out = next(d, out, { type: 'cancel', now: 10 });
    expect(out.snapshot).toMatchObject({ status: 'done', outcome: { terminated_by: 'cancelled' } });
    const resumed = transition(d, null, {
      type: 'start',
      now: 1000,
      resumeFrom: { runId: 'run-1', snapshot: out.snapshot },
    });
    expect(resumed.events[0]).toMatchObject({ event: 'loop_resume', from_run: 'run-1', state: 'b', seq: 1 });
    expect(resumed.effect).toMatchObject({ type: 'run_action', input: { state: 'b' } });
    expect(resumed.snapshot).toMatchObject({ status: 'running', current: 'b', iteration: 1, startedAtMs: 1000 });
    expect(resumed.snapshot).not.toHaveProperty('outcome');
    expect(resumed.snapshot.captured.a?.output).toBe('A');
  });

  it('a state that no longer exists ends the resumed run with a clear error', async () => {
    const d = def(loop({ a: { action: 'x', next: 'done' } }));
    const snap = { ...begin(d).snapshot, current: 'gone' };
    const out = transition(d, null, { type: 'start', now: 1, resumeFrom: { runId: 'r', snapshot: snap } });
    expect(out.effect).toMatchObject({ type: 'finish', result: { terminated_by: 'error' } });
  });
});

describe('a run moved onto this release (its history cannot be replayed)', () => {
  it('keeps its clock and event numbering, says so, and runs its state again', () => {
    const d = def(loop({ a: { action: 'echo a', capture: 'a', next: 'b' }, b: { action: 'sleep 100', next: 'done' } }));
    let out = begin(d, 1_000);
    out = next(d, out, {
      type: 'action_done',
      result: { output: 'A\n', stderr: '', exit_code: 0, duration_ms: 1 },
      now: 5_000,
    });
    const before = out.snapshot;
    const moved = transition(d, null, {
      type: 'start',
      now: 90_000,
      resumeFrom: { runId: 'r', snapshot: before, upgrade: { reason: 'replay failed', fromBuild: '0.1.0+abc' } },
    });
    expect(moved.events[0]).toMatchObject({
      event: 'loop_upgraded',
      from_build: '0.1.0+abc',
      state: 'b',
      reason: 'replay failed',
      seq: before.seq + 1,
    });
    expect(moved.snapshot).toMatchObject({
      status: 'running',
      current: 'b',
      startedAtMs: 1_000,
      captured: { a: { output: 'A' } },
    });
    expect(moved.effect).toMatchObject({ type: 'run_action', input: { state: 'b' } });
  });
});
