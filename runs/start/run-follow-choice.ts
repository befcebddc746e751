/** Whether `ll-loop run`'s checkout worker follows the run for it (run-followed.ts). */
import type { LoopDefinition } from '../../fsm/schema.js';
import { isHumanState } from '../../fsm/human.js';
import type { RunOptions } from './run-options.js';

/**
 * Whether the worker may follow this run for the command: not in the background (nobody follows),
 * nor when the command asks human states' questions inline (that needs the command's own client).
 */
export function followableByWorker(opts: RunOptions, definition: LoopDefinition): boolean {
  if (opts.background) return false;
  const asks = opts.ask === true && !opts.json;
  return !(asks && Object.values(definition.states).some((state) => isHumanState(state)));
}
