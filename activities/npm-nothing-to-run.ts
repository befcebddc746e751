/**
 * npm's own failures to find what to run: `npx --no -- tool` (the built-in loops' Node defaults)
 * with the tool not installed, and `npm test` / `npm run x` with no such script or no
 * package.json. npm exits 1 (254 without a package.json), as a failing check does. A shell action
 * that ends so is read as a command not found (exit 127): a code change cannot make it run, so a
 * loop's not-runnable route takes it instead of sending the agent after a "failure" that is a
 * missing tool.
 */
import type { ActionResult } from '../fsm/types.js';

/** npm's last words when it has nothing to run. */
const NOTHING_TO_RUN = [
  /npx canceled due to missing packages and no YES option/,
  /^npm ERR! canceled$/m,
  /could not determine executable to run/,
  /^npm (?:error|ERR!) Missing script: /m,
  /^npm (?:error|ERR!) enoent Could not read package\.json/m,
];

/** npm's exit codes for these: 1, and 254 for a missing package.json (errno ENOENT). */
const NPM_EXIT_CODES = new Set([1, 254]);

/** How many of stderr's last non-empty lines may hold npm's words (its advice and log-file line follow them). */
const LAST_LINES = 8;

/** A line of npm's own error output. */
const NPM_ERROR_LINE = /^npm (?:error|ERR!)/;

export const NOTHING_TO_RUN_NOTE =
  'll-loop: npm found nothing to run (a tool npx --no would have to install, a missing script or package.json): read as exit 127, command not found';

/** `result` with exit 127 when it is npm's exit for having nothing to run; else `result`. */
export function npmNothingToRunAsNotFound(result: ActionResult): ActionResult {
  if (!NPM_EXIT_CODES.has(result.exit_code) || result.timed_out || result.signal !== undefined) return result;
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  // npm's closing block of `npm error` lines, however long its advice ("Did you mean one of
  // these?" lists several scripts for `npm start`), or else the last few lines.
  let first = lines.length;
  while (first > 0 && NPM_ERROR_LINE.test(lines[first - 1]!)) first -= 1;
  const tail = lines.slice(Math.min(first, Math.max(0, lines.length - LAST_LINES))).join('\n');
  if (!NOTHING_TO_RUN.some((words) => words.test(tail))) return result;
  return { ...result, exit_code: 127, stderr: `${result.stderr.replace(/\n?$/, '\n')}${NOTHING_TO_RUN_NOTE}\n` };
}
