/**
 * What `ll-loop init` proposes for the checks it found: the proposal table maps a kind of check to
 * the built-in loop that works on it and that loop's parameters, so a new built-in is one entry.
 * A rule whose built-in this installation does not have proposes nothing.
 */
import { builtinLoopFile } from '../../loader/catalog.js';
import type { CheckKind, DetectedCheck } from './checks.js';

export interface ProposalRule {
  kind: CheckKind;
  /** The built-in loop the proposed loop says `from:`. */
  builtin: string;
  /** The built-in's parameters, set from the check. */
  parameters: (check: DetectedCheck) => Record<string, string>;
}

const PROPOSAL_RULES: readonly ProposalRule[] = [
  { kind: 'tests', builtin: 'test-until-pass', parameters: (c) => ({ test_cmd: c.command }) },
  { kind: 'types', builtin: 'fix-types', parameters: (c) => ({ type_cmd: c.command }) },
  // `true`: a linter without an autofix of its own skips that step.
  { kind: 'lint', builtin: 'fix-lint', parameters: (c) => ({ lint_cmd: c.command, fix_cmd: c.fix ?? 'true' }) },
  { kind: 'build', builtin: 'build', parameters: (c) => ({ build_cmd: c.command }) },
];

export interface ProposedLoop {
  /** The loop's name and file name in `.loops/`: the built-in's own for the first of its kind. */
  name: string;
  from: string;
  parameters: Record<string, string>;
  check: DetectedCheck;
}

/** A check found with no rule (or no built-in) for it: shown, not proposed. */
export interface UnmatchedCheck {
  check: DetectedCheck;
  reason: string;
}

/**
 * One loop per check that a rule covers, in the order found. The first loop from a built-in takes
 * the built-in's name (so `ll-loop run test-until-pass` runs the project's tests); another check
 * of the same kind is named by its program (`fix-types-pyright`, `test-until-pass-make`), or by
 * its ecosystem when the program is no plain word (`./run-tests.sh`).
 */
export function proposeLoops(
  checks: readonly DetectedCheck[],
  rules: readonly ProposalRule[] = PROPOSAL_RULES,
  hasBuiltin: (name: string) => boolean = (name) => builtinLoopFile(name) !== undefined,
): { loops: ProposedLoop[]; unmatched: UnmatchedCheck[] } {
  const loops: ProposedLoop[] = [];
  const unmatched: UnmatchedCheck[] = [];
  const names = new Set<string>();
  for (const check of checks) {
    const rule = rules.find((r) => r.kind === check.kind && hasBuiltin(r.builtin));
    if (!rule) {
      unmatched.push({ check, reason: `no built-in loop works on ${check.kind} checks yet` });
      continue;
    }
    const by = /^[a-z0-9][a-z0-9_.-]*$/i.test(check.tool) ? check.tool : check.ecosystem;
    let name = names.has(rule.builtin) ? `${rule.builtin}-${by}` : rule.builtin;
    for (let n = 2; names.has(name); n++) name = `${rule.builtin}-${by}-${n}`;
    names.add(name);
    loops.push({ name, from: rule.builtin, parameters: rule.parameters(check), check });
  }
  return { loops, unmatched };
}
