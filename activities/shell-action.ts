/**
 * One shell action, from its request to its result: `${env.*}` resolved from its run's
 * environment (activities/action-env.ts), the values it masks, its `bash` started with exactly
 * that environment (large values through files: shell-launch.ts), its output captured, then its
 * stdout signal and `output_schema` read.
 *
 * Shared by the `runAction` activity and by bursts wherever they run (the worker, or its action
 * spawner: activities/burst-loop.ts), so it imports nothing of Temporal's: a fault it cannot turn
 * into a result is thrown as a {@link ShellSetupFault} (retrying cannot help: the activity reports it
 * as an `ActionSetupError`) or as a plain error (a fault, retried).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ActionResult, RunActionInput } from '../fsm/types.js';
import { detectStdoutSignal } from '../fsm/stdout-signals.js';
import { UndefinedEnvError, resolveEnvRefs, secretValues } from './env-refs.js';
import { liveOutputPath } from './live-output.js';
import { SpawnError, type RunProcessOptions } from './process.js';
import { maskableSecrets } from './secret-mask.js';
import { prepareShell } from './shell-launch.js';
import { npmNothingToRunAsNotFound } from './npm-nothing-to-run.js';
import { notConfiguredAsNotRunnable } from './checker-not-configured.js';

/** How an action's process is started: runProcess itself, or through the action spawner. */
export type StartProcess = (opts: RunProcessOptions) => Promise<ActionResult>;

/** A fault of the machine, not of the action (no working directory, no bash): not worth a retry. */
export class ShellSetupFault extends Error {
  override readonly name = 'ShellSetupFault';
  /** The failure type the activity reports. */
  readonly type = 'ActionSetupError';
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

/** Entries of `env` that are set, as a plain record. */
export function definedEnv(env: NodeJS.ProcessEnv | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (env === undefined) return out;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** An action that could not be prepared: an error verdict for the workflow, not a fault. */
export function setupErrorResult(message: string, exitCode = 2): ActionResult {
  return { output: '', stderr: message, exit_code: exitCode, duration_ms: 0, error: message };
}

/** What the caller adds to the start of the process: a stop, and heartbeats while it runs. */
export interface ShellHooks {
  signal?: AbortSignal;
  onHeartbeat?: () => void;
  heartbeatMs?: number;
}

/**
 * Runs shell action `input` to its result. `injected`: the environment its run was given
 * (activities/action-env.ts), the action's whole environment (with ll-loop's `LL_*` for it) and
 * the only source of its `${env.*}` values; undefined: this process's own (direct calls).
 */
export async function runShellAction(
  input: RunActionInput,
  injected: NodeJS.ProcessEnv | undefined,
  startProcess: StartProcess,
  hooks: ShellHooks = {},
): Promise<ActionResult> {
  const shell = input.shell;
  if (shell === undefined) return setupErrorResult(`state ${input.state}: shell action without a command`);
  const workerEnv = injected ?? process.env;
  // Exactly the run's environment: nothing of the process that starts the action is added.
  const env = definedEnv(workerEnv);
  let envValues: Record<string, string>;
  try {
    envValues = resolveEnvRefs(shell.env, input.state, workerEnv).values;
  } catch (e) {
    if (e instanceof UndefinedEnvError) return setupErrorResult(e.message);
    throw e;
  }
  const secrets = maskableSecrets(
    secretValues(
      Object.values(shell.env).map((r) => r.name),
      input.mask_env,
      workerEnv,
    ),
  );
  // Large values through files, not argv/environment (shell-launch.ts).
  const launch = prepareShell(shell.script, { ...shell.vars, ...envValues });
  Object.assign(env, launch.env);
  // The agent's context monitor hands off at this percentage (the loop's config.handoff_threshold).
  if (input.handoff_threshold !== undefined) env['LL_HANDOFF_THRESHOLD'] = String(input.handoff_threshold);
  const logPath = runningLogPath(input.cwd, input.instanceId, `${input.step}-${fileSafe(input.state)}.log`);
  let result: ActionResult;
  try {
    result = await startProcess({
      file: 'bash',
      args: launch.args,
      cwd: input.cwd,
      env,
      secrets,
      timeoutMs: input.timeout_s * 1000,
      ...(input.idle_timeout_s === undefined ? {} : { idleTimeoutMs: input.idle_timeout_s * 1000 }),
      ...hooks,
      logPath,
      // Watched while it runs (ll-loop ui, logs --follow): activities/live-output.ts.
      livePath: liveOutputPath(logPath),
    });
  } catch (e) {
    if (!(e instanceof SpawnError)) throw e;
    if (e.reason === 'cwd') throw new ShellSetupFault(e.message);
    if (e.reason === 'not_found') throw new ShellSetupFault(`${e.message} (bash is required on the worker)`);
    // The arguments or environment are too large for the OS (large values go through files,
    // activities/shell-launch.ts, but an action may still build a huge one): retrying cannot help.
    if (e.code === 'E2BIG')
      return setupErrorResult(
        `state ${input.state}: the action's arguments and environment are too large to start it (${e.message}); pass large data through a file`,
        126,
      );
    throw new Error(e.message, { cause: e });
  } finally {
    launch.cleanup();
  }
  // npm having nothing to run (a tool npx --no would install, a missing script) is a command not
  // found (npm-nothing-to-run.ts); a linter without its configuration cannot run either.
  return checkedResult(input, withSignal(input, notConfiguredAsNotRunnable(npmNothingToRunAsNotFound(result))));
}

/**
 * With RunActionInput.detect_signals: the stdout signal the action's output gives. A shell action's
 * cut output is read from its log file (its first and last MiB) so a signal printed early counts, as
 * in little-loops, which reads all of it; a prompt's output is the agent's answer, read as kept.
 */
export function withSignal(input: RunActionInput, result: ActionResult): ActionResult {
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

/**
 * Only a successful action's output is checked: a failing one (non-zero exit, timed out, killed)
 * is judged by its evaluator as any failure is. The checker (ajv) loads with the first schema, so a
 * process that never checks one (the action spawner, mostly) never holds it.
 */
export async function checkedResult(input: RunActionInput, result: ActionResult): Promise<ActionResult> {
  const read =
    input.read_after === undefined ? result : { ...result, read_after: readAfter(input.cwd, input.read_after) };
  if (input.output_schema === undefined || read.exit_code !== 0 || read.timed_out || read.signal !== undefined)
    return read;
  const { checkOutput } = await import('./output-check.js');
  return { ...read, output_check: checkOutput(input.output_schema, read) };
}

/** A score history is small; its tail is what is judged, so a runaway file stays out of history. */
const READ_AFTER_MAX = 64 * 1024;

/** The file a state reads after its action (RunActionInput.read_after): its tail, empty when absent. */
function readAfter(cwd: string, file: string): { text: string } | { error: string } {
  try {
    const text = readFileSync(resolve(cwd, file), 'utf8');
    return { text: text.length > READ_AFTER_MAX ? text.slice(-READ_AFTER_MAX) : text };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { text: '' };
    return { error: `cannot read ${file}: ${(err as Error).message}` };
  }
}
