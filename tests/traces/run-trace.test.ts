/**
 * Traces of runs in a real Jaeger v2 (tests/support/jaeger.ts), end to end with the built binary
 * on the run's dev server, the checkout's worker started by the commands with the standard
 * OpenTelemetry variables:
 * - a run with a prompt action (a scripted agent on LL_HOST_CLI reporting tokens and cost), a
 *   sub-loop and a fan-out is one trace: the start, the run, its states and actions, the
 *   sub-loop's and each item's child run, Temporal's workflow and activity spans, each span's
 *   parent in the same trace, the prompt action's GenAI attributes;
 * - quick actions in bursts: a burst's first state and action are spans, the states it then ran
 *   one `burst <state>` span listing them (workflows/burst-trace.ts), the terminal a span;
 * - SIGKILL of the worker mid-run: the new worker replays the run and exports no span twice.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort, livePids, pidAlive, until, waitFor } from '../support/processes.js';
import { startJaeger, type Jaeger, type JaegerSpan, type JaegerTrace } from '../support/jaeger.js';

let jaeger: Jaeger;
let dir: string;
let env: NodeJS.ProcessEnv;
const SERVICE = `ll-loop-test-${process.pid}`;

const cli = (args: string[]) => runCliBinary(args, { cwd: dir, env, timeoutMs: 150_000 });

const workerPid = (): number =>
  (JSON.parse(readFileSync(join(dir, '.loops', '.worker', 'worker.json'), 'utf8')) as { pid: number }).pid;

const LOOPS: Record<string, string> = {
  traced: `name: traced
description: a prompt action, a sub-loop and a fan-out
initial: ask
states:
  ask:
    action: "Say done"
    action_type: prompt
    model: test-model
    next: sub
  sub:
    loop: inner
    on_yes: fan
    on_no: fan
  fan:
    parallel:
      items: ["a", "b"]
      loop: item
      with: { item: "\${item}" }
      max_workers: 2
    on_yes: done
    on_no: done
  done: { terminal: true }
`,
  inner: `name: inner
description: a sub-loop with one action
initial: hello
states:
  hello:
    action: "echo inner"
    next: finish
  finish: { terminal: true }
`,
  item: `name: item
description: one item
initial: work
parameters:
  item: { type: string, required: true }
states:
  work:
    action: "echo item \${context.item}"
    next: finish
  finish: { terminal: true }
`,
  quick: `name: quick
description: quick actions, which \`ll-loop run\` runs in bursts
initial: a
default_timeout: 10
states:
  a:
    action: "true"
    next: b
  b:
    action: "false"
    on_yes: c
    on_no: c
  c:
    action: "true"
    next: done
  done: { terminal: true }
`,
  restart: `name: restart
description: waits in its second state for the test to let it go
initial: first
states:
  first:
    action: "echo first"
    next: second
  second:
    action: "while [ ! -f go ]; do sleep 0.2; done # traces-hold-${process.pid}"
    next: third
  third:
    action: "echo third"
    next: done
  done: { terminal: true }
`,
};

/** A scripted agent: Claude Code's result envelope, with usage and cost, whatever it is asked. */
const AGENT = `#!/bin/sh
cat > /dev/null
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.25,"usage":{"input_tokens":120,"output_tokens":30}}'
`;

const tag = (s: JaegerSpan, key: string): unknown => s.tags.find((t) => t.key === key)?.value;
const parentOf = (s: JaegerSpan): string | undefined => s.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

/** The traces holding a span of run `id` (its `ll_loop.run_id` or `temporalWorkflowId`), once `ready`. */
async function traceOf(id: string, ready: (spans: JaegerSpan[]) => boolean): Promise<JaegerTrace[]> {
  let last: JaegerTrace[] = [];
  try {
    return await until(
      `the trace of ${id} in Jaeger`,
      async () => {
        last = (await jaeger.traces(SERVICE)).filter((t) =>
          t.spans.some((s) => (tag(s, 'll_loop.run_id') ?? tag(s, 'temporalWorkflowId')) === id),
        );
        return last.length > 0 && ready(last.flatMap((t) => t.spans)) ? last : undefined;
      },
      120_000,
      500,
    );
  } catch (err) {
    const seen = last.map((t) =>
      t.spans
        .map((s) => s.operationName)
        .sort()
        .join(', '),
    );
    throw new Error(`${(err as Error).message}; its traces so far: ${seen.join(' | ') || 'none'}`);
  }
}

