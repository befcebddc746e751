/**
 * Names the compilers derive (docs/paradigms.md "Decisions"): a goal loop's name from its goal
 * text, and an invariant's state-name stem from the constraint's name. Both rules reproduce seed
 * 000's examples exactly: "No type errors in src/" → `goal-no-type-errors`; "tests-pass" →
 * `check_tests`/`fix_tests`.
 */

/** Words that start the goal's scope ("… in src/"): the name keeps what comes before. */
const SCOPE_WORDS = new Set(['in', 'on', 'under', 'within', 'inside', 'for', 'at', 'across', 'throughout']);
/** The goal name keeps at most this many words. */
const GOAL_NAME_WORDS = 4;

/**
 * `goal-` and the goal's first words (letters and digits, lowercased), up to the first scope
 * word and at most four. Undefined when the goal has no word before its scope.
 */
export function goalName(goal: string): string | undefined {
  const words: string[] = [];
  for (const word of goal.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (SCOPE_WORDS.has(word) || words.length === GOAL_NAME_WORDS) break;
    words.push(word);
  }
  return words.length ? `goal-${words.join('-')}` : undefined;
}

/** A last word that states the constraint's wanted status ("tests-pass"): the stem drops it. */
const STATUS_WORDS = new Set([
  'pass',
  'passes',
  'passing',
  'clean',
  'valid',
  'ok',
  'green',
  'good',
  'fixed',
  'succeeds',
  'works',
]);

/** The words of a constraint name, lowercased: "Tests-Pass" → ["tests", "pass"]. */
function words(name: string): string[] {
  return name.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** All the words of a name joined by `_`: "Tests-Pass" → `tests_pass`. */
export function nameWords(name: string): string {
  return words(name).join('_');
}

/**
 * The stem of each constraint's states (`check_<stem>`, `fix_<stem>`): the name's words joined by
 * `_`, without a last status word when other words remain. Constraints whose stems would be equal
 * keep all their words; undefined for a name that still collides (or has no letters or digits).
 */
export function constraintStems(names: readonly string[]): Array<string | undefined> {
  const full = names.map(nameWords);
  const short = names.map((name) => {
    const w = words(name);
    return w.length > 1 && STATUS_WORDS.has(w[w.length - 1]!) ? w.slice(0, -1).join('_') : w.join('_');
  });
  const count = (list: string[], value: string) => list.filter((v) => v === value).length;
  const chosen = short.map((stem, i) => (count(short, stem) > 1 ? full[i]! : stem));
  return chosen.map((stem) => (stem === '' || count(chosen, stem) > 1 ? undefined : stem));
}
