/**
 * A failure an activity reports on purpose — bad input or a state of the machine that retrying
 * cannot change (a missing directory, no bash, a git checkout that cannot be made) — as opposed
 * to a fault. Non-retryable, and BENIGN: the SDK logs it at DEBUG instead of a WARN with a stack
 * (the workflow records it and the CLI explains it).
 */
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';

export function expectedFailure(message: string, type: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, category: ApplicationFailureCategory.BENIGN });
}
