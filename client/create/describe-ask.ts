/**
 * The real asks of `ll-loop create --describe` (describe-draft.ts's `Ask`), run in the CLI
 * process: the host CLI (`LL_HOST_CLI`, Claude Code by default; its JSON envelope states the
 * cost), or an HTTP API provider through the same code, key variables and defaults a loop's
 * `llm:` uses (activities/llm-providers.ts). A timeout, a refusal or a failed call is thrown as
 * a {@link DraftStopped}; the key is read from the environment and never printed.
 */
import { spawn } from 'node:child_process';
import { callProvider } from '../../activities/llm-providers.js';
import { hostArgs, hostCli, hostNotFoundMessage } from '../../activities/host-cli.js';
import { parseEnvelope } from '../../activities/host-envelope.js';
import type { LlmProviderRequest } from '../../fsm/types.js';
import { DraftStopped, type Ask } from './describe-draft.js';

/** Room for a whole loop in the answer (a loop's own judges default to 256 tokens). */
export const DRAFT_MAX_TOKENS = 8192;

/** Asks an API provider; its answer's text is the draft. */
export function providerAsk(request: LlmProviderRequest, timeoutMs: number, env: NodeJS.ProcessEnv): Ask {
  return async (prompt) => {
    const out = await callProvider({ request, prompt, timeoutMs }, env);
    if ('error' in out) {
      const reason = out.details['reason'];
      throw new DraftStopped(
        reason === 'timeout' ? 'timeout' : reason === 'refusal' ? 'refusal' : 'failed',
        out.error,
        out.usage,
      );
    }
    return {
      text: typeof out.answer === 'string' ? out.answer : JSON.stringify(out.answer),
      ...(out.usage === undefined ? {} : { usage: out.usage }),
    };
  };
}

/** Last bytes of a stream kept for an error message. */
const KEPT = 2000;

/**
 * Asks the host CLI: `<LL_HOST_ARGS> -p --output-format json --no-session-persistence [--model M]`
 * with the prompt on stdin (never in argv). Its envelope's `result` is the draft and its
 * `total_cost_usd` the cost; a program that prints no envelope gives its stdout as the draft.
 * After `timeoutMs` its process group is killed.
 */
export function hostCliAsk(model: string | undefined, timeoutMs: number, env: NodeJS.ProcessEnv): Ask {
  const cli = hostCli(env);
  const args = hostArgs(cli, [
    '-p',
    '--output-format',
    'json',
    '--no-session-persistence',
    ...(model ? ['--model', model] : []),
  ]);
  return (prompt) =>
    new Promise((resolve, reject) => {
      const child = spawn(cli.binary, args, { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        try {
          // The group: a host CLI's own children go with it.
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }, timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-KEPT)));
      // A host CLI that exits without reading its stdin is answered by its exit, not by EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(prompt);
      child.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new DraftStopped('failed', e.code === 'ENOENT' ? hostNotFoundMessage(cli.binary) : `host CLI: ${e.message}`),
        );
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) {
          reject(new DraftStopped('timeout', `host CLI '${cli.binary}': no answer within ${timeoutMs / 1000}s`));
          return;
        }
        const envelope = parseEnvelope(stdout);
        const usage = envelope?.usage;
        if (code !== 0 || envelope?.isError) {
          const why =
            code !== 0
              ? `exited ${code ?? `by ${signal}`}`
              : `reported an error${envelope?.subtype ? ` (${envelope.subtype})` : ''}`;
          const said = (stderr.trim() || envelope?.text || stdout).trim().slice(-300);
          reject(new DraftStopped('failed', `host CLI '${cli.binary}' ${why}${said ? `: ${said}` : ''}`, usage));
          return;
        }
        const text = envelope === undefined ? stdout : (envelope.text ?? JSON.stringify(envelope.value ?? ''));
        resolve({ text, ...(usage === undefined ? {} : { usage }) });
      });
    });
}
