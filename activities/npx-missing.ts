/**
 * `npx --no -- tool` (the built-in loops' Node defaults) installs nothing, and when the tool is not
 * installed npm exits 1, as a failing check does. A shell action that ends so is read as a
 * command not found (exit 127): a code change cannot make it run, so a loop's not-runnable route
 * takes it instead of sending the agent after a "failure" that is a missing tool.
 */
import type { ActionResult } from '../fsm/types.js';

/** npm's last words when `npx --no` (or `npm exec --no`) has nothing to run. */
const NPX_NOTHING_TO_RUN = [
  /npx canceled due to missing packages and no YES option/,
  /^npm ERR! canceled$/m,
  /could not determine executable to run/,
];

/** How many of stderr's last non-empty lines may hold npm's words (its log-file line follows them). */
const LAST_LINES = 4;

export const NPX_MISSING_NOTE =
  'll-loop: npx found nothing installed to run (npx --no installs nothing): exit 1 read as 127, command not found';

/** `result` with exit 127 when it is npx's exit 1 for a tool that is not installed; else `result`. */
export function npxMissingAsNotFound(result: ActionResult): ActionResult {
  if (result.exit_code !== 1 || result.timed_out || result.signal !== undefined) return result;
  const tail = result.stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-LAST_LINES)
    .join('\n');
  if (!NPX_NOTHING_TO_RUN.some((words) => words.test(tail))) return result;
  return { ...result, exit_code: 127, stderr: `${result.stderr.replace(/\n?$/, '\n')}${NPX_MISSING_NOTE}\n` };
}
