/**
 * When a run continues as new: well before Temporal's ~51,200-event / 50 MB history limits, or
 * when the server suggests it. One rule for the loop's steps and for a fan-out's items.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { LoopWorkflowInput } from './definitions.js';

const MAX_HISTORY_EVENTS = 20_000;
const MAX_HISTORY_BYTES = 20 * 1024 * 1024;

export function historyFull(input: LoopWorkflowInput): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested ||
    info.historyLength > (input.options.historyEventLimit ?? MAX_HISTORY_EVENTS) ||
    info.historySize > MAX_HISTORY_BYTES
  );
}
