/**
 * Running loops on the test run's real Temporal dev server: a real worker with the real
 * activities on a unique task queue, and the run's live events collected from the sinks.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure, defineSearchAttributeKey } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import type { ExecutionResult } from '../../fsm/types.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { resolveContext } from '../../fsm/definition/context.js';
import { createLoopWorker, installQuietRuntime } from '../../worker/create-worker.js';
import type { TimedEvent as DeliveredEvent } from '../../fsm/run/events.js';

/** A delivered event, its fields read by name (tests look at fields of events they filtered by name). */
export type TimedEvent = DeliveredEvent & { [field: string]: unknown };
import type { DoneSnapshot } from '../../fsm/run/snapshot.js';
import { closing } from '../../fsm/run/outcome.js';
import { snapshotOfClosedRun } from '../../runs/resume/resumable.js';
import { resultInFailure } from '../../runs/find/run-result.js';
import { LOOP_WORKFLOW_TYPE, type LoopRunResult, type LoopWorkflowInput } from '../../workflows/definitions.js';
import { RUN_RULE_KEYS, type RunRules } from '../../workflows/run-options.js';
import { retiredRunRules } from '../../workflows/run-rules.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

type Shared = { client: Client; connection: Connection; native: NativeConnection };
/** A promise, so that tests of a file running concurrently share one pair of connections. */
let shared: Promise<Shared> | undefined;

export async function temporal(): Promise<{ client: Client; native: NativeConnection }> {
  shared ??= (async () => {
    installQuietRuntime('ERROR');
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    const native = await NativeConnection.connect({ address });
    return { client: new Client({ connection }), connection, native };
  })();
  return shared;
}

export async function closeTemporal(): Promise<void> {
  if (!shared) return;
  const closing = await shared;
  shared = undefined;
  await closing.native.close();
  await closing.connection.close();
}

/** A definition from a plain object, validated with defaults applied (throws on errors). */
export function definition(raw: Record<string, unknown>): LoopDefinition {
  const result = validateLoop(raw);
  if (!result.definition) throw new Error(`invalid test loop: ${JSON.stringify(result.diagnostics, null, 2)}`);
  return { ...result.definition, context: resolveContext(result.definition.context) };
}

/** A project directory with a `bin/` of fake tools (and fake-claude as `claude`) for PATH. */
export function project(tools: string[] = []): { cwd: string; bin: string; toolsDir: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-it-'));
  const bin = join(cwd, 'bin');
  const toolsDir = join(cwd, 'tools');
  mkdirSync(bin);
  mkdirSync(toolsDir);
  for (const tool of tools) symlinkSync(join(FIXTURES, 'fake-tool'), join(bin, tool));
  copyFileSync(join(FIXTURES, 'fake-claude'), join(bin, 'claude'));
  chmodSync(join(bin, 'claude'), 0o755);
  return { cwd, bin, toolsDir };
}

/** Script a fake tool: one `[exitCode, stdout]` per call. */
export function script(toolsDir: string, tool: string, calls: Array<[number, string?]>): void {
  writeFileSync(
    join(toolsDir, `${tool}.script`),
    calls.map(([code, out]) => `${code}\t${(out ?? '').replaceAll('\n', '\\n')}`).join('\n') + '\n',
  );
}

/** Script fake-claude's judgements, in order. */
export function verdicts(cwd: string, items: Array<Record<string, unknown>>): string {
  const file = join(cwd, 'verdicts.jsonl');
  writeFileSync(file, items.map((v) => JSON.stringify(v)).join('\n') + '\n');
  return file;
}

export interface RunOutcome {
  result: ExecutionResult;
  /** The final snapshot the workflow returned with its result. */
  snapshot: LoopRunResult['snapshot'];
  events: TimedEvent[];
  /** States in the order they were entered. */
  states: string[];
  /** Events of sub-loops (any depth), as the run's listeners receive them (`subloop` set). */
  childEvents: TimedEvent[];
  workflowId: string;
}

/**
 * How a test runs a loop: where, with what environment, and which run rules (RunRules,
 * workflows/run-options.ts, says what each means), each `true` as a release sets it. The retired
 * rules (workflows/run-rules.ts) are always on, as in every run a worker of this release serves.
 */
