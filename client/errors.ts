/**
 * The CLI's error policy: every expected failure is a CliError with an exit code and a fix; the
 * bin prints `error: <message>` and `fix: <fix>`, never a stack trace.
 */
import { EXIT } from './exit-codes.js';

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
