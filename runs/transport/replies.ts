/**
 * The answers every request kind of the worker's socket shares (schemas.ts has each kind's own):
 * a refusal — nothing was done, the command does the work itself — and an error the work ended
 * in, which the command reports as its own. Light on purpose: the command reads these without
 * loading zod or the Temporal SDK (types only here; the schemas are in schemas.ts).
 */

/** One problem of a malformed request: where in it (`definition.states`, `target`) and what. */
export interface RequestIssue {
  path: string;
  message: string;
}

/**
 * Nothing was done: another build, server or checkout; the worker is draining; a directory
 * outside the checkout; or a request that is not one (`bad_request`: its kind and its issues,
 * never a cast). The command then does the work itself.
 */
export interface Refused {
  kind: 'refused';
  why: string;
  bad_request?: { kind: string; issues: RequestIssue[] };
}

/**
 * The work was done and ended in this error: the command shows it as it would have shown its own
 * (client/cli.ts reportError: the message, the fix, the exit code) and does not do the work again.
 */
export interface WorkerError {
  kind: 'error';
  name: string;
  message: string;
  fix?: string;
  exit_code: number;
}
