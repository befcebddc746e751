/**
 * How an error of a start the checkout's worker made for a command goes back to it
 * (worker/socket/dispatch.ts), or into a failed start's record (start-queue-runner.ts).
 */
import { CliError, toCliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';
import type { WorkerError } from '../../runs/transport/replies.js';

/**
 * The command shows the error as it would have shown its own (client/cli.ts reportError): a
 * CliError's message, fix and exit code; the SDK's and the server's unreachability as exit 7;
 * anything else as a run error with its message.
 */
export function errorReply(err: unknown): WorkerError {
  const e = toCliError(err);
  if (e instanceof CliError)
    return { kind: 'error', name: e.name, message: e.message, ...(e.fix ? { fix: e.fix } : {}), exit_code: e.exitCode };
  const { name = 'Error', message = String(e) } = (e ?? {}) as { name?: string; message?: string };
  const unreachable = /^(Temporal(Unavailable|CliNotFound|Config)Error|DevServerStartError)$/.test(name);
  return { kind: 'error', name, message, exit_code: unreachable ? EXIT.infrastructure : EXIT.runError };
}
