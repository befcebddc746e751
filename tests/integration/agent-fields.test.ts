/**
 * little-loops' agent fields on the real server, with loops written here:
 * - `session_mode: continue`: a scripted host CLI (tests/fixtures/fake-tool on LL_HOST_CLI, which
 *   prints Claude Code's JSON envelope and records its argv and stdin) is resumed with the session
 *   id of the previous prompt action's envelope; a `fresh` state is not; a call after one whose
 *   envelope named no session gets a summary of its answer instead.
 * - `idle_timeout` / `default_idle_timeout`: an action that prints once, then would sleep 60 s, is
 *   killed after its idle limit and the run routes on `${prev.timeout_kind}` == idle; the wall
 *   `timeout` firing first gives `wall`; an action that did not time out gives ''. The test waits
 *   on the run's end, never on a fixed sleep.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, script, toolEnv } from './harness.js';

afterAll(closeTemporal);

/** The argv and stdin of each call of the fake host CLI `agent`, in order. */
const agentCalls = (toolsDir: string) =>
  readFileSync(join(toolsDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string; args: string[]; stdin: string })
    .filter((c) => c.tool === 'agent');

/** Claude Code's envelope for an answer (with the session it ran in, when given). */
const envelope = (result: string, sessionId?: string) =>
  JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
    total_cost_usd: 0.01,
    usage: { input_tokens: 10, output_tokens: 5 },
  });

/** The value after `flag` in `args`, if any. */
const after = (args: string[], flag: string) => {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args[i + 1];
};

