/**
 * Sub-loops on a real Temporal server: the child runs as a child workflow, its outcome routes the
 * parent, captured values flow only with passthrough, `with:` binds typed parameters, and stopping
 * or timing out the parent stops the child and its processes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { loadLoopFile } from '../../loader/load.js';
import { followEvents } from '../../runs/follow/follow-events.js';
import type { TimedEvent } from '../../fsm/run/events.js';
import { liveProcesses } from '../support/processes.js';
import { closeTemporal, project, runLoop, temporal, toolEnv } from './harness.js';

afterAll(closeTemporal);

/** A project whose `.loops/` holds the given files (name → YAML). */
function withLoops(files: Record<string, string>) {
  const p = project();
  mkdirSync(join(p.cwd, '.loops'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(p.cwd, '.loops', `${name}.yaml`), text);
  return p;
}

function load(cwd: string, name: string): LoopDefinition {
  const loaded = loadLoopFile(join(cwd, '.loops', `${name}.yaml`), {}, cwd);
  if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  return loaded.definition;
}

/**
 * The events read from Temporal history (`history`, `status --follow`) are the live ones, byte
 * for byte: the parent's, and each sub-loop's (followed through its own history, marked with its
 * depth), every one of a child's events delivered before the parent's `subloop_complete`.
 */
async function expectRebuilt(workflowId: string, live: TimedEvent[], liveChildren: TimedEvent[]): Promise<void> {
  const { client } = await temporal();
  const delivered: TimedEvent[] = [];
  const rebuilt = await followEvents(client, workflowId, { onEvent: (e) => delivered.push(e) });
  const text = (events: TimedEvent[]) => events.map((e) => JSON.stringify(e));
  expect(rebuilt.warnings).toEqual([]);
  expect(text(rebuilt.events)).toEqual(text(live));
  const byChild = (events: TimedEvent[]) =>
    text(
      events
        .filter((e) => e.subloop)
        .sort((a, b) => a.subloop!.workflow_id.localeCompare(b.subloop!.workflow_id) || a.seq - b.seq),
    );
  expect(byChild(delivered)).toEqual(byChild(liveChildren));
  const completes = delivered
    .map((e, i) => (e.event === 'subloop_complete' && !e.subloop ? i : -1))
    .filter((i) => i >= 0);
  for (const [k, at] of completes.entries()) {
    const childId = [...new Set(delivered.filter((e) => e.subloop?.depth === 1).map((e) => e.subloop!.workflow_id))][k];
    const lastOfChild = delivered
      .map((e, i) => (e.subloop?.workflow_id === childId ? i : -1))
      .filter((i) => i >= 0)
      .at(-1);
    if (lastOfChild !== undefined) expect(lastOfChild).toBeLessThan(at);
  }
}

const CHILD_PASS = `
name: child-pass
description: passes at once
initial: check
states:
  check:
    action: "true"
    capture: child_note
    on_yes: done
    on_no: gave_up
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`;
const CHILD_FAIL = `
name: child-fail
description: gives up
initial: check
states:
  check:
    action: "false"
    on_yes: done
    on_no: gave_up
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`;

/** A child that sleeps 30 s in an action whose command line carries `marker`. */
const sleeperLoop = (marker: string) => `
name: sleeper
description: sleeps
initial: nap
states:
  nap:
    action: "sleep 30; echo ${marker}"
    timeout: 120
    next: done
  done: { terminal: true }
`;

describe('sub-loops on Temporal', () => {
  it('a passing child routes on_success, a failing child on_failure; each is a child workflow of its parent', async () => {
    const p = withLoops({
      'child-pass': CHILD_PASS,
      'child-fail': CHILD_FAIL,
      parent: `
name: parent
description: runs two children
initial: first
states:
  first:
    loop: child-pass
    on_success: second
    on_failure: broken
  second:
    loop: child-fail
    on_success: broken
    on_failure: done
  broken: { terminal: true, failure: true }
  done: { terminal: true }
`,
    });
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['first', 'second', 'done']);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done', failure: false });
    const completions = run.events.filter((e) => e.event === 'subloop_complete');
    expect(completions).toMatchObject([
      { state: 'first', loop: 'child-pass', final_state: 'done', verdict: 'yes' },
      { state: 'second', loop: 'child-fail', final_state: 'gave_up', verdict: 'no' },
    ]);
    const { client } = await temporal();
    const child = await client.workflow.getHandle(`${run.workflowId}.first.1`).describe();
    expect(child.parentExecution?.workflowId).toBe(run.workflowId);
    expect(child.type).toBe('loopWorkflow');
    // The children's events reach the parent's listeners, marked with where they come from.
    const childStates = run.childEvents
      .filter((e) => e.event === 'state_enter')
      .map((e) => [e.subloop?.depth, e.state]);
    expect(childStates).toEqual([
      [1, 'check'],
      [1, 'done'],
      [1, 'check'],
      [1, 'gave_up'],
    ]);
    expect(child.status.name).toBe('COMPLETED');
    await expectRebuilt(run.workflowId, run.events, run.childEvents);
  });

  it('context_passthrough shares context and captured values both ways; without it the child is isolated', async () => {
    const p = withLoops({
      reporter: `
name: reporter
description: reads the parent's values and captures its own
initial: report
states:
  report:
    action: "echo \\"\${context.greeting} \${captured.count.output:-none}\\""
    capture: report
    next: done
  done: { terminal: true }
`,
      'child-pass': CHILD_PASS,
      parent: `
name: parent
description: passthrough then isolation
initial: count
context:
  greeting: hello
states:
  count:
    action: "echo 5"
    capture: count
    next: shared
  shared:
    loop: reporter
    context_passthrough: true
    on_success: isolated
  isolated:
    loop: child-pass
    on_success: show
  show:
    action: "echo got \${captured.report.output}"
    capture: shown
    next: done
  done: { terminal: true }
`,
    });
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result.terminated_by).toBe('terminal');
    expect(run.result.captured.report?.output).toBe('hello 5');
    expect(run.result.captured.shown?.output).toBe('got hello 5');
    // child-pass captured child_note, but it ran isolated: nothing came back.
    expect(run.result.captured.child_note).toBeUndefined();
  });

  it('with: binds typed parameters; run-time data stays data in the child; a mistyped value at run time routes on_error', async () => {
    const p = withLoops({
      worker: `
name: worker
description: writes what it was given
initial: write
parameters:
  text: { type: string, required: true }
  times: { type: integer, default: 1 }
states:
  write:
    action: "printf '%s x%s' \\"\${context.text}\\" \${context.times} > out.txt"
    next: done
  done: { terminal: true }
`,
      parent: `
name: parent
description: binds parameters from captured output
initial: produce
states:
  produce:
    action: "echo '$(touch pwned) ; rm -rf nothing'"
    capture: raw
    next: good
  good:
    loop: worker
    with:
      text: "\${captured.raw.output}"
      times: 3
    on_success: bad
  bad:
    loop: worker
    with:
      text: ok
      times: "\${captured.raw.output}"
    on_success: done
    on_error: rejected
  rejected: { terminal: true, failure: true }
  done: { terminal: true }
`,
    });
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(readFileSync(join(p.cwd, 'out.txt'), 'utf8')).toBe('$(touch pwned) ; rm -rf nothing x3');
    expect(existsSync(join(p.cwd, 'pwned'))).toBe(false);
    expect(run.states).toEqual(['produce', 'good', 'bad', 'rejected']);
    const bad = run.events.find((e) => e.event === 'subloop_complete' && e.state === 'bad');
    expect(String(bad?.error)).toContain('parameter "times" of loop "worker": expected an integer');
  });

  it('a templated loop name is resolved when the state runs; an unknown one routes on_error', async () => {
    const p = withLoops({
      'child-pass': CHILD_PASS,
      parent: `
name: parent
description: dynamic child names
initial: known
context:
  which: child-pass
  missing: no-such-loop
states:
  known:
    loop: "\${context.which}"
    on_success: unknown
  unknown:
    loop: "\${context.missing}"
    on_success: done
    on_error: done
  done: { terminal: true }
`,
    });
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['known', 'unknown', 'done']);
    const error = run.events.find((e) => e.event === 'action_error' && e.state === 'unknown');
    expect(String(error?.error)).toMatch(/no loop named "no-such-loop".*child-pass/);
  });

  it('stopping the parent stops the running child and kills its processes', async () => {
    const marker = `subloop-cancel-${process.pid}-${Date.now()}`;
    const p = withLoops({
      sleeper: sleeperLoop(marker),
      parent: `
name: parent
description: runs the sleeper
initial: run
states:
  run:
    loop: sleeper
    on_success: done
  done: { terminal: true }
`,
    });
    const { client } = await temporal();
    const run = await runLoop(load(p.cwd, 'parent'), {
      cwd: p.cwd,
      env: toolEnv(p),
      onStarted: async (workflowId) => {
        for (let i = 0; i < 100 && liveProcesses(marker) === 0; i += 1) await new Promise((r) => setTimeout(r, 100));
        expect(liveProcesses(marker)).toBeGreaterThan(0);
        await client.workflow.getHandle(workflowId).cancel();
      },
    });
    expect(run.result.terminated_by).toBe('cancelled');
    expect(liveProcesses(marker)).toBe(0);
    const child = await client.workflow.getHandle(`${run.workflowId}.run.1`).describe();
    expect(child.status.name).toBe('COMPLETED'); // the child records its own cancelled end
    const childResult = (await client.workflow.getHandle(`${run.workflowId}.run.1`).result()) as {
      terminated_by: string;
    };
    expect(childResult.terminated_by).toBe('cancelled');
  });

  it("the parent's loop timeout stops the running child and kills its processes", async () => {
    const marker = `subloop-timeout-${process.pid}-${Date.now()}`;
    const p = withLoops({
      sleeper: sleeperLoop(marker),
      parent: `
name: parent
description: runs the sleeper under a short deadline
initial: run
timeout: 3
states:
  run:
    loop: sleeper
    on_success: done
  done: { terminal: true }
`,
    });
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result.terminated_by).toBe('timeout');
    expect(liveProcesses(marker)).toBe(0);
    const { client } = await temporal();
    const childResult = (await client.workflow.getHandle(`${run.workflowId}.run.1`).result()) as {
      terminated_by: string;
    };
    expect(childResult.terminated_by).toBe('cancelled');
  });

  it("a sub-loop state's timeout: stops the child, kills its processes, keeps what it captured and routes on_error", async () => {
    const marker = `subloop-state-timeout-${process.pid}-${Date.now()}`;
    const p = withLoops({
      sleeper: `
name: sleeper
description: captures, then sleeps
initial: note
states:
  note:
    action: "echo noted"
    capture: note
    next: nap
  nap:
    action: "sleep 30; echo ${marker}"
    next: done
  done: { terminal: true }
`,
      parent: `
name: parent
description: gives the sleeper 2 s
initial: run
states:
  run:
    loop: sleeper
    context_passthrough: true
    timeout: 2
    on_success: done
    on_error: late
  done: { terminal: true }
  late:
    action: "echo 'late: \${captured.note.output}'"
    terminal: true
    failure: true
`,
    });
    const started = Date.now();
    const run = await runLoop(load(p.cwd, 'parent'), { cwd: p.cwd, env: toolEnv(p) });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.states).toEqual(['run', 'late']);
    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'late', failure: true });
    expect(run.result.captured.note?.output).toBe('noted');
    const evaluate = run.events.find((e) => e.event === 'evaluate' && e.state === 'run');
    expect(evaluate).toMatchObject({
      verdict: 'error',
      error: expect.stringContaining("the state's timeout of 2s ran out"),
    });
    expect(liveProcesses(marker)).toBe(0);
    const { client } = await temporal();
    const childResult = (await client.workflow.getHandle(`${run.workflowId}.run.1`).result()) as {
      terminated_by: string;
    };
    expect(childResult.terminated_by).toBe('cancelled');
    await expectRebuilt(run.workflowId, run.events, run.childEvents);
  });
});
