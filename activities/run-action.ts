import { checkOutput } from './output-check.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CancelledFailure, Context } from '@temporalio/activity';
import { expectedFailure } from './expected-failure.js';
import type { Client } from '@temporalio/client';
import type { ActionResult, EnvRef, RunActionInput } from '../fsm/types.js';
import { UndefinedEnvError, resolveEnvRef, resolveEnvRefs, secretValues } from './env-refs.js';
import { hostArgs, hostCli, hostNotFoundMessage, promptArgs } from './host-cli.js';
import { SpawnError, runProcess, type RunProcessOptions } from './process.js';
import { liveOutputPath } from './live-output.js';
import { maskableSecrets } from './secret-mask.js';
import { hostRateLimit } from './rate-limit.js';
import { runPromptByProvider } from './prompt-provider.js';
import { HEARTBEAT_MS } from './heartbeat.js';
import { fromEnvelope } from './host-envelope.js';
import { detectStdoutSignal } from '../fsm/stdout-signals.js';
import type { LlmProviderRequest } from '../fsm/llm-provider.js';
import { prepareShell, type ShellLaunch } from './shell-launch.js';
import type { WorkerPlace } from './placement.js';
import { readJournal, writeJournal } from './action-journal.js';
import { actionLaunch, type Launch } from './action-spawner.js';

