import { CancelledFailure, Context } from '@temporalio/activity';
import { expectedFailure } from './expected-failure.js';
import type { Client } from '@temporalio/client';
import type { ActionResult, EnvRef, RunActionInput } from '../fsm/types.js';
import { UndefinedEnvError, resolveEnvRef, secretValues } from './env-refs.js';
import { hostArgs, hostCli, hostNotFoundMessage, promptArgs } from './host-cli.js';
import { SpawnError, runProcess, type RunProcessOptions } from './process.js';
import { liveOutputPath } from './live-output.js';
import { StreamJsonLive } from './stream-json-live.js';
import { maskableSecrets } from './secret-mask.js';
import { hostRateLimit } from './rate-limit.js';
import { runPromptByProvider } from './prompt-provider.js';
import { HEARTBEAT_MS } from './heartbeat.js';
import { fromEnvelope } from './host-envelope.js';
import type { LlmProviderRequest } from '../fsm/types.js';
import type { RunStreamEvent } from '../fsm/run/events.js';
import type { WorkerPlace } from './placement.js';
import { readJournal, writeJournal } from './action-journal.js';
import { actionLaunch, checkoutLister, spawnerHold, type Launch } from './action-spawner.js';
import type { ListFiles } from './checkout-files.js';
import { guardedAction } from './tamper-guard.js';
import { ListingAhead } from './listing-ahead.js';
import { prepatchAction } from './prepatch.js';
import { runBurstAfter, type BurstRunner } from './burst-after.js';
import type { ActionCall, ActionOutcome } from '../workflows/activity-types.js';
import {
  ShellSetupFault,
  checkedResult,
  definedEnv,
  fileSafe,
  runShellAction,
  runningLogPath,
  setupErrorResult,
  withSignal,
} from './shell-action.js';

/** What the activities read from the worker (injectable for tests). */
export interface ActivityDeps {
  /**
   * The environment of every run's processes: the only source of `${env.*}` values, host CLI
   * settings and API keys, and the whole environment of the processes a run starts (tests, and
   * a process serving one run). Default: {@link envFor}'s.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * A run's environment, by workflow id (activities/action-env.ts runEnvSource: its command's,
   * its schedule's, else the worker's minimal one); used when `env` is not given. Neither given
   * (direct calls): `process.env`.
   */
  envFor?: (workflowId: string) => NodeJS.ProcessEnv | undefined;
  /** Where this worker is, for portable runs (activities/placement.ts); unset: it takes none. */
  place?: WorkerPlace;
  /**
   * A Temporal client, for the scope lock's activities (signal-with-start the lock workflow,
   * describe runs). createLoopWorker makes one on the worker's own connection when it is absent.
   */
  client?: Client;
  /**
   * Where completed actions are journaled (activities/action-journal.ts), so that one whose
   * completion was lost is not run again; unset: no journal (direct calls, tests of one action).
   */
  journalDir?: string;
  /**
   * The events a run records once its workflow feeds what an activity decided ahead of it (the
   * state the quick actions after an action enter: activities/burst-after.ts), for the worker's
   * live copy of the run's events (worker/event-hub.ts `ahead`); unset: none are shown ahead.
   */
  eventsAhead?: (workflowId: string, events: readonly RunStreamEvent[]) => void;
}

/** The environment one call of an activity sees for run `workflowId` (undefined: process.env). */
export function injectedEnv(deps: ActivityDeps, workflowId: string): NodeJS.ProcessEnv | undefined {
  return deps.env ?? deps.envFor?.(workflowId);
}

/** The current Temporal activity context, or undefined when called as a plain function. */
export function currentContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    // Context.current() throws outside an activity (tests, direct calls).
    return undefined;
  }
}

