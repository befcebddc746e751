/**
 * The CLI's error policy: every expected failure is a CliError with an exit code and a fix; the
 * bin prints `error: <message>` and `fix: <fix>`, never a stack trace.
 */
import { LoadError } from '../loader/errors.js';
import { RuntimeDirError } from '../loader/runtime-dir.js';
import { EXIT } from './exit-codes.js';
import { clusterProblemOf, withServerReason } from './cluster-errors.js';

export class CliError extends Error {
  override readonly name: string = 'CliError';
  constructor(
    message: string,
    readonly fix?: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}

/** Bad arguments, an unknown loop, an invalid file. */
export class UsageError extends CliError {
  override readonly name = 'UsageError';
}

/** Temporal or the embedded server could not be reached or started. */
export class InfrastructureError extends CliError {
  override readonly name = 'InfrastructureError';
  constructor(message: string, fix?: string) {
    super(message, fix, EXIT.infrastructure);
  }
}

/**
 * The CLI's reading of errors thrown by the layers below it, in one place: a loader error is a
 * usage error (exit 1) with the loader's fix; a server without ll-loop's namespace or search
 * attributes is an infrastructure error (exit 7) whose fix is `ll-loop cluster setup`; an SDK
 * error that only says what was attempted gets the server's reason. Anything else is returned
 * unchanged.
 */
export function toCliError(err: unknown): unknown {
  if (err instanceof LoadError) return new UsageError(err.message, err.fix);
  if (err instanceof RuntimeDirError) return new CliError(err.message, err.fix, EXIT.usage);
  if (err instanceof CliError) return err;
  // temporal/connection.ts TemporalTlsError, told by name: its class would load the SDK.
  const tls = err as { name?: unknown; message?: unknown; fix?: unknown };
  if (tls?.name === 'TemporalTlsError' && typeof tls.message === 'string' && typeof tls.fix === 'string')
    return new InfrastructureError(tls.message, tls.fix);
  const namespace = process.env.TEMPORAL_ADDRESS ? process.env.TEMPORAL_NAMESPACE?.trim() || 'default' : undefined;
  const problem = clusterProblemOf(err, namespace);
  if (problem) return new InfrastructureError(problem.message, problem.fix);
  const explained = withServerReason(err);
  if (explained) return new CliError(explained, undefined, EXIT.runError);
  return err;
}