async function started(name: string): Promise<string> {
  const run = await cli(['run', name, '--background', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { instance_id: string }).instance_id;
}

async function finished(id: string): Promise<void> {
  const status = await cli(['status', id, '--follow', '--json']);
  expect(status.code, status.stderr).toBe(0);
}

beforeAll(async () => {
  jaeger = await startJaeger({
    otlpHttp: await freePort(),
    query: await freePort(),
    queryGrpc: await freePort(),
    health: await freePort(),
  });
  dir = mkdtempSync(join(tmpdir(), 'll-loop-traces-'));
  mkdirSync(join(dir, '.loops'));
  for (const [name, text] of Object.entries(LOOPS)) writeFileSync(join(dir, '.loops', `${name}.yaml`), text);
  writeFileSync(join(dir, 'agent'), AGENT);
  chmodSync(join(dir, 'agent'), 0o755);
  const { LL_WORKFLOW_BUNDLE: _bundle, OTEL_SDK_DISABLED: _off, ...rest } = process.env;
  env = {
    ...rest,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    LL_HOST_CLI: join(dir, 'agent'),
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_SERVICE_NAME: SERVICE,
    // Spans leave the worker within a fifth of a second (the SDK's default waits 5 s).
    OTEL_BSP_SCHEDULE_DELAY: '200',
    NO_COLOR: '1',
  };
}, 900_000);

afterAll(async () => {
  try {
    const pid = workerPid();
    if (pidAlive(pid)) process.kill(pid, 'SIGTERM');
    await waitFor('the worker to stop', () => !pidAlive(pid), 60_000);
  } catch {
    // no worker was started
  }
  await jaeger?.stop();
});

describe('a run is a trace', () => {
  it('a prompt action, a sub-loop and a fan-out: one trace, spans linked to their parents, GenAI attributes', async () => {
    const id = await started('traced');
    await finished(id);
    const names = (spans: JaegerSpan[]) => spans.map((s) => s.operationName);
    const expected = [
      'll-loop.run traced',
      'state ask',
      'action ask',
      'state sub',
      'subloop inner',
      'll-loop.child inner',
      'state fan',
      'fanout fan',
      'item fan[0]',
      'item fan[1]',
      'll-loop.child item',
      'state done',
    ];
    const traces = await traceOf(
      id,
      (spans) =>
        expected.every((n) => names(spans).includes(n)) &&
        names(spans).filter((n) => n === 'll-loop.child item').length === 2 &&
        names(spans).filter((n) => n === 'RunWorkflow:loopWorkflow').length === 4,
    );
    expect(traces, 'one trace').toHaveLength(1);
    const spans = traces[0]!.spans;
    const byId = new Map(spans.map((s) => [s.spanID, s]));
    const one = (name: string) => {
      const found = spans.filter((s) => s.operationName === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const parentName = (s: JaegerSpan) => byId.get(parentOf(s) ?? '')?.operationName;
    /** The names of `s`'s ancestors, nearest first. */
    const ancestors = (s: JaegerSpan): string[] => {
      const out: string[] = [];
      for (let p = byId.get(parentOf(s) ?? ''); p; p = byId.get(parentOf(p) ?? '')) out.push(p.operationName);
      return out;
    };
    // The run's own spans and its workflows' and actions' have their parents in this trace (the
    // scope lock's workflow, started by the first run that asked, has spans of its own here too).
    const ours = /^(ll-loop\.|state |action |subloop |fanout |item |RunWorkflow:loopWorkflow|RunActivity:runAction)/;
    for (const s of spans.filter((x) => ours.test(x.operationName)))
      if (s.operationName !== 'RunWorkflow:loopWorkflow' || parentOf(s) !== undefined)
        expect(byId.has(parentOf(s) ?? ''), s.operationName).toBe(true);
    // The root: the run's start when the checkout's worker made it, else its workflow.
    const root = spans.filter((s) => parentOf(s) === undefined).map((s) => s.operationName);
    expect(root.filter((n) => n === 'StartWorkflow:loopWorkflow' || n === 'RunWorkflow:loopWorkflow')).toHaveLength(1);
    expect(parentName(one('ll-loop.run traced'))).toBe('RunWorkflow:loopWorkflow');
    expect(ancestors(one('ll-loop.run traced')).at(-1)).toMatch(/^(StartWorkflow|RunWorkflow):loopWorkflow$/);
    for (const state of ['ask', 'sub', 'fan', 'done'])
      expect(parentName(one(`state ${state}`))).toBe('ll-loop.run traced');
    expect(parentName(one('action ask'))).toBe('state ask');
    expect(parentName(one('subloop inner'))).toBe('state sub');
    expect(parentName(one('fanout fan'))).toBe('state fan');
    expect(parentName(one('item fan[0]'))).toBe('fanout fan');
    // The prompt action's activity runs under its action span; the sub-loop's and items' runs under theirs.
    expect(
      spans.some(
        (s) =>
          (s.operationName === 'RunActivity:runAction' && ancestors(s)[0] === 'action ask') ||
          ancestors(s).slice(0, 2).join() === 'StartActivity:runAction,action ask',
      ),
    ).toBe(true);
    expect(ancestors(one('ll-loop.child inner'))).toContain('subloop inner');
    const items = spans.filter((s) => s.operationName === 'll-loop.child item');
    expect(items.map((s) => ancestors(s).find((a) => a.startsWith('item fan['))).sort()).toEqual([
      'item fan[0]',
      'item fan[1]',
    ]);
    // GenAI attributes of the prompt action: the model, the tokens and the cost it reported.
    const ask = one('action ask');
    expect(tag(ask, 'gen_ai.request.model')).toBe('test-model');
    expect(tag(ask, 'gen_ai.usage.input_tokens')).toBe(120);
    expect(tag(ask, 'gen_ai.usage.output_tokens')).toBe(30);
    expect(tag(ask, 'll_loop.cost_usd')).toBe(0.25);
    expect(tag(ask, 'gen_ai.operation.name')).toBe('invoke_agent');
    // A workflow's spans carry its run's ids (worker/span-sink.ts), not the rest of its WorkflowInfo.
    const run = one('ll-loop.run traced');
    expect(tag(run, 'workflowType')).toBe('loopWorkflow');
    expect(tag(run, 'runId')).toEqual(expect.any(String));
    expect(run.tags.map((t) => t.key)).not.toContain('historyLength');
    // Names and numbers only: the prompt's text is in no span.
    expect(JSON.stringify(spans)).not.toContain('Say done');
  });

  it('quick actions in bursts: the states a burst ran are one span listing them', async () => {
    const id = await started('quick');
    await finished(id);
    const names = (spans: JaegerSpan[]) => spans.map((s) => s.operationName);
    const [trace] = await traceOf(id, (spans) =>
      ['ll-loop.run quick', 'state done', 'burst b'].every((n) => names(spans).includes(n)),
    );
    const spans = trace!.spans;
    const byId = new Map(spans.map((s) => [s.spanID, s]));
    const parentName = (s: JaegerSpan) => byId.get(parentOf(s) ?? '')?.operationName;
    const ours = names(spans).filter((n) => /^(state|action|burst) /.test(n));
    expect(ours.sort()).toEqual(['action a', 'burst b', 'state a', 'state done']);
    const burst = spans.find((s) => s.operationName === 'burst b')!;
    expect(parentName(burst)).toBe('ll-loop.run quick');
    // Jaeger shows an array attribute as its JSON.
    const list = (key: string) => {
      const v = tag(burst, key);
      return typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
    };
    expect(list('ll_loop.burst.states')).toEqual(['b', 'c']);
    expect(list('ll_loop.burst.exit_codes')).toEqual([1, 0]);
    expect(list('ll_loop.burst.duration_ms')).toEqual([expect.any(Number), expect.any(Number)]);
    expect(tag(burst, 'll_loop.iteration')).toEqual(expect.any(Number));
    // The burst's local activity runs under its first action's span.
    expect(
      spans.some((s) => /^(Start|Run)Activity:runBurst$/.test(s.operationName) && parentName(s) === 'action a'),
    ).toBe(true);
  });

  it('SIGKILL of the worker mid-run: the replay exports no span twice', async () => {
    const id = await started('restart');
    // The first state's span has left the worker, and the second state's action is running.
    await traceOf(id, (spans) => spans.some((s) => s.operationName === 'state first'));
    await waitFor('the held action', () => livePids(`traces-hold-${process.pid}`).length > 0, 60_000);
    const killed = workerPid();
    process.kill(killed, 'SIGKILL');
    await waitFor('the worker to die', () => !pidAlive(killed));
    writeFileSync(join(dir, 'go'), '');
    // Any command brings the checkout's worker back; it replays the run and goes on.
    expect((await cli(['list'])).code).toBe(0);
    await finished(id);
    const traces = await traceOf(id, (spans) =>
      ['state third', 'state done', 'll-loop.run restart'].every((n) => spans.some((s) => s.operationName === n)),
    );
    const spans = traces.flatMap((t) => t.spans);
    const count = (name: string) => spans.filter((s) => s.operationName === name).length;
    for (const state of ['first', 'second', 'third', 'done']) expect(count(`state ${state}`), state).toBe(1);
    expect(count('action first')).toBe(1);
    expect(count('ll-loop.run restart')).toBe(1);
    expect(new Set(spans.map((s) => s.spanID)).size).toBe(spans.length);
    expect(traces).toHaveLength(1);
  });
});
