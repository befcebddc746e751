/**
 * What the `ll-loop ui` page says of a refusal (ui/server/run-actions.ts errorText): the CLI's
 * error and fix, except where the fix is a flag the page has no control for.
 */
import { describe, expect, it } from 'vitest';
import { CliError } from '../../errors/errors.js';
import { ScopeBusyError } from '../../runs/scopes/scope-busy-error.js';
import { errorText } from '../../ui/server/run-actions.js';

describe("the page's refusals", () => {
  it('tells a run refused its scopes what the page can do, not to pass --queue', () => {
    const busy = ScopeBusyError.fromFailure('fix-1-f1', 'scope src is held by fix-2', {
      domain: 'checkout',
      scopes: ['src'],
      reason: 'busy',
      blockers: [{ run: 'fix-2', scopes: ['src'], holds: true }],
    });
    const text = errorText(busy);
    expect(text).toContain('run fix-1-f1 did not start: scope src is held by fix-2');
    expect(text).toContain('try again once fix-2 has ended, or stop fix-2 from its page');
    expect(text).not.toMatch(/--queue/);
  });

  it("keeps the CLI's what and fix for the rest", () => {
    expect(errorText(new CliError('no run matches "x"', 'll-loop list --running'))).toBe(
      'no run matches "x" (ll-loop list --running)',
    );
  });
});
