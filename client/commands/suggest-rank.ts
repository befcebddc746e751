/**
 * `ll-loop suggest`'s ranking: which loops fit a task described in words. Pure and explainable:
 * a loop scores by the task's words it matches, each counted once at its best place (the name and
 * labels weigh most, then the category, the description, the parameters), divided by the task's
 * word count; `why` lists every match. Words are compared lower-cased, without common endings
 * (`tests`/`testing` → `test`) and without filler words (docs/decisions.md, "Suggest").
 */

export interface Candidate {
  name: string;
  /** `project` (`.loops/`) or `builtin` (shipped with ll-loop). */
  source: 'project' | 'builtin';
  description?: string;
  category?: string;
  labels: readonly string[];
  /** Parameter name → its description. */
  parameters: Readonly<Record<string, string | undefined>>;
}

export interface Ranked {
  name: string;
  source: Candidate['source'];
  /** 0 (nothing matched) to 1 (every word of the task matched the name or a label). */
  score: number;
  /** The matches, e.g. `label: tests`, `description: failing`. */
  why: string[];
}

/** A loop fits when its score reaches this: about one task word in five on a name or label. */
export const MIN_FIT = 0.15;

const WEIGHTS = { name: 3, label: 3, category: 2, description: 1, parameter: 0.5 } as const;
type Place = keyof typeof WEIGHTS;
const MAX_WEIGHT = 3;

const FILLER = new Set(
  'a an and any are as at be by can do does for from get have how i in into is it its make me my of on or our please run so some that the their them then this to until up us use we what when where which while with without you your loop loops want need'.split(
    ' ',
  ),
);

/** A word without its common English endings, so that `tests`, `testing` and `test` meet. */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && /(x|ch|sh|ss)es$/.test(w)) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

/** The text's words (letters and digits), without filler words. */
function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !FILLER.has(w) && w.length > 1);
}

/** Where each stem occurs in the candidate, at its heaviest place, with the word as written. */
function places(c: Candidate): Map<string, { place: Place; word: string }> {
  const out = new Map<string, { place: Place; word: string }>();
  const add = (place: Place, text: string | undefined): void => {
    for (const word of words(text ?? '')) {
      const s = stem(word);
      const known = out.get(s);
      if (known === undefined || WEIGHTS[known.place] < WEIGHTS[place]) out.set(s, { place, word });
    }
  };
  add('name', c.name);
  for (const label of c.labels) add('label', label);
  add('category', c.category);
  add('description', c.description);
  for (const [name, description] of Object.entries(c.parameters)) {
    add('parameter', name);
    add('parameter', description);
  }
  return out;
}

/** One candidate's score and why. */
export function scoreCandidate(task: string, c: Candidate): Ranked {
  const taskStems = [...new Set(words(task).map(stem))];
  const where = places(c);
  let total = 0;
  const why: string[] = [];
  for (const s of taskStems) {
    const hit = where.get(s);
    if (hit === undefined) continue;
    total += WEIGHTS[hit.place];
    why.push(`${hit.place}: ${hit.word}`);
  }
  const score = taskStems.length === 0 ? 0 : total / (taskStems.length * MAX_WEIGHT);
  return { name: c.name, source: c.source, score: Math.round(score * 1000) / 1000, why };
}

/**
 * Every candidate that matched anything, best first (ties: more task words in the loop's name, then
 * project loops, then by name).
 * A project loop shadows a built-in of the same name, as names resolve (`.loops/` first).
 */
export function rankLoops(task: string, candidates: readonly Candidate[]): Ranked[] {
  const project = new Set(candidates.filter((c) => c.source === 'project').map((c) => c.name));
  return candidates
    .filter((c) => c.source === 'project' || !project.has(c.name))
    .map((c) => scoreCandidate(task, c))
    .filter((r) => r.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score ||
        inName(b) - inName(a) ||
        (a.source === b.source ? a.name.localeCompare(b.name) : a.source === 'project' ? -1 : 1),
    );
}

/** How many task words a ranked loop matched in its name. */
function inName(r: Ranked): number {
  return r.why.filter((w) => w.startsWith('name: ')).length;
}
