/**
 * little-loops' agent fields `session_mode`, `idle_timeout` / `default_idle_timeout` in the pure
 * core and the host CLI's pieces: which session a prompt state carries on (fsm/run/agent-session.ts),
 * the idle limit an action is given (fsm/action.ts), `${prev.timeout_kind}`, the host CLI's
 * arguments and the session id of its envelope. Loops written here; the core driven with scripted
 * results (tests/unit/helpers.ts), no mocks.
 */
import { describe, expect, it } from 'vitest';
import { promptArgs } from '../../activities/host-cli.js';
import { fromEnvelope, parseEnvelope } from '../../activities/host-envelope.js';
import { actionIdleTimeout } from '../../fsm/action.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { interpolate, type InterpolationScope } from '../../fsm/interpolate.js';
import { SUMMARY_CHARS } from '../../fsm/run/agent-session.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { createHumanReporter } from '../../reporters/human.js';
import { createStyle } from '../../reporters/style.js';
import type { ActionResult, PrevResult } from '../../fsm/types.js';
import { def, drive, loop } from './helpers.js';

const prompt = (extra: Record<string, unknown> = {}) => ({ action: 'Do it', action_type: 'prompt', ...extra });
const promptText = (parts: ReadonlyArray<string | { name: string }> | undefined) =>
  (parts ?? []).map((p) => (typeof p === 'string' ? p : `\${env.${p.name}}`)).join('');

describe('session_mode: which session a prompt state carries on', () => {
  const states = {
    plan: prompt({ next: 'test' }),
    test: { action: 'make test', next: 'build' },
    build: prompt({ session_mode: 'continue', next: 'review' }),
    review: prompt({ session_mode: 'fresh', next: 'finish' }),
    finish: prompt({ session_mode: 'continue', next: 'done' }),
  };
  const answers = {
    plan: [{ output: 'plan: A then B\n', session_id: 'sess-plan' }],
    build: [{ output: 'built A', session_id: 'sess-build' }],
    // A host CLI that names no session.
    review: [{ output: 'looks good, ship it' }],
  };

  it('continue resumes the last prompt action’s session (a shell action between counts for nothing); fresh does not', () => {
    const run = drive(def(loop(states)), { actions: answers });
    const byState = Object.fromEntries(run.actions.map((a) => [a.state, a]));
    expect(byState.plan).not.toHaveProperty('resume_session');
    expect(byState.build).toMatchObject({ resume_session: 'sess-plan' });
    expect(byState.review).not.toHaveProperty('resume_session');
    // The prompt itself is unchanged when the session is resumed.
    expect(promptText(byState.build?.prompt?.parts)).toBe('Do it');
  });

  it('a previous call without a session id: the prompt opens with a summary of its answer', () => {
    const run = drive(def(loop(states)), { actions: answers });
    const finish = run.actions.find((a) => a.state === 'finish');
    expect(finish).not.toHaveProperty('resume_session');
    const text = promptText(finish?.prompt?.parts);
    expect(text).toMatch(/^Your previous step \(state "review"\) answered:\nlooks good, ship it\n/);
    expect(text.endsWith('Do it')).toBe(true);
  });

  it('the loop-level session_mode is the default a state may override', () => {
    const run = drive(
      def(
        loop(
          {
            plan: prompt({ next: 'build' }),
            build: prompt({ next: 'review' }),
            review: prompt({ session_mode: 'fresh', next: 'done' }),
          },
          { session_mode: 'continue' },
        ),
      ),
      { actions: { plan: [{ output: 'p', session_id: 's1' }], build: [{ output: 'b', session_id: 's2' }] } },
    );
    expect(run.actions.map((a) => a.resume_session)).toEqual([undefined, 's1', undefined]);
  });

  it('a long answer is summarized by its last SUMMARY_CHARS characters', () => {
    const long = 'x'.repeat(SUMMARY_CHARS) + 'THE END';
    const run = drive(def(loop({ a: prompt({ next: 'b' }), b: prompt({ session_mode: 'continue', next: 'done' }) })), {
      actions: { a: [{ output: long }] },
    });
    const text = promptText(run.actions[1]?.prompt?.parts);
    expect(text).toContain(`(its last ${SUMMARY_CHARS} characters)`);
    expect(text).toContain('THE END');
    expect(text).not.toContain('x'.repeat(SUMMARY_CHARS));
  });

  it('never across a handoff: the state that handed off starts a fresh session', () => {
    const handoff: Partial<ActionResult> = {
      output: 'CONTEXT_HANDOFF: go on with the lexer',
      session_id: 'sess-spent',
      stdout_signal: { kind: 'handoff', payload: 'go on with the lexer' },
    };
    const run = drive(
      def(
        loop(
          { plan: prompt({ next: 'work' }), work: prompt({ session_mode: 'continue', next: 'done' }) },
          { on_handoff: 'spawn' },
        ),
      ),
      {
        actions: {
          plan: [{ output: 'the plan', session_id: 'sess-plan' }],
          work: [handoff, { output: 'finished', session_id: 'sess-new' }],
        },
      },
    );
    expect(run.actions.map((a) => a.state)).toEqual(['plan', 'work', 'work']);
    // Before the handoff, work carried plan's session on.
    expect(run.actions[1]).toMatchObject({ resume_session: 'sess-plan' });
    // After it, neither the spent session nor a summary of it: only the handoff's payload.
    expect(run.actions[2]).not.toHaveProperty('resume_session');
    expect(promptText(run.actions[2]?.prompt?.parts)).not.toContain('Your previous step');
    expect(promptText(run.actions[2]?.prompt?.parts)).toContain('go on with the lexer');
  });

  it('a loop without a continue state keeps no session and issues the inputs it did', () => {
    const run = drive(def(loop({ a: prompt({ next: 'b' }), b: prompt({ next: 'done' }) })), {
      actions: { a: [{ output: 'p', session_id: 's1' }] },
    });
    expect(run.snapshots.every((s) => !('agentSession' in s))).toBe(true);
    expect(run.actions.every((a) => !('resume_session' in a) && !('idle_timeout_s' in a))).toBe(true);
  });

  it.each([
    ['resume', { session_mode: 'resume' }, 1],
    ['fresh', { session_mode: 'fresh' }, 0],
    ['continue', { session_mode: 'continue' }, 0],
  ])('validate: session_mode %s gives %i warning(s)', (_name, fields, warnings) => {
    const result = validateLoop(loop({ a: prompt({ next: 'done', ...fields }) }));
    const found = result.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic);
    expect(found).toHaveLength(warnings);
    if (warnings)
      expect(found[0]).toMatch(/session_mode: "resume" is not one of fresh, continue; the state runs as fresh/);
    // Enforced now: no "not yet enforced" note for it.
    expect(result.diagnostics.map(formatDiagnostic).join('\n')).not.toMatch(/session_mode.*not yet enforced/);
  });
});

