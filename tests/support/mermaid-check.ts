/**
 * A line-by-line check of the Mermaid subset `renderMermaid` may print. Every id must be a plain
 * identifier; labels may hold only characters Mermaid reads literally or `#code;` entities.
 */
export function checkMermaid(text: string): string[] {
  const problems: string[] = [];
  const [first, ...rest] = text.trimEnd().split('\n');
  if (first !== 'stateDiagram-v2') problems.push(`first line is "${first}"`);
  const ID = '[A-Za-z][A-Za-z0-9_]*';
  const LABEL = "(?:[A-Za-z0-9 _.,()$!?+*/=@%'-]|#\\d+;)+";
  const forms = [
    new RegExp(`^  %% .*$`),
    new RegExp(`^  state "${LABEL}" as (${ID})$`),
    new RegExp(`^  (${ID}) : ${LABEL}$`),
    new RegExp(`^  \\[\\*\\] --> (${ID})$`),
    new RegExp(`^  (${ID}) --> \\[\\*\\]$`),
    new RegExp(`^  (${ID}) --> (${ID}) : ${LABEL}$`),
    new RegExp(`^  classDef [a-z]+ [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*$`),
    new RegExp(`^  class ${ID}(,${ID})* [a-z]+$`),
    // A parallel state: a composite state with a fork, its branches and a join.
    new RegExp(`^  state (${ID}) \\{$`),
    new RegExp(`^  \\}$`),
    new RegExp(`^    state (${ID}) <<(fork|join)>>$`),
    new RegExp(`^    state "${LABEL}" as (${ID})$`),
    new RegExp(`^    \\[\\*\\] --> (${ID})$`),
    new RegExp(`^    (${ID}) --> \\[\\*\\]$`),
    new RegExp(`^    (${ID}) --> (${ID})$`),
  ];
  for (const line of rest) {
    if (!forms.some((f) => f.test(line))) problems.push(`not Mermaid this renderer may print: ${line}`);
  }
  return problems;
}
