/**
 * Answers → a seed 000 paradigm document. Each kind of loop is one paradigm:
 * fix → invariants, constraints → invariants with `maintain: true`, metric → convergence,
 * sequence → imperative. The paradigm compilers (fsm/definition/paradigms/) then produce the FSM, so a
 * created loop has exactly the shape a hand-written paradigm file would compile to.
 */
import { constraintStems } from '../../fsm/definition/paradigms/names.js';
import type { ActionSpec } from './actions.js';
import type { Answers, AnswersOf } from './answers.js';

/**
 * The document, and the actions given as "prompt or `shell:`" (fixes, improvements, steps) by the
 * state seed 000's compilers put them in (`fix_<constraint>`, `apply`, `step_<i>`): their kind is
 * the user's choice, not the loop format's inference, so the compiled state may need `action_type`.
 * Checks, measures and `until` are written as they are and run as the format infers (a shell
 * command, or a `/slash` command).
 */
export interface ParadigmDocument {
  doc: Record<string, unknown>;
  chosenKinds: Array<{ state: string; action: ActionSpec }>;
}

function quoteList(commands: readonly string[]): string {
  const quoted = commands.map((c) => `\`${c}\``);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** 90 → "90s", 300 → "5m", 3600 → "1h": as `--interval` accepts it. */
export function formatInterval(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

function invariants(a: AnswersOf<'fix'> | AnswersOf<'constraints'>): ParadigmDocument {
  const commands = a.checks.map((c) => c.command);
  const description =
    a.kind === 'fix'
      ? `Run ${quoteList(commands)}; fix what fails until all pass.`
      : `Keep ${quoteList(commands)} passing: ${a.intervalS > 0 ? `re-check every ${formatInterval(a.intervalS)}` : 're-check continuously'} and fix what breaks.`;
  const doc: Record<string, unknown> = {
    paradigm: 'invariants',
    name: a.name,
    description,
    constraints: a.checks.map((c) => ({ name: c.id, check: c.command, fix: c.fix.text })),
    max_iterations: a.maxAttempts,
  };
  if (a.kind === 'constraints') {
    doc.maintain = true;
    if (a.intervalS > 0) doc.maintain_delay = a.intervalS;
  }
  // The compiler names states by each constraint's stem (fsm/definition/paradigms/names.ts).
  const stems = constraintStems(a.checks.map((c) => c.id));
  return { doc, chosenKinds: a.checks.map((c, i) => ({ state: `fix_${stems[i] ?? c.id}`, action: c.fix })) };
}

function convergence(a: AnswersOf<'metric'>): ParadigmDocument {
  const way = a.direction === 'minimize' ? 'down' : 'up';
  const doc: Record<string, unknown> = {
    paradigm: 'convergence',
    name: a.name,
    description: `Drive the number \`${a.measure}\` prints ${way} to ${a.target}.`,
    check: a.measure,
    toward: a.target,
    using: a.improve.text,
    tolerance: a.tolerance,
    // minimize is the evaluator's default: left out, the FSM is seed 000's exactly.
    ...(a.direction === 'maximize' ? { direction: a.direction } : {}),
    max_iterations: a.maxAttempts,
  };
  return { doc, chosenKinds: [{ state: 'apply', action: a.improve }] };
}

function imperative(a: AnswersOf<'sequence'>): ParadigmDocument {
  const doc: Record<string, unknown> = {
    paradigm: 'imperative',
    name: a.name,
    description: `Run ${a.steps.length} step${a.steps.length === 1 ? '' : 's'} in order until \`${a.until}\` passes.`,
    steps: a.steps.map((s) => s.text),
    until: { check: a.until, passes: true },
    max_iterations: a.maxAttempts,
  };
  return { doc, chosenKinds: a.steps.map((action, i) => ({ state: `step_${i}`, action })) };
}

export function paradigmDocument(answers: Exclude<Answers, { kind: 'each' }>): ParadigmDocument {
  switch (answers.kind) {
    case 'fix':
    case 'constraints':
      return invariants(answers);
    case 'metric':
      return convergence(answers);
    case 'sequence':
      return imperative(answers);
  }
}
