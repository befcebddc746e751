import { reaskText } from '../fsm/answer-check.js';
import { parseJsonText } from './json-text.js';
import type { LlmReply } from '../fsm/run/snapshot.js';
import type { ActionResult, EvaluateLlmInput } from '../fsm/types.js';
import { checkedAnswer } from './checked-answer.js';
import { hostArgs, hostCli, hostNotFoundMessage, llmJsonArgs } from './host-cli.js';
import { secretValues } from './env-refs.js';
import { answerObject, askProvider, callProvider } from './llm-providers.js';
import { isFileJudgeInput, judgeFiles, type JudgeAnswer } from './file-judges.js';
import { hostRateLimit } from './rate-limit.js';
import { parseEnvelope, runUsage } from './host-envelope.js';
import { SpawnError, runProcess } from './process.js';
import { maskValue, maskableSecrets } from './secret-mask.js';
import { HEARTBEAT_MS } from './heartbeat.js';
import { type ActivityDeps, activityHooks, definedEnv, fileSafe, injectedEnv, runningLogPath } from './run-action.js';

/** The question asked when the state gives no `prompt`. */
const DEFAULT_EVAL_PROMPT = 'Evaluate whether this action succeeded based on its output.';
/** How much of the action's output the judge sees (its end, where results usually are). */
const EVAL_OUTPUT_CHARS = 4000;
/** How much of the host CLI's output an error message quotes. */
const QUOTE_CHARS = 300;

/**
 * Builds the judge's prompt: the question, then the tail of the action output; asking again, how
 * the previous answer missed the schema (`schemaErrors`, one line each).
 */
export function evaluationPrompt(
  prompt: string | undefined,
  output: string,
  schemaErrors: readonly string[] = [],
): string {
  let tail = output.length > EVAL_OUTPUT_CHARS ? output.slice(-EVAL_OUTPUT_CHARS) : output;
  // Never start with the low half of a surrogate pair cut by the slice.
  if (/^[\uDC00-\uDFFF]/.test(tail)) tail = tail.slice(1);
  const question = `${prompt ?? DEFAULT_EVAL_PROMPT}\n\n<action_output>\n${tail}\n</action_output>`;
  return schemaErrors.length === 0 ? question : `${question}\n\n${reaskText(schemaErrors)}`;
}

/**
 * Builds the `evaluateLlm` activity: asks the host CLI for a structured judgement of an output
 * and returns it as read (the core judges it: confidence gate, `_uncertain` suffix).
 *
 * Never throws except to propagate cancellation: every failure (host missing, non-zero exit,
 * timeout, unparseable output, no verdict) becomes `{ error }` with the reason.
 */
