/** What the page's action forms send, from what a person typed or picked. Pure: unit-tested. */

/** `K=V` lines → `K=V` strings (blank lines left out). */
export function contextLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** `plan#1`, `work#1`, `plan#2`, …: each visit of each state on the path, in order. */
export function visitsOf(path: string[]): string[] {
  const seen = new Map<string, number>();
  return path.map((state) => {
    const n = (seen.get(state) ?? 0) + 1;
    seen.set(state, n);
    return `${state}#${n}`;
  });
}
