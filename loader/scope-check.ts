/**
 * A loop's `scope:` against the checkout it runs in: each path must lie inside the checkout
 * (relative, or absolute under its root); the definition that travels to the workflow carries the
 * normalised paths (fsm/scopes.ts). A path outside is an error at `scope[i]`, which the loader
 * points at its file, line and column.
 */
import { error, type Diagnostic } from '../fsm/diagnostics.js';
import type { LoopDefinition } from '../fsm/schema.js';
import { claimedScopes } from '../fsm/scopes.js';

/** The definition with its scopes normalised, and a diagnostic per path outside `root`. */
export function checkScopes(
  definition: LoopDefinition,
  root: string,
): { definition: LoopDefinition; diagnostics: Diagnostic[] } {
  if (definition.scope === undefined) return { definition, diagnostics: [] };
  const { scopes, problems } = claimedScopes(definition.scope, root);
  const diagnostics = problems.map((p) =>
    error(
      ['scope', p.index],
      p.message,
      `use a path inside the checkout, relative to ${root} (e.g. "src/"), or run the loop from the checkout that holds it`,
    ),
  );
  return { definition: diagnostics.length ? definition : { ...definition, scope: scopes }, diagnostics };
}
