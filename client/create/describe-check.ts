/**
 * Checking a drafted loop (`ll-loop create --describe`): the YAML out of the answer, loaded as
 * `ll-loop validate` loads `.loops/<name>.yaml`, then simulated. A draft passes only when it has
 * no error, no warning of error weight ({@link errorWeight}), and every scenario of
 * {@link CHECKED_SCENARIOS} ends cleanly: in a terminal state or at a declared limit, never at
 * an error (a verdict no route handles) and never running on past {@link SIMULATION_STEPS}.
 * Every problem is a line of text the LLM is shown as it is.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { formatDiagnostic, type Diagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { simulate, type Scenario } from '../../fsm/tools/simulate.js';
import { loadLoopFile } from '../../loader/load.js';
import { loopFilePath } from './answers.js';

/** The scenarios a draft must end cleanly in. */
const CHECKED_SCENARIOS: readonly Scenario[] = ['all-pass', 'all-fail', 'alternating'];

/** State executions simulated before a draft counts as never ending. */
const SIMULATION_STEPS = 1000;

/** How a simulated run may end for the draft to pass: a terminal or a limit the loop declares. */
const CLEAN_ENDS = new Set(['terminal', 'max_iterations', 'max_steps', 'budget', 'timeout']);

/**
 * Warnings that predict a broken run or a field that does nothing, so a draft with one is asked
 * again: a verdict or answer no route handles, an unreachable state, an ignored or ineffective
 * field, a reference to an undeclared context key, a comparison that can never improve.
 * Advice (no description, a human state without timeout) is not of error weight.
 */
const ERROR_WEIGHT =
  /no route|would end|unreachable|ignored|has no effect|never (retries|improves|checked)|not defined in context|wrong/;

function errorWeight(d: Diagnostic): boolean {
  return d.severity === 'error' || (d.severity === 'warning' && ERROR_WEIGHT.test(d.message));
}

/** The YAML in an answer: the first ```yaml (or ```yml, or bare ```) fence, else the whole text. */
export function extractYaml(answer: string): string {
  const fence = /```[ \t]*(yaml|yml)?[ \t]*\r?\n([\s\S]*?)```/i.exec(answer);
  return `${(fence?.[2] ?? answer).trim()}\n`;
}

/** Whether `text` is a YAML mapping at all (else the answer holds no loop). */
function isMapping(text: string): boolean {
  try {
    const value: unknown = parseDocument(text).toJS();
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** `yaml` with its top-level `name:` set to `name` (comments and layout kept). */
export function withName(yaml: string, name: string): string {
  const doc = parseDocument(yaml);
  doc.set('name', name);
  return doc.toString();
}

/** The draft's own `name:`, when it has a string one. */
export function draftName(yaml: string): string | undefined {
  try {
    const name: unknown = parseDocument(yaml).get('name');
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

export interface DraftCheck {
  /** What is wrong, one line (or a diagnostic with its fix) each; empty when the draft passes. */
  problems: string[];
  definition?: LoopDefinition;
}

/** Load and simulate `yaml` as `.loops/<name>.yaml` of `cwd`, without writing into the project. */
export function checkDraft(answer: string, cwd: string, name: string): DraftCheck {
  const yaml = extractYaml(answer);
  if (!isMapping(yaml)) {
    const quoted = answer.trim().slice(0, 200).replace(/\s+/g, ' ');
    return {
      problems: [
        `the answer holds no loop YAML (a YAML mapping in a \`\`\`yaml fence): ${quoted === '' ? '(empty)' : `"${quoted}"`}`,
      ],
    };
  }
  const shown = relative(cwd, loopFilePath(cwd, name));
  const dir = mkdtempSync(join(tmpdir(), 'll-loop-describe-'));
  let loaded;
  try {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(file, yaml);
    loaded = loadLoopFile(file, {}, cwd);
    loaded = {
      ...loaded,
      diagnostics: loaded.diagnostics.map((d) => (d.file === file ? { ...d, file: shown } : d)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const problems = loaded.diagnostics.filter(errorWeight).map(formatDiagnostic);
  const def = loaded.definition;
  if (def === undefined) return { problems };
  for (const scenario of CHECKED_SCENARIOS) {
    const s = simulate(def, scenario, SIMULATION_STEPS);
    if (s.truncated || s.outcome === undefined) {
      problems.push(
        `simulate --scenario ${scenario}: no end after ${SIMULATION_STEPS} steps; give the loop max_iterations and a way to a terminal state`,
      );
    } else if (!CLEAN_ENDS.has(s.outcome.terminated_by)) {
      const o = s.outcome;
      problems.push(
        `simulate --scenario ${scenario}: the run ends by ${o.terminated_by} in state "${o.final_state}"${o.error ? `: ${o.error}` : ''}; route every verdict that state can give`,
      );
    }
  }
  return problems.length === 0 ? { problems, definition: def } : { problems };
}
