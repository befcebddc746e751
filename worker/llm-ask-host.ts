/**
 * The host CLI's side of worker/llm-ask.ts (`review --llm`, `suggest --llm`): the question asked as
 * an LLM evaluation asks it — `claude -p --output-format json --json-schema …`
 * (activities/host-cli.ts), the prompt on stdin, no tools — and the answer read from its envelope.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostArgs, hostCli, hostNotFoundMessage, llmJsonArgs } from '../activities/host-cli.js';
import { SpawnError, runProcess } from '../activities/process.js';
import { definedEnv } from '../activities/shell-action.js';

export type HostAnswer = { answer: unknown } | { error: string; fix: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The answer in the host CLI's envelope: `structured_output`, else `result`. */
function fromEnvelope(stdout: string, binary: string): HostAnswer {
  let envelope: unknown;
  try {
    envelope = JSON.parse(stdout);
  } catch {
    return {
      error: `host CLI '${binary}': its output is not a JSON envelope: ${stdout.trim().slice(0, 200)}`,
      fix: 'check LL_HOST_CLI and LL_HOST_ARGS',
    };
  }
  if (!isRecord(envelope))
    return {
      error: `host CLI '${binary}': its output is not a JSON envelope`,
      fix: 'check LL_HOST_CLI and LL_HOST_ARGS',
    };
  if (envelope['is_error'] === true)
    return {
      error: `host CLI '${binary}' reported an error: ${String(envelope['result'] ?? envelope['subtype'] ?? 'unknown')}`,
      fix: 'try again',
    };
  return { answer: envelope['structured_output'] ?? envelope['result'] };
}

/** Ask the configured host CLI (LL_HOST_CLI, default `claude`) for an answer following `schema`. */
export async function askHostCli(o: {
  prompt: string;
  schema: Record<string, unknown>;
  model?: string;
  timeoutS: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<HostAnswer> {
  const cli = hostCli(o.env);
  const args = hostArgs(cli, llmJsonArgs({ schema: o.schema, ...(o.model === undefined ? {} : { model: o.model }) }));
  let result;
  try {
    result = await runProcess({
      file: cli.binary,
      args,
      cwd: o.cwd,
      env: definedEnv(o.env),
      input: o.prompt,
      timeoutMs: o.timeoutS * 1000,
      // Written only when the output is too long to keep whole.
      logPath: join(tmpdir(), `ll-loop-review-${process.pid}.log`),
    });
  } catch (e) {
    if (e instanceof SpawnError && e.reason === 'not_found')
      return {
        error: hostNotFoundMessage(cli.binary),
        fix: 'install Claude Code, set LL_HOST_CLI, or ask an API provider with --provider',
      };
    return {
      error: `host CLI '${cli.binary}' could not start: ${e instanceof Error ? e.message : String(e)}`,
      fix: 'check LL_HOST_CLI',
    };
  }
  if (result.timed_out)
    return {
      error: `host CLI '${cli.binary}': no answer before the timeout (${o.timeoutS}s)`,
      fix: 'try again, or give it longer with --timeout SECONDS',
    };
  if (result.exit_code !== 0)
    return {
      error: `host CLI '${cli.binary}' exited with code ${result.exit_code}${result.stderr.trim() ? `: ${result.stderr.trim().slice(0, 200)}` : ''}`,
      fix: 'run the host CLI by hand to see why, then try again',
    };
  return fromEnvelope(result.output, cli.binary);
}
