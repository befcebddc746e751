/**
 * A checker that cannot run in this project for want of its configuration: ESLint 9 and later
 * with no `eslint.config.*` file says so and exits 2, as a crash, where a lint failure exits 1.
 * A shell action that ends so is read as a command that cannot run (exit 127), as npm having
 * nothing to run is (npm-nothing-to-run.ts): no code change makes it run, so a loop's
 * not-runnable route takes it instead of sending the agent after "problems" (fix-lint spent its
 * attempts on it, and `ll-loop init` proposes `npm run lint` wherever the script exists).
 */
import type { ActionResult } from '../fsm/types.js';

/** ESLint's words for a project without its configuration, and its exit code then. */
const ESLINT_NO_CONFIG = /^ESLint couldn't find an eslint\.config\.(?:\*|\(js\|mjs\|cjs\)) file\.$/m;
const ESLINT_CRASH_EXIT = 2;

/** How many of stderr's last non-empty lines may hold the words (ESLint's advice and npm's lines follow them). */
const LAST_LINES = 20;

export const NOT_CONFIGURED_NOTE =
  "ll-loop: ESLint found no eslint.config.* file, so it cannot check this project: read as exit 127, cannot run; add the project's ESLint configuration (or set the loop's lint command)";

/** `result` with exit 127 when it is a checker's exit for having no configuration; else `result`. */
export function notConfiguredAsNotRunnable(result: ActionResult): ActionResult {
  if (result.exit_code !== ESLINT_CRASH_EXIT || result.timed_out || result.signal !== undefined) return result;
  const tail = result.stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-LAST_LINES)
    .join('\n');
  if (!ESLINT_NO_CONFIG.test(tail)) return result;
  return { ...result, exit_code: 127, stderr: `${result.stderr.replace(/\n?$/, '\n')}${NOT_CONFIGURED_NOTE}\n` };
}