export function makeEvaluateLlm(deps: ActivityDeps = {}): (input: EvaluateLlmInput) => Promise<LlmReply> {
  return async function evaluateLlm(input: EvaluateLlmInput): Promise<LlmReply> {
    const injected = injectedEnv(deps, input.instanceId);
    const workerEnv = injected ?? process.env;
    // `contract` and `comparator`: several questions, the verdict decided from their answers.
    if (isFileJudgeInput(input))
      return judgeFiles(input, (prompt, schema, timeoutS) => askOnce(input, workerEnv, prompt, schema, timeoutS));
    if (input.llm !== undefined) {
      const hooks = activityHooks(input.state);
      // Asked again, the question carries the previous answer's schema errors, as for the host CLI.
      const call = {
        request: input.llm,
        prompt: evaluationPrompt(input.prompt, input.output, input.schema_errors),
        schema: input.schema,
        timeoutMs: input.timeout_s * 1000,
      };
      return askProvider(call, workerEnv, {
        ...(hooks.signal ? { signal: hooks.signal } : {}),
        ...(hooks.onHeartbeat ? { onHeartbeat: hooks.onHeartbeat } : {}),
        secrets: secretValues([], input.mask_env, workerEnv),
        ...(input.detect_rate_limits ? { detectRateLimits: true } : {}),
        ...(input.check_schema ? { checkSchema: true } : {}),
      });
    }
    const cli = hostCli(workerEnv);
    const args = hostArgs(cli, llmJsonArgs({ schema: input.schema, model: input.model }));
    const hooks = activityHooks(input.state);
    let result: ActionResult;
    try {
      result = await runProcess({
        file: cli.binary,
        args,
        cwd: input.cwd,
        // The host CLI's whole environment: the run's (activities/action-env.ts).
        env: definedEnv(workerEnv),
        // The prompt holds the action's output: stdin, never argv (host-cli.ts promptArgs).
        input: evaluationPrompt(input.prompt, input.output, input.schema_errors),
        secrets: maskableSecrets(secretValues([], input.mask_env, workerEnv)),
        timeoutMs: input.timeout_s * 1000,
        signal: hooks.signal,
        onHeartbeat: hooks.onHeartbeat,
        heartbeatMs: HEARTBEAT_MS,
        logPath: runningLogPath(input.cwd, input.instanceId, `llm-${fileSafe(input.state)}.log`),
      });
    } catch (e) {
      if (e instanceof SpawnError && e.reason === 'not_found') return evalError(hostNotFoundMessage(cli.binary));
      return evalError(`LLM evaluation could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    hooks.rethrowIfCancelled(result);
    // What the call used, when the host CLI printed its envelope (activities/host-envelope.ts).
    const envelope = parseEnvelope(result.output);
    const usage = envelope === undefined ? undefined : runUsage(envelope, result);
    if (input.detect_rate_limits && !result.timed_out) {
      // An error envelope (`is_error`, even with exit 0) is a failed call: its text may be a rate limit.
      const failed = result.exit_code !== 0 || envelope?.isError === true;
      const limit = hostRateLimit(envelope?.text ?? result.output, result.stderr, {
        failed,
        now: Date.now(),
        jitter: Math.random(),
      });
      if (limit !== undefined) return { rate_limit: limit, ...(usage === undefined ? {} : { usage }) };
    }
    return { ...judgedReply(input, result, cli.binary), ...(usage === undefined ? {} : { usage }) };
  };
}

/**
 * One question whose answer the caller reads itself (activities/file-judges.ts): the same host CLI
 * or API provider call as a judgement, returning the answer object or the reason there is none.
 */
async function askOnce(
  input: EvaluateLlmInput,
  env: NodeJS.ProcessEnv,
  prompt: string,
  schema: Record<string, unknown>,
  timeoutS: number,
): Promise<JudgeAnswer> {
  const hooks = activityHooks(input.state);
  const secrets = secretValues([], input.mask_env, env);
  if (input.llm !== undefined) {
    const call = { request: input.llm, prompt, schema, timeoutMs: timeoutS * 1000 };
    const out = await callProvider(call, env, {
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      ...(hooks.onHeartbeat ? { onHeartbeat: hooks.onHeartbeat } : {}),
      secrets,
    });
    const usage = out.usage === undefined ? {} : { usage: out.usage };
    if ('error' in out) return { error: out.error, ...usage };
    try {
      return { answer: answerObject(maskValue(out.answer, out.secrets)), ...usage };
    } catch (e) {
      return { error: `LLM provider ${input.llm.provider}: ${(e as Error).message}`, ...usage };
    }
  }
  const cli = hostCli(env);
  let result: ActionResult;
  try {
    result = await runProcess({
      file: cli.binary,
      args: hostArgs(cli, llmJsonArgs({ schema, model: input.model })),
      cwd: input.cwd,
      env: definedEnv(env),
      input: prompt,
      secrets: maskableSecrets(secrets),
      timeoutMs: timeoutS * 1000,
      signal: hooks.signal,
      onHeartbeat: hooks.onHeartbeat,
      heartbeatMs: HEARTBEAT_MS,
      logPath: runningLogPath(input.cwd, input.instanceId, `llm-${fileSafe(input.state)}.log`),
    });
  } catch (e) {
    if (e instanceof SpawnError && e.reason === 'not_found') return { error: hostNotFoundMessage(cli.binary) };
    return { error: `LLM evaluation could not start: ${e instanceof Error ? e.message : String(e)}` };
  }
  hooks.rethrowIfCancelled(result);
  const envelope = parseEnvelope(result.output);
  const used = envelope === undefined ? undefined : runUsage(envelope, result);
  const usage = used === undefined ? {} : { usage: used };
  if (result.timed_out) return { error: `the judge timed out after ${timeoutS}s (host CLI '${cli.binary}')`, ...usage };
  if (result.exit_code !== 0)
    return { error: `host CLI '${cli.binary}' exited with code ${result.exit_code}${quote(result)}`, ...usage };
  try {
    return { answer: extractJudgement(result.output), ...usage };
  } catch (e) {
    return { error: `${(e as Error).message}${quote(result)}`, ...usage };
  }
}

/** The reply to a host CLI judgement that ran: the judgement, `invalid`, or an `error` with the reason. */
function judgedReply(input: EvaluateLlmInput, result: ActionResult, binary: string): LlmReply {
  if (result.timed_out)
    return evalError(`LLM evaluation timed out after ${input.timeout_s}s (host CLI '${binary}')${quote(result)}`);
  if (result.exit_code !== 0) {
    return evalError(
      `host CLI '${binary}' exited with code ${result.exit_code}${result.signal ? ` (${result.signal})` : ''}${quote(result)}`,
    );
  }
  try {
    return checkedAnswer(extractJudgement(result.output), input.schema, input.check_schema);
  } catch (e) {
    return evalError(`${e instanceof Error ? e.message : String(e)}${quote(result)}`);
  }
}

/**
 * Finds the judgement object in the host CLI's stdout (Claude Code `--output-format json`):
 * `structured_output`, else `result` (an object, or text holding JSON, possibly in a ```json
 * fence), else the envelope itself. Throws a descriptive Error when there is none.
 */
function extractJudgement(stdout: string): Record<string, unknown> {
  const envelope = parseJsonText(stdout);
  if (!isRecord(envelope)) throw new Error('host CLI output is not a JSON object');
  if (envelope['is_error'] === true) {
    throw new Error(`host CLI reported an error: ${String(envelope['result'] ?? envelope['subtype'] ?? 'unknown')}`);
  }
  const structured = envelope['structured_output'];
  if (isRecord(structured)) return structured;
  const res = envelope['result'];
  if (isRecord(res)) return res;
  if (typeof res === 'string') {
    const inner = parseJsonText(res);
    if (isRecord(inner)) return inner;
    throw new Error('host CLI result text holds no JSON object');
  }
  return envelope;
}

function evalError(message: string): LlmReply {
  return { error: message };
}

/** The beginning of stdout and stderr, for error messages. */
function quote(r: ActionResult): string {
  const out = r.output.trim().slice(0, QUOTE_CHARS);
  const err = r.stderr.trim().slice(0, QUOTE_CHARS);
  return `${out ? `; stdout: ${out}` : ''}${err ? `; stderr: ${err}` : ''}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