describe('idle_timeout: the limit an action is given', () => {
  const scope = (context: Record<string, unknown> = {}): InterpolationScope => ({
    context,
    captured: {},
    prev: null,
    result: null,
    state: { name: 'a', iteration: 1 },
    loop: { name: 'l', started_at: '', elapsed_ms: 0, elapsed: '0s' },
  });
  it.each([
    ['the state’s', { idle_timeout: 5 }, {}, {}, 5],
    ['the loop’s default', {}, { default_idle_timeout: 7 }, {}, 7],
    ['the state’s over the loop’s', { idle_timeout: 2 }, { default_idle_timeout: 7 }, {}, 2],
    ['0: none, even over a default', { idle_timeout: 0 }, { default_idle_timeout: 7 }, {}, undefined],
    ['a reference, read as seconds', { idle_timeout: '${context.idle}' }, {}, { idle: '3' }, 3],
    ['neither: none', {}, {}, {}, undefined],
    ['an MCP tool call: none', { idle_timeout: 5, action: 'srv/tool', action_type: 'mcp_tool' }, {}, {}, undefined],
  ])('%s', (_name, state, loopFields, context, expected) => {
    const d = def(loop({ a: { action: 'make', next: 'done', ...state } }, loopFields));
    expect(actionIdleTimeout(d, d.states.a!, scope(context))).toBe(expected);
  });

  it('a text that is not a number of seconds names the field and the fix', () => {
    const d = def(loop({ a: { action: 'make', next: 'done', idle_timeout: 'soon' } }));
    expect(() => actionIdleTimeout(d, d.states.a!, scope())).toThrow(
      /idle_timeout: "soon" is not a number of seconds; write a number/,
    );
    const run = drive(d);
    expect(run.result).toMatchObject({ terminated_by: 'error' });
    expect(run.result.error).toMatch(/idle_timeout: "soon"/);
  });

  it('only a state with a limit carries idle_timeout_s; its prompt asks for streamed output', () => {
    const run = drive(
      def(loop({ a: { action: 'make', next: 'b', idle_timeout: 4 }, b: { action: 'make', next: 'done' } })),
    );
    expect(run.actions[0]).toMatchObject({ idle_timeout_s: 4 });
    expect(run.actions[1]).not.toHaveProperty('idle_timeout_s');
  });
});