/** Heartbeat and cancellation wiring for {@link runProcess} inside an activity (no-ops outside). */
export function activityHooks(
  state: string,
  stop?: AbortSignal,
): {
  signal?: AbortSignal;
  onHeartbeat?: () => void;
  /** Throws the activity's cancellation when `result` reports one; Temporal records it as cancelled. */
  rethrowIfCancelled: (result: ActionResult) => void;
} {
  const ctx = currentContext();
  // `stop`: the caller's own reason to kill the process too (a burst's loop deadline); an action
  // killed by it alone is a result for that caller, not the activity's cancellation.
  if (ctx === undefined) return { ...(stop ? { signal: stop } : {}), rethrowIfCancelled: () => undefined };
  const start = performance.now();
  return {
    signal: stop ? AbortSignal.any([ctx.cancellationSignal, stop]) : ctx.cancellationSignal,
    // A no-op in local activities; cancellation still arrives through the signal there.
    onHeartbeat: () => ctx.heartbeat({ state, elapsed_ms: Math.round(performance.now() - start) }),
    rethrowIfCancelled: (result) => {
      if (result.error !== 'cancelled' || (stop?.aborted && !ctx.cancellationSignal.aborted)) return;
      const reason: unknown = ctx.cancellationSignal.reason;
      throw reason instanceof Error ? reason : new CancelledFailure('activity cancelled');
    },
  };
}

// Where a run's files go, and what an action that could not be prepared returns: shell-action.ts.
export { definedEnv, fileSafe, runningLogPath } from './shell-action.js';

/**
 * Builds the `runAction` activity: runs one shell or prompt action to completion.
 *
 * A non-zero exit, a timeout or a missing host CLI are RESULTS. Throws only for cancellation
 * (rethrown from the activity context), for setup faults that retrying cannot fix
 * (`ActionSetupError`, BENIGN: missing cwd, missing bash) and for unexpected
 * faults (plain errors, retried by Temporal).
 */
export function makeRunAction(
  deps: ActivityDeps = {},
  launch: Launch = actionLaunch(),
  list: ListFiles = checkoutLister(),
  hold: () => () => void = spawnerHold(),
  ahead: ListingAhead = new ListingAhead(() => undefined),
  burst?: BurstRunner,
): (input: ActionCall) => Promise<ActionOutcome> {
  // A shell action's process is started by the worker's action spawner once it is up (action-spawner.ts).
  const runOnce = runActionOnce(deps, launch);
  // A guarded state's test files are compared around its action (activities/tamper-guard.ts), and
  // a check with prepatch_check is run again before the patch (activities/prepatch.ts); the test
  // files are listed by the spawner too when it is up.
  const guarded = guardedAction(
    prepatchAction((input: RunActionInput): Promise<ActionResult> => runOnce(input)),
    list,
  );
  // The spawner stays while any other action runs (an MCP tool, a provider's prompt, or a host
  // prompt's agent started here while the spawner was not up yet): the guard's listing after it
  // and the next action find it up, instead of a fork from the worker and a new spawner.
  // A guarded action takes the listing made ahead of it (activities/listing-ahead.ts); a shell
  // action's end may have one made for the guarded action that comes next.
  const once = async (input: RunActionInput): Promise<ActionResult> => {
    const isGuarded = input.tamper_guard !== undefined;
    let listedAhead: Promise<string[] | undefined> | undefined;
    if (isGuarded) listedAhead = ahead.enterGuarded(input.cwd);
    else ahead.enter();
    const release = input.kind === 'shell' ? undefined : hold();
    try {
      return await guarded(input, listedAhead);
    } finally {
      release?.();
      ahead.leave(isGuarded || input.kind === 'shell' ? input.cwd : undefined, isGuarded);
    }
  };
  // The quick actions after the action, when the run asks for them (activities/burst-after.ts).
  const withBurstAfter = async (input: ActionCall, result: ActionResult, id: string): Promise<ActionOutcome> => {
    if (burst === undefined || input.burst_after === undefined) return result;
    const after = await runBurstAfter(input, result, `after-${id}`, burst, currentContext(), deps.eventsAhead);
    return after === undefined ? result : { ...result, burst_after: after };
  };
  const journalDir = deps.journalDir;
  return async function runAction(input: ActionCall): Promise<ActionOutcome> {
    const ctx = currentContext();
    const workflowExecution = ctx?.info.workflowExecution;
    if (journalDir === undefined || ctx === undefined || workflowExecution === undefined)
      return withBurstAfter(input, await once(input), ctx?.info.activityId ?? input.state);
    // The run's name for the call when it gives one (every schedule of the call shares it), else
    // the activity id (shared by Temporal's retries of one schedule only).
    const activityId = input.call_key === undefined ? ctx.info.activityId : `call-${input.call_key}`;
    const key = { workflowId: workflowExecution.workflowId, runId: workflowExecution.runId, activityId };
    const done = readJournal(journalDir, key);
    if (done !== undefined) {
      ctx.log.warn(
        `state ${input.state}: this action completed before (attempt ${ctx.info.attempt}); its result is delivered again from the journal, not run again`,
        { workflowId: key.workflowId, activityId },
      );
      return withBurstAfter(input, { ...done, redelivered: true }, activityId);
    }
    const result = await once(input);
    try {
      writeJournal(journalDir, key, input.state, result);
    } catch (err) {
      // The result still goes to the run; only a lost completion of it could run it again.
      ctx.log.warn(
        `state ${input.state}: could not journal the action's result (${(err as Error).message}); should its completion be lost, it runs again`,
      );
    }
    return withBurstAfter(input, result, activityId);
  };
}

