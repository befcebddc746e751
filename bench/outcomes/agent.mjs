#!/usr/bin/env node
// The outcome benchmark's scripted coding agent, run as the host CLI (LL_HOST_CLI): like
// `claude -p --output-format json` it reads the prompt on stdin, works in its current directory
// (the project) and prints a JSON result envelope. The bench's case file beside the project,
// ../bench-agent.json, says which agent it is (`agent`), the project's defects and cheats
// (bench/outcomes/projects.mjs) and the log it appends one line to per call. The agents:
//   fixer   applies the known fix of every defect still present (bench/outcomes/projects.mjs);
//   reader  applies a defect's fix only when the prompt holds that defect's failure output
//           (its `hint`): it finds the fix from what the loop shows it, never by itself;
//   noop    changes nothing and says it is done;
//   cheater edits the tests and weakens the checkers' configuration (the project's `cheats`);
//   flaky   on its odd calls changes nothing and says it fixed it, on its even calls acts as fixer.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const plan = JSON.parse(readFileSync(join('..', 'bench-agent.json'), 'utf8'));
const { agent: kind, log } = plan;
const prompt = readFileSync(0, 'utf8');
const calls = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
appendFileSync(log, `${JSON.stringify({ agent: kind, call: calls + 1, prompt_chars: prompt.length })}\n`);

/** Replaces the first `from` with `to` in `file`; true when it changed it. */
function edit(file, from, to) {
  if (!existsSync(file)) return false;
  const text = readFileSync(file, 'utf8');
  const next = text.replace(from, () => to);
  if (next === text) return false;
  writeFileSync(file, next);
  return true;
}

const fix = (d) => edit(d.file, d.from, d.to);
const done = [];
if (kind === 'fixer' || (kind === 'flaky' && (calls + 1) % 2 === 0)) {
  for (const d of plan.defects) if (fix(d)) done.push(`fixed ${d.file}`);
} else if (kind === 'reader') {
  for (const d of plan.defects) if (prompt.includes(d.hint) && fix(d)) done.push(`fixed ${d.file} (${d.hint})`);
} else if (kind === 'cheater') {
  for (const c of plan.cheats) if (edit(c.file, c.from, c.to)) done.push(`changed ${c.file}`);
}
const result = done.length ? done.join('; ') : kind === 'flaky' ? 'fixed it' : 'nothing to change';
process.stdout.write(`${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result })}\n`);