export interface RunLoopOptions extends RunRules {
  cwd: string;
  /** The worker's environment for actions (merged over process.env). */
  env?: Record<string, string>;
  localActivityMaxTimeoutS?: number;
  historyEventLimit?: number;
  /** Called once the workflow has started (e.g. to cancel it). */
  onStarted?: (workflowId: string) => void | Promise<void>;
  /** LoopWorkflowInput.dataContext: context keys given on the command line. */
  dataContext?: string[];
  /** Start from an earlier run's snapshot (`resume`, or `rerun` with `fork`). */
  continueFrom?: LoopWorkflowInput['continueFrom'];
}

/** The rules `opts` asks for and the retired ones, as the workflow input carries them (absent, never `false`). */
function rulesOf(opts: RunLoopOptions): RunRules {
  const retired = new Set<string>(retiredRunRules());
  const on = RUN_RULE_KEYS.filter((key) => retired.has(key) || opts[key] === true);
  return Object.fromEntries(on.map((key) => [key, true]));
}

/** Run a loop to its end on a fresh worker; returns the result and the live events. */
export async function runLoop(def: LoopDefinition, opts: RunLoopOptions): Promise<RunOutcome> {
  const { client, native } = await temporal();
  const taskQueue = `it-${randomUUID()}`;
  const workflowId = `${def.name}-${randomUUID().slice(0, 8)}`;
  const env = { ...process.env, ...(opts.env ?? {}) } as NodeJS.ProcessEnv;
  const { worker, events } = await createLoopWorker({ connection: native, taskQueue, activityDeps: { env } });
  const collected: TimedEvent[] = [];
  const childEvents: TimedEvent[] = [];
  events.subscribe(workflowId, (e) => (e.subloop ? childEvents : collected).push(e));
  const input: LoopWorkflowInput = {
    definition: def,
    options: {
      cwd: opts.cwd,
      searchAttributes: true,
      localActivityMaxTimeoutS: opts.localActivityMaxTimeoutS ?? 0,
      ...(opts.historyEventLimit === undefined ? {} : { historyEventLimit: opts.historyEventLimit }),
      ...rulesOf(opts),
    },
    ...(opts.dataContext ? { dataContext: opts.dataContext } : {}),
    ...(opts.continueFrom ? { continueFrom: opts.continueFrom } : {}),
  };
  const { snapshot, ...result } = await worker.runUntil(async () => {
    await client.workflow.start(LOOP_WORKFLOW_TYPE, {
      workflowId,
      taskQueue,
      args: [input],
      memo: { cwd: opts.cwd, loop: def.name },
      typedSearchAttributes: [{ key: defineSearchAttributeKey('LoopName', 'KEYWORD'), value: def.name }],
    });
    await opts.onStarted?.(workflowId);
    return loopRunResult(client, workflowId);
  });
  await events.close();
  const states = collected.filter((e) => e.event === 'state_enter').map((e) => String(e.state));
  return { result, snapshot, events: collected, states, childEvents, workflowId };
}

/**
 * The run's result and final snapshot however its workflow closed: Completed (a success
 * terminal), Failed with `LoopFailed` (its details), or Canceled (stopped: the snapshot is read
 * back by replaying its history, as `resume` does).
 */
export async function loopRunResult(client: Client, workflowId: string): Promise<LoopRunResult> {
  try {
    return (await client.workflow.getHandle(workflowId).result()) as LoopRunResult;
  } catch (err) {
    const failed = resultInFailure(err);
    if (failed) return failed;
    if (!(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure)) throw err;
    const snapshot = (await snapshotOfClosedRun(client, workflowId)) as DoneSnapshot;
    return { ...snapshot.outcome, snapshot };
  }
}

/** How a run's workflow closes for its result (fsm/run/outcome.ts), as a follower's `end.status` reads it. */
export function closedAs(result: ExecutionResult): 'completed' | 'failed' | 'canceled' {
  const close = closing(result);
  return close.kind === 'complete' ? 'completed' : close.kind === 'cancel' ? 'canceled' : 'failed';
}

/** PATH with the project's fake tools first, and the settings fake-claude and fake-tool read. */
export function toolEnv(
  p: { bin: string; toolsDir: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return { PATH: `${p.bin}:${process.env.PATH ?? ''}`, FAKE_TOOLS_DIR: p.toolsDir, ...extra };
}
