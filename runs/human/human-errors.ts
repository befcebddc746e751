/** Why an answer was not given: each a one-line error with its fix and exit code (docs/cli.md, `answer`). */
import { CliError } from '../../errors/errors.js';
import { EXIT } from '../../errors/exit-codes.js';

/** The run refused the answer (its update's validator), or the client did before sending it. */
export class AnswerRefusedError extends CliError {
  override readonly name = 'AnswerRefusedError';
  constructor(message: string, fix: string) {
    super(message, fix, EXIT.usage);
  }
}

/** No worker answered the run's status query in time. */
export class NoAnswerFromRunError extends CliError {
  override readonly name = 'NoAnswerFromRunError';
  constructor(runId: string) {
    super(
      `run ${runId} did not answer: no worker serves it now`,
      `start its worker (any ll-loop command in its project brings the checkout's worker back), then answer again`,
      EXIT.infrastructure,
    );
  }
}