describe('${prev.timeout_kind}', () => {
  const prev = (extra: Partial<PrevResult> = {}): PrevResult => ({
    state: 'a',
    output: '',
    stderr: '',
    exit_code: 124,
    ...extra,
  });
  const scopeWith = (p: PrevResult): InterpolationScope => ({
    context: {},
    captured: {},
    prev: p,
    result: null,
    state: { name: 'b', iteration: 1 },
    loop: { name: 'l', started_at: '', elapsed_ms: 0, elapsed: '0s' },
  });
  it.each([
    ['idle', prev({ timeout_kind: 'idle' }), 'idle'],
    ['wall', prev({ timeout_kind: 'wall' }), 'wall'],
    ['empty when the action did not time out', prev({ exit_code: 0 }), ''],
  ])('%s', (_name, p, expected) => {
    expect(interpolate('[${prev.timeout_kind}]', scopeWith(p))).toBe(`[${expected}]`);
  });

  it.each([
    ['an idle kill', { exit_code: 124, timed_out: true, timeout_kind: 'idle' as const }, 'idle'],
    ['a wall timeout', { exit_code: 124, timed_out: true, timeout_kind: 'wall' as const }, 'wall'],
    ['a timeout from a worker that names no kind is the wall’s', { exit_code: 124, timed_out: true }, 'wall'],
    ['no timeout', { exit_code: 1 }, undefined],
  ])('prev after %s', (_name, result, kind) => {
    const run = drive(
      def(
        loop({
          a: { action: 'make', next: 'b', on_error: 'b' },
          b: { action: 'echo "${prev.timeout_kind}"', next: 'done' },
        }),
      ),
      { actions: { a: [result] } },
    );
    // b's action sees it (as data, never code: a variable of its script).
    expect(Object.values(run.actions[1]?.shell?.vars ?? {})).toEqual([kind ?? '']);
    const after = run.snapshots.find((s) => s.prev?.state === 'a')!.prev!;
    if (kind === undefined) expect(after).not.toHaveProperty('timeout_kind');
    else expect(after.timeout_kind).toBe(kind);
  });
});

describe('the host CLI: arguments and the session id of its envelope', () => {
  it.each([
    ['plain (streamed)', {}, ['--output-format', 'stream-json', '--verbose'], ['--resume', 'json']],
    ['resuming', { resume: 'sess-1' }, ['--resume', 'sess-1'], ['json']],
  ])('%s', (_name, options, has, hasNot) => {
    const args = promptArgs(options);
    const joined = ` ${args.join(' ')} `;
    expect(joined).toContain(` ${has.join(' ')} `);
    for (const word of hasNot) expect(args).not.toContain(word);
    expect(args.at(-1)).toBe('-p');
  });

  const envelope = { type: 'result', subtype: 'success', is_error: false, result: 'answer', session_id: 'sess-42' };
  it.each([
    ['one envelope', JSON.stringify(envelope)],
    [
      'JSON lines (stream-json)',
      [{ type: 'system', subtype: 'init', session_id: 'sess-42' }, { type: 'assistant', message: {} }, envelope]
        .map((m) => JSON.stringify(m))
        .join('\n') + '\n',
    ],
  ])('%s: the result text and the session id', (_name, stdout) => {
    expect(parseEnvelope(stdout)).toMatchObject({ text: 'answer', sessionId: 'sess-42' });
    const run: ActionResult = { output: stdout, stderr: '', exit_code: 0, duration_ms: 10 };
    expect(fromEnvelope(run)).toMatchObject({ output: 'answer', session_id: 'sess-42' });
  });

  it('lines that end in something other than an envelope are output as printed, with no session', () => {
    const stdout = `${JSON.stringify({ type: 'assistant', session_id: 's' })}\nnot json\n`;
    expect(parseEnvelope(stdout)).toBeUndefined();
    expect(fromEnvelope({ output: stdout, stderr: '', exit_code: 0, duration_ms: 1 })).not.toHaveProperty('session_id');
  });
});

describe('the progress display tells an idle kill from a timeout', () => {
  it.each([
    ['idle', { timeout_kind: 'idle' }, '⏱ killed after 1.0s: no output for its idle_timeout'],
    ['wall', {}, '⏱ timed out after 1.0s'],
  ])('%s', (_name, extra, shown) => {
    let text = '';
    const reporter = createHumanReporter((t) => (text += t), createStyle(false), 10);
    const ts = '2026-11-23T00:00:00.000Z';
    const ev = (event: string, fields: Record<string, unknown>) => ({ event, ts, ...fields }) as TimedEvent;
    reporter.onEvent(ev('state_enter', { state: 'work', iteration: 1 }));
    reporter.onEvent(ev('action_start', { state: 'work', action: 'sleep 60' }));
    reporter.onEvent(
      ev('action_complete', { state: 'work', exit_code: 124, duration_ms: 1000, timed_out: true, ...extra }),
    );
    expect(text).toContain(shown);
    if (_name === 'wall') expect(text).not.toContain('idle');
  });

  it('the action_complete event says idle only for an idle kill', () => {
    const run = drive(
      def(
        loop({
          a: { action: 'make', next: 'b', on_error: 'b' },
          b: { action: 'make', next: 'done', on_error: 'done' },
        }),
      ),
      {
        actions: {
          a: [{ exit_code: 124, timed_out: true, timeout_kind: 'idle' }],
          b: [{ exit_code: 124, timed_out: true, timeout_kind: 'wall' }],
        },
      },
    );
    const completes = run.events.filter((e) => e.event === 'action_complete');
    expect(completes[0]).toMatchObject({ state: 'a', timed_out: true, timeout_kind: 'idle' });
    expect(completes[1]).toMatchObject({ state: 'b', timed_out: true });
    expect(completes[1]).not.toHaveProperty('timeout_kind');
  });
});