/**
 * One action, run once (no journal): `runAction`'s body. A shell action is
 * activities/shell-action.ts's, as each action of a burst is. `stop` kills the action's process
 * group as a cancellation does. `startProcess` starts a shell action's or a host prompt's
 * process: {@link runProcess} here, or the action spawner's (activities/action-spawner.ts), which
 * runs the same code in a small process of its own (a fork from the worker cost 12 ms of its main
 * thread per agent call at 200 MB).
 */
function runActionOnce(
  deps: ActivityDeps,
  startProcess: (opts: RunProcessOptions) => Promise<ActionResult> = runProcess,
): (input: RunActionInput, stop?: AbortSignal) => Promise<ActionResult> {
  return async function runAction(input: RunActionInput, stop?: AbortSignal): Promise<ActionResult> {
    const injected = injectedEnv(deps, input.instanceId);
    const workerEnv = injected ?? process.env;
    if (input.kind === 'mcp') {
      const mcpHooks = activityHooks(input.state);
      // Loaded on first use: the MCP SDK is not needed by a worker whose runs call no tool.
      const { runMcpTool } = await import('./mcp-tool.js');
      return runMcpTool(input, workerEnv, {
        signal: mcpHooks.signal,
        onHeartbeat: mcpHooks.onHeartbeat,
        heartbeatMs: HEARTBEAT_MS,
      });
    }
    if (input.kind === 'prompt' && input.llm !== undefined)
      return runProviderPrompt({ ...input, llm: input.llm }, workerEnv);
    const hooks = activityHooks(input.state, stop);
    if (input.kind === 'shell') {
      let result: ActionResult;
      try {
        result = await runShellAction(input, injected, startProcess, {
          ...(hooks.signal ? { signal: hooks.signal } : {}),
          ...(hooks.onHeartbeat ? { onHeartbeat: hooks.onHeartbeat, heartbeatMs: HEARTBEAT_MS } : {}),
        });
      } catch (e) {
        if (e instanceof ShellSetupFault) throw expectedFailure(e.message, e.type);
        throw e;
      }
      hooks.rethrowIfCancelled(result);
      return result;
    }
    return runHostPrompt(input, injected, hooks, startProcess);
  };
}

