/**
 * The ApplicationFailure type of a run that did not get its scopes: another run holds (or waits
 * ahead for) an overlapping scope, it gave up waiting (`--queue-timeout`), or it was removed from
 * the queue (`ll-loop queue remove`). Details: ScopeBusyDetails (scope-lock-definitions.ts). The
 * CLI's exit code 8. Alone in its module so that reading it loads no Temporal SDK.
 */
export const SCOPE_BUSY = 'ScopeBusy';
