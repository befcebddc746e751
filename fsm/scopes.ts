/**
 * Scope paths (seed 001 "Concurrency and Locking"): which parts of a checkout a run claims.
 *
 * A scope is a path relative to the checkout's root, normalised: `/`-separated segments, no `.`,
 * `..` or empty segments, no trailing slash; the whole checkout is `.`. Two scopes overlap when
 * one is the other or lies under it, segment by segment: `src/a` overlaps `src/a/b` and `src`,
 * not `src/ab`; `.` overlaps everything. Paths are POSIX paths; the checkout root is absolute.
 */

/** The whole checkout: what a loop without `scope:` claims. */
const WHOLE_CHECKOUT = '.';

/** A scope, normalised, or why the path cannot be one. */
export type ScopeCheck = { scope: string } | { problem: 'empty' | 'outside'; message: string };

/** Segments of a POSIX path with `.` and `..` resolved; undefined when `..` climbs above the start. */
function segments(path: string): string[] | undefined {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out;
}

/**
 * `path` (relative to the checkout, or absolute) as a scope of the checkout at `root`. A relative
 * path that climbs out (`../x`, `a/../../x`) or an absolute path elsewhere is `outside`.
 */
export function normaliseScope(path: string, root: string): ScopeCheck {
  const trimmed = path.trim();
  if (trimmed === '') return { problem: 'empty', message: 'a scope path is empty' };
  let relative = trimmed;
  if (trimmed.startsWith('/')) {
    const base = segments(root) ?? [];
    const abs = segments(trimmed) ?? [];
    const inside = abs.length >= base.length && base.every((part, i) => abs[i] === part);
    if (!inside) return { problem: 'outside', message: `scope "${path}" is outside the checkout ${root}` };
    relative = abs.slice(base.length).join('/');
  }
  const parts = segments(relative);
  if (parts === undefined) return { problem: 'outside', message: `scope "${path}" climbs out of the checkout ${root}` };
  return { scope: parts.length === 0 ? WHOLE_CHECKOUT : parts.join('/') };
}

/** The scopes a loop claims: its `scope:` list normalised (duplicates dropped), or the whole checkout. */
export function claimedScopes(
  scope: readonly string[] | undefined,
  root: string,
): { scopes: string[]; problems: Array<{ index: number; message: string }> } {
  const scopes: string[] = [];
  const problems: Array<{ index: number; message: string }> = [];
  (scope ?? []).forEach((path, index) => {
    const checked = normaliseScope(path, root);
    if ('problem' in checked) problems.push({ index, message: checked.message });
    else if (!scopes.includes(checked.scope)) scopes.push(checked.scope);
  });
  if (scope === undefined || (scope.length === 0 && problems.length === 0))
    return { scopes: [WHOLE_CHECKOUT], problems };
  return { scopes, problems };
}

/** Whether two normalised scopes overlap: equal, or one lies under the other (segment-aware). */
export function scopesOverlap(a: string, b: string): boolean {
  if (a === WHOLE_CHECKOUT || b === WHOLE_CHECKOUT || a === b) return true;
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** Whether any scope of one list overlaps any of the other. */
export function claimsOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.some((y) => scopesOverlap(x, y)));
}