describe('session_mode on the real server', () => {
  it('continue resumes the previous prompt state’s session; fresh does not; no id: a summary', async () => {
    const p = project(['agent']);
    script(p.toolsDir, 'agent', [
      [0, envelope('plan: split the parser', 'sess-plan')],
      [0, envelope('split it into two files', 'sess-build')],
      [0, envelope('the split looks right')],
      [0, envelope('merged', 'sess-merge')],
    ]);
    const def = definition({
      name: 'sessions',
      description: 'two prompt states carry one agent session on',
      initial: 'plan',
      session_mode: 'continue',
      states: {
        plan: { action: 'Plan the change', action_type: 'prompt', session_mode: 'fresh', next: 'test' },
        test: { action: 'echo tests pass', next: 'build' },
        // Inherits the loop's continue; its idle limit has the host CLI stream its answer.
        build: { action: 'Make the change', action_type: 'prompt', idle_timeout: 60, next: 'review' },
        review: { action: 'Review it', action_type: 'prompt', session_mode: 'fresh', next: 'merge' },
        merge: { action: 'Merge it', action_type: 'prompt', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, { LL_HOST_CLI: 'agent' }) });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    const calls = agentCalls(p.toolsDir);
    expect(calls).toHaveLength(4);
    const [plan, build, review, merge] = calls as [
      (typeof calls)[0],
      (typeof calls)[0],
      (typeof calls)[0],
      (typeof calls)[0],
    ];
    expect(plan.args).not.toContain('--resume');
    // The second prompt state carries the first one's session on: `--resume <id>` from its envelope.
    expect(after(build.args, '--resume')).toBe('sess-plan');
    expect(after(build.args, '--output-format')).toBe('stream-json');
    expect(build.stdin).toBe('Make the change');
    // fresh: a new session.
    expect(review.args).not.toContain('--resume');
    expect(after(review.args, '--output-format')).toBe('stream-json');
    // review's envelope named no session: merge is told its answer instead.
    expect(merge.args).not.toContain('--resume');
    expect(merge.stdin).toMatch(/^Your previous step \(state "review"\) answered:\nthe split looks right\n/);
    expect(merge.stdin.endsWith('Merge it')).toBe(true);
  });

  it('fresh, the default: no prompt state carries a session on', async () => {
    const p = project(['agent']);
    script(p.toolsDir, 'agent', [
      [0, envelope('one', 'sess-1')],
      [0, envelope('two', 'sess-2')],
    ]);
    const def = definition({
      name: 'fresh-sessions',
      description: 'two prompt states, each its own session',
      initial: 'first',
      states: {
        first: { action: 'First', action_type: 'prompt', next: 'second' },
        second: { action: 'Second', action_type: 'prompt', next: 'done' },
        done: { terminal: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, { LL_HOST_CLI: 'agent' }) });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    const calls = agentCalls(p.toolsDir);
    expect(calls.map((c) => c.stdin)).toEqual(['First', 'Second']);
    for (const call of calls) expect(call.args).not.toContain('--resume');
  });
});

describe('idle_timeout on the real server', () => {
  it('kills a silent action after its idle limit and routes on ${prev.timeout_kind}: idle, wall, or empty', async () => {
    const p = project();
    const kind = (name: string, expected: string, next: string) => ({
      action: `echo "${name}:\${prev.timeout_kind}:"`,
      evaluate: { type: 'output_contains', pattern: `${name}:${expected}:` },
      on_yes: next,
      on_no: 'failed',
    });
    const def = definition({
      name: 'idle-limits',
      description: 'idle, wall and no timeout, told apart',
      initial: 'silent',
      // Each action's own idle limit, unless it sets one.
      default_idle_timeout: 1,
      states: {
        // Prints once, then would sleep 60 s: the idle limit (1 s) kills it long before its timeout.
        silent: { action: 'echo started; sleep 60', timeout: 120, next: 'was_idle', on_error: 'was_idle' },
        was_idle: kind('silent', 'idle', 'slow'),
        // Its own idle limit is longer than its timeout: the wall limit fires first.
        slow: { action: 'sleep 60', timeout: 1, idle_timeout: 30, next: 'was_wall', on_error: 'was_wall' },
        was_wall: kind('slow', 'wall', 'chatty'),
        // Prints more often than its idle limit for longer than it: never idle.
        chatty: { action: 'for i in $(seq 10); do echo tick $i; sleep 0.3; done', idle_timeout: 2, next: 'was_fine' },
        was_fine: kind('chatty', '', 'done'),
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const started = Date.now();
    const run = await runLoop(def, { cwd: p.cwd });
    expect(run.states).toEqual(['silent', 'was_idle', 'slow', 'was_wall', 'chatty', 'was_fine', 'done']);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    const completes = run.events.filter((e) => e.event === 'action_complete');
    expect(completes.find((e) => e.state === 'silent')).toMatchObject({
      exit_code: 124,
      timed_out: true,
      timeout_kind: 'idle',
    });
    expect(completes.find((e) => e.state === 'slow')).toMatchObject({ exit_code: 124, timed_out: true });
    expect(completes.find((e) => e.state === 'slow')).not.toHaveProperty('timeout_kind');
    expect(completes.find((e) => e.state === 'chatty')).toMatchObject({ exit_code: 0 });
    // Neither 60 s sleep ran out (a bound for a busy machine, far below them).
    expect(Date.now() - started).toBeLessThan(55_000);
  });

  it('a host CLI that goes silent is killed after the prompt state’s idle limit', async () => {
    const p = project();
    // Streams its first message, then hangs; records its argv.
    const cli = join(p.bin, 'stuck-agent');
    writeFileSync(
      cli,
      `#!/bin/sh\necho "$*" > ${join(p.toolsDir, 'stuck-args')}\necho '{"type":"system","subtype":"init","session_id":"s"}'\nexec sleep 60\n`,
    );
    chmodSync(cli, 0o755);
    const def = definition({
      name: 'idle-agent',
      description: 'an agent that stops answering',
      initial: 'ask',
      states: {
        ask: { action: 'Do it', action_type: 'prompt', idle_timeout: 1, timeout: 120, next: 'why', on_error: 'why' },
        why: {
          action: 'echo "ask:${prev.timeout_kind}:"',
          evaluate: { type: 'output_contains', pattern: 'ask:idle:' },
          on_yes: 'done',
          on_no: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, { LL_HOST_CLI: 'stuck-agent' }) });
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.events.find((e) => e.event === 'action_complete')).toMatchObject({ state: 'ask', timeout_kind: 'idle' });
    expect(readFileSync(join(p.toolsDir, 'stuck-args'), 'utf8')).toContain('--output-format stream-json --verbose');
  });
});
