/**
 * Validation of `parallel:` states (fsm/run/parallel.ts runs them): items or branches, never both;
 * a loop for items; no action, evaluator or sub-loop of the state's own; fields that only apply
 * to one form. Numbers and enums (`max_workers`, `isolation`, `fail_mode`) are the schema's.
 * Whether each named loop exists and accepts its `with:` is the loader's (loader/subloops.ts).
 */
import { error, type Diagnostic } from '../diagnostics.js';
import type { StateConfig } from '../schema.js';

type Path = Diagnostic['path'];

/** Fields of a state that a parallel state replaces (it runs children and is judged by their join). */
const NOT_WITH_PARALLEL: ReadonlyArray<[keyof StateConfig, string]> = [
  ['action', 'a parallel state runs its items as child loops, not an action of its own'],
  ['loop', 'a parallel state names its loop under parallel: (parallel.loop), not at the state'],
  ['evaluate', 'a parallel state is judged by its join (every item, some, none), not by evaluate:'],
  ['next', 'a parallel state routes on its join: on_yes (all succeeded), on_partial (some), on_no (none)'],
];

export function checkParallelState(path: Path, state: StateConfig, out: Diagnostic[]): void {
  const parallel = state.parallel;
  if (parallel === undefined) return;
  const at: Path = [...path, 'parallel'];
  for (const [key, why] of NOT_WITH_PARALLEL) {
    if (state[key] !== undefined) out.push(error([...path, key], why, `remove ${key}: from this state`));
  }
  if (state.terminal)
    out.push(error([...path, 'terminal'], 'a parallel state cannot be terminal', 'route its join to a terminal state'));
  const hasItems = parallel.items !== undefined;
  const hasBranches = parallel.branches !== undefined;
  if (hasItems === hasBranches) {
    out.push(
      error(
        at,
        hasItems ? 'parallel: has both items: and branches:' : 'parallel: needs items: or branches:',
        'give items: (a list, or a template rendering to a JSON array) with loop:, or branches: (a list of loops)',
      ),
    );
    return;
  }
  if (hasItems) return checkItems(at, state, out);
  checkBranches(at, state, out);
}

function checkItems(at: Path, state: StateConfig, out: Diagnostic[]): void {
  const parallel = state.parallel!;
  if (parallel.loop === undefined || parallel.loop.trim() === '')
    out.push(
      error([...at, 'loop'], 'parallel items need a loop to run for each item', 'add loop: <name> under parallel:'),
    );
  if (parallel.items_from !== undefined && typeof parallel.items !== 'string')
    out.push(
      error(
        [...at, 'items_from'],
        'items_from: reads a rendered template; these items are already a list',
        'remove items_from:, or write items: as a template such as "${captured.list.output}"',
      ),
    );
}

function checkBranches(at: Path, state: StateConfig, out: Diagnostic[]): void {
  const parallel = state.parallel!;
  const fields: ReadonlyArray<[keyof typeof parallel, string]> = [
    ['loop', 'each branch names its own loop'],
    ['with', 'each branch takes its own with: ({ loop: <name>, with: {…} })'],
    ['items_from', 'items_from: reads items, and this state has branches'],
  ];
  for (const [key, why] of fields)
    if (parallel[key] !== undefined)
      out.push(error([...at, key], `${key}: does not apply to branches: ${why}`, `remove ${key}:`));
  const branches = parallel.branches ?? [];
  if (branches.length === 0)
    out.push(
      error([...at, 'branches'], 'branches: lists no loop', 'list the loops to run side by side, e.g. [lint, test]'),
    );
  branches.forEach((branch, i) => {
    const loop = typeof branch === 'string' ? branch : branch.loop;
    if (loop.trim() === '') out.push(error([...at, 'branches', i], 'this branch names no loop', 'write its loop name'));
  });
}
