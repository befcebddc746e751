/**
 * `diffStat`: the worker's side of a diff_stall evaluation. Takes `git diff --stat -- <scope>` in
 * the run's directory; the core compares it with the state's previous one (fsm/evaluators/diff-stall.ts).
 *
 * Every problem is an answer, not a throw: git missing, a directory outside a repository or a
 * failing git give `{ error }`, which the core records as the state's `error` verdict.
 */
import { GitCheckoutError, tryGit } from './git.js';

export interface DiffStatInput {
  cwd: string;
  state: string;
  /** Paths given to git diff (relative to `cwd`); empty: the whole repository. */
  scope: string[];
}

export type DiffStatReply = { stat: string } | { error: string };

/** The activity; `git` names the program (tests point it elsewhere), default `git` on PATH. */
export function makeDiffStat(options: { git?: string } = {}): (input: DiffStatInput) => Promise<DiffStatReply> {
  return async ({ cwd, scope }) => {
    try {
      const r = await tryGit(
        ['-C', cwd, 'diff', '--stat', '--', ...scope],
        options.git === undefined ? {} : { git: options.git },
      );
      if (r.ok) return { stat: r.stdout };
      if (/not a git repository/i.test(r.stderr)) {
        return {
          error: `diff_stall: ${cwd} is not inside a git repository: run git init there, or use another evaluator`,
        };
      }
      return { error: `diff_stall: ${r.command} failed: ${r.why}` };
    } catch (err) {
      if (err instanceof GitCheckoutError)
        return { error: `diff_stall: ${err.message}: install git on the worker's machine` };
      throw err;
    }
  };
}