/** A prompt state run by the host CLI (claude, …): the prompt on its stdin, its JSON envelope read. */
async function runHostPrompt(
  input: RunActionInput,
  injected: NodeJS.ProcessEnv | undefined,
  hooks: ReturnType<typeof activityHooks>,
  startProcess: (opts: RunProcessOptions) => Promise<ActionResult>,
): Promise<ActionResult> {
  const workerEnv = injected ?? process.env;
  // The host CLI's whole environment: the run's (activities/action-env.ts).
  const env = definedEnv(workerEnv);
  if (input.prompt === undefined) return setupErrorResult(`state ${input.state}: prompt action without a prompt`);
  let prompt: string;
  try {
    prompt = renderPrompt(input.prompt.parts, input.state, workerEnv);
  } catch (e) {
    if (e instanceof UndefinedEnvError) return setupErrorResult(e.message);
    throw e;
  }
  const own = input.prompt.parts.flatMap((p) => (typeof p === 'string' ? [] : [p.name]));
  const secrets = maskableSecrets(secretValues(own, input.mask_env, workerEnv));
  const cli = hostCli(workerEnv);
  const file = cli.binary;
  const args = hostArgs(
    cli,
    promptArgs({
      agent: input.agent,
      tools: input.tools,
      model: input.model,
      resume: input.resume_session,
    }),
  );
  // The agent's context monitor hands off at this percentage (the loop's config.handoff_threshold).
  if (input.handoff_threshold !== undefined) env['LL_HANDOFF_THRESHOLD'] = String(input.handoff_threshold);
  const logPath = runningLogPath(input.cwd, input.instanceId, `${input.step}-${fileSafe(input.state)}.log`);
  let result: ActionResult;
  try {
    // Prompts run in the worker: only shell actions are quick enough for the spawn to matter.
    result = await startProcess({
      file,
      args,
      cwd: input.cwd,
      env,
      // On stdin, not in argv (host-cli.ts promptArgs).
      input: prompt,
      secrets,
      timeoutMs: input.timeout_s * 1000,
      ...(input.idle_timeout_s === undefined ? {} : { idleTimeoutMs: input.idle_timeout_s * 1000 }),
      signal: hooks.signal,
      onHeartbeat: hooks.onHeartbeat,
      heartbeatMs: HEARTBEAT_MS,
      logPath,
      livePath: liveOutputPath(logPath),
      // The agent's stream-json lines shown as text, tool calls and errors.
      liveView: new StreamJsonLive(secrets),
    });
  } catch (e) {
    if (!(e instanceof SpawnError)) throw e;
    if (e.reason === 'cwd') throw expectedFailure(e.message, 'ActionSetupError');
    if (e.reason === 'not_found') return setupErrorResult(hostNotFoundMessage(file), 127);
    if (e.code === 'EACCES') {
      return setupErrorResult(`host CLI '${file}' is not executable; fix its permissions or set LL_HOST_CLI`, 126);
    }
    if (e.code === 'E2BIG')
      return setupErrorResult(
        `state ${input.state}: the prompt's environment is too large to start the host CLI (${e.message})`,
        126,
      );
    throw new Error(e.message, { cause: e });
  }
  hooks.rethrowIfCancelled(result);
  // The host CLI's envelope (stream-json's last line, or a `json` envelope from another host CLI):
  // its result text is the output, with usage; an error envelope is a failed run (exit 1).
  result = fromEnvelope(result, secrets);
  if (input.detect_rate_limits && !result.timed_out) {
    const limit = hostRateLimit(result.output, result.stderr, {
      failed: result.exit_code !== 0,
      now: Date.now(),
      jitter: Math.random(),
    });
    if (limit !== undefined) return { ...result, rate_limit: limit };
  }
  return checkedResult(input, withSignal(input, result));
}

/** A prompt state under an API provider: one completion (activities/prompt-provider.ts). */
async function runProviderPrompt(
  input: RunActionInput & { llm: LlmProviderRequest },
  workerEnv: NodeJS.ProcessEnv,
): Promise<ActionResult> {
  const hooks = activityHooks(input.state);
  try {
    const log = runningLogPath(input.cwd, input.instanceId, `${input.step}-${fileSafe(input.state)}.log`);
    return checkedResult(
      input,
      withSignal(
        input,
        await runPromptByProvider(
          input,
          workerEnv,
          {
            ...(hooks.signal ? { signal: hooks.signal } : {}),
            ...(hooks.onHeartbeat ? { onHeartbeat: hooks.onHeartbeat } : {}),
          },
          log,
        ),
      ),
    );
  } catch (e) {
    if (e instanceof UndefinedEnvError) return setupErrorResult(e.message);
    throw e;
  }
}

/** Joins prompt parts, filling `${env.*}` references from the worker environment. */
function renderPrompt(parts: Array<string | EnvRef>, state: string, env: NodeJS.ProcessEnv): string {
  let text = '';
  for (const p of parts) text += typeof p === 'string' ? p : resolveEnvRef(p, state, env);
  return text;
}