/** What the activities read from the worker (injectable for tests). */
export interface ActivityDeps {
  /**
   * The worker environment: the only source of `${env.*}` values and host CLI settings, and
   * overlaid on `process.env` for children. Default: `process.env`.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The environment a run's command left for it (host/run-env.ts), by workflow id; used when
   * `env` is not injected. Undefined for a run without one: the worker's own environment.
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

/** Makes a name safe as one path segment (state names and workflow ids may hold anything). */
export function fileSafe(name: string): string {
  const s = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  return s === '' || s === '.' || s === '..' ? '_' : s;
}

/**
 * `<cwd>/.loops/.running/<instanceId>/<file>`: where full outputs of a run go. Only a path: the
 * writer makes the directories (git-ignored, loader/runtime-dir.ts) when an output is large
 * enough to need a file, so a run of small outputs leaves nothing in the project.
 */
export function runningLogPath(cwd: string, instanceId: string, file: string): string {
  // A scheduled run's `:` becomes `-`, as in its events and state files (host/run-files.ts runFileStem).
  return join(cwd, '.loops', '.running', fileSafe(instanceId.replaceAll(':', '-')), file);
}

/** Entries of `env` that are set, as the plain record execa wants. */
export function definedEnv(env: NodeJS.ProcessEnv | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (env === undefined) return out;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** An action that could not be prepared: an error verdict for the workflow, not a fault. */
function setupErrorResult(message: string, exitCode = 2): ActionResult {
  return { output: '', stderr: message, exit_code: exitCode, duration_ms: 0, error: message };
}

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
): (input: RunActionInput) => Promise<ActionResult> {
  // A shell action's process is started by the worker's action spawner once it is up (action-spawner.ts).
  const runOnce = runActionOnce(deps, launch);
  const once = (input: RunActionInput): Promise<ActionResult> => runOnce(input);
  const journalDir = deps.journalDir;
  if (journalDir === undefined) return once;
  return async function runAction(input: RunActionInput): Promise<ActionResult> {
    const ctx = currentContext();
    const workflowExecution = ctx?.info.workflowExecution;
    if (ctx === undefined || workflowExecution === undefined) return once(input);
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
      return { ...done, redelivered: true };
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
    return result;
  };
}

/**
 * One action, run once (no journal): `runAction`'s body, also what a burst runs for each of its
 * actions (activities/run-burst.ts). `stop` kills the action's process group as a cancellation does.
 * `startProcess` starts a shell action's process: {@link runProcess} here, or the action spawner's
 * (activities/action-spawner.ts), which runs the same code in a small process of its own.
 */
export function runActionOnce(
  deps: ActivityDeps,
  startProcess: (opts: RunProcessOptions) => Promise<ActionResult> = runProcess,
): (input: RunActionInput, stop?: AbortSignal) => Promise<ActionResult> {
  return async function runAction(input: RunActionInput, stop?: AbortSignal): Promise<ActionResult> {
    let file: string;
    let args: string[];
    let stdin: string | undefined;
    let launch: ShellLaunch | undefined;
    let secrets: Buffer[];
    const injected = injectedEnv(deps, input.instanceId);
    const workerEnv = injected ?? process.env;
    // Only an injected environment needs copying; process.env is inherited by execa (extendEnv).
    const env = definedEnv(injected);
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
    try {
      if (input.kind === 'shell') {
        const shell = input.shell;
        if (shell === undefined) return setupErrorResult(`state ${input.state}: shell action without a command`);
        const envValues = resolveEnvRefs(shell.env, input.state, workerEnv).values;
        secrets = maskableSecrets(
          secretValues(
            Object.values(shell.env).map((r) => r.name),
            input.mask_env,
            workerEnv,
          ),
        );
        // Large values through files, not argv/environment (shell-launch.ts).
        launch = prepareShell(shell.script, { ...shell.vars, ...envValues });
        Object.assign(env, launch.env);
        file = 'bash';
        args = launch.args;
      } else {
        if (input.prompt === undefined) return setupErrorResult(`state ${input.state}: prompt action without a prompt`);
        const prompt = renderPrompt(input.prompt.parts, input.state, workerEnv);
        const own = input.prompt.parts.flatMap((p) => (typeof p === 'string' ? [] : [p.name]));
        secrets = maskableSecrets(secretValues(own, input.mask_env, workerEnv));
        const cli = hostCli(workerEnv);
        file = cli.binary;
        args = hostArgs(cli, promptArgs({ agent: input.agent, tools: input.tools, model: input.model }));
        // On stdin, not in argv (host-cli.ts promptArgs).
        stdin = prompt;
      }
    } catch (e) {
      if (e instanceof UndefinedEnvError) return setupErrorResult(e.message);
      throw e;
    }

    // The agent's context monitor hands off at this percentage (the loop's config.handoff_threshold).
    if (input.handoff_threshold !== undefined) env['LL_HANDOFF_THRESHOLD'] = String(input.handoff_threshold);
    const hooks = activityHooks(input.state, stop);
    const logPath = runningLogPath(input.cwd, input.instanceId, `${input.step}-${fileSafe(input.state)}.log`);
    let result: ActionResult;
    try {
      // Prompts stay in the worker: only shell actions are quick enough for the spawn to matter.
      result = await (input.kind === 'shell' ? startProcess : runProcess)({
        file,
        args,
        cwd: input.cwd,
        env,
        ...(stdin === undefined ? {} : { input: stdin }),
        secrets,
        timeoutMs: input.timeout_s * 1000,
        signal: hooks.signal,
        onHeartbeat: hooks.onHeartbeat,
        heartbeatMs: HEARTBEAT_MS,
        logPath,
        // Watched while it runs (ll-loop ui, logs --follow): activities/live-output.ts.
        livePath: liveOutputPath(logPath),
      });
    } catch (e) {
      if (!(e instanceof SpawnError)) throw e;
      if (e.reason === 'cwd') throw expectedFailure(e.message, 'ActionSetupError');
      if (input.kind === 'prompt' && e.reason === 'not_found') return setupErrorResult(hostNotFoundMessage(file), 127);
      if (input.kind === 'prompt' && e.code === 'EACCES') {
        return setupErrorResult(`host CLI '${file}' is not executable; fix its permissions or set LL_HOST_CLI`, 126);
      }
      if (e.reason === 'not_found')
        throw expectedFailure(`${e.message} (bash is required on the worker)`, 'ActionSetupError');
      // The arguments or environment are too large for the OS (large values go through files,
      // activities/shell-launch.ts, but an action may still build a huge one): retrying cannot help.
      if (e.code === 'E2BIG')
        return setupErrorResult(
          `state ${input.state}: the action's arguments and environment are too large to start it (${e.message}); pass large data through a file`,
          126,
        );
      throw new Error(e.message, { cause: e });
    } finally {
      launch?.cleanup();
    }
    hooks.rethrowIfCancelled(result);
    // A host CLI's JSON envelope (--output-format json): its result text is the output, with usage;
    // an error envelope is a failed run (exit 1).
    if (input.kind === 'prompt') result = fromEnvelope(result, secrets);
    if (input.kind === 'prompt' && input.detect_rate_limits && !result.timed_out) {
      const limit = hostRateLimit(result.output, result.stderr, {
        failed: result.exit_code !== 0,
        now: Date.now(),
        jitter: Math.random(),
      });
      if (limit !== undefined) return { ...result, rate_limit: limit };
    }
    return checked(input, withSignal(input, result));
  };
}

/**
 * With RunActionInput.detect_signals: the stdout signal the action's output gives. A shell action's
 * cut output is read from its log file (its first and last MiB) so a signal printed early counts, as
 * in little-loops, which reads all of it; a prompt's output is the agent's answer, read as kept.
 */
function withSignal(input: RunActionInput, result: ActionResult): ActionResult {
  if (!input.detect_signals || result.error !== undefined) return result;
  const signal = detectStdoutSignal(fullShellOutput(input, result) ?? result.output);
  return signal === undefined ? result : { ...result, stdout_signal: signal };
}

function fullShellOutput(input: RunActionInput, result: ActionResult): string | undefined {
  if (input.kind !== 'shell' || !result.truncated || result.log_file === undefined) return undefined;
  try {
    return readFileSync(result.log_file, 'utf8');
  } catch {
    // The file is gone (or unreadable): the kept tail is all there is to read.
    return undefined;
  }
}

/** Only a successful action's output is checked: a failing one (non-zero exit, timed out, killed) is judged by its evaluator as any failure is. */
function checked(input: RunActionInput, result: ActionResult): ActionResult {
  if (input.output_schema !== undefined && result.exit_code === 0 && !result.timed_out && result.signal === undefined)
    return { ...result, output_check: checkOutput(input.output_schema, result) };
  return result;
}

/** A prompt state under an API provider: one completion (activities/prompt-provider.ts). */
async function runProviderPrompt(
  input: RunActionInput & { llm: LlmProviderRequest },
  workerEnv: NodeJS.ProcessEnv,
): Promise<ActionResult> {
  const hooks = activityHooks(input.state);
  try {
    const log = runningLogPath(input.cwd, input.instanceId, `${input.step}-${fileSafe(input.state)}.log`);
    return checked(
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
