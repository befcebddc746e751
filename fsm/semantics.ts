/**
 * Versioned core semantics: how a run keeps the rules it started with when ll-loop is upgraded
 * under it (docs/architecture.md, "Changing workflow or core behaviour").
 *
 * Every snapshot carries the semantics version its run started with; the workflow records that
 * version in the run's history when it starts (workflows/semantics-gate.ts: one patch marker per
 * version above 1), so every later replay starts the run with the same one. A change to the core
 * that would make an existing run decide differently — route elsewhere, run another action, sleep
 * another time — bumps CORE_SEMANTICS and keeps the old rule for older runs:
 *
 *   if (since(d.snap, 2)) newRule(); else oldRule();
 *
 * The committed histories (tests/fixtures/histories/) replay every recorded run with today's core,
 * so a change made without such a gate fails `npm run test:replay`.
 */
import type { RunData, Snapshot } from './snapshot.js';
import type { ActionResult, EvalResult, ExecutionResult } from './types.js';

/** The semantics new runs start with. 1: ll-loop 0.1.0's rules. */
export const CORE_SEMANTICS = 1;

/** True when the run's rules include those introduced at `version`. */
export function since(snap: Pick<RunData, 'semantics'>, version: number): boolean {
  return snap.semantics >= version;
}

/** A 0.1.0 snapshot: one bag of fields, `phase` 'starting' … 'done', no status, no sequence. */
interface LegacySnapshot extends Omit<RunData, 'semantics' | 'seq' | 'attempt'> {
  phase: string;
  attempt?: number;
  pending?: ActionResult | null;
  outcome?: ExecutionResult | null;
  result: EvalResult | null;
}

/**
 * Any snapshot this or an earlier release wrote (continue-as-new input, `ll-loop resume` input,
 * a run's result), in today's shape. Runs of 0.1.0 get semantics 1 — the rules they started with.
 */
export function upgradeSnapshot(raw: Snapshot | LegacySnapshot): Snapshot {
  if ('status' in raw && 'semantics' in raw) return raw as Snapshot;
  const old = raw as LegacySnapshot;
  const { phase, pending, outcome, attempt, ...data } = old;
  const base: RunData = { ...data, semantics: 1, seq: 0, attempt: attempt ?? 1 };
  if (phase === 'done' && outcome) return { ...base, status: 'done', phase: 'done', outcome };
  if (phase === 'llm') return { ...base, status: 'running', phase: 'llm', pending: pending ?? null };
  const waiting = phase === 'subloop' || phase === 'backoff' || phase === 'retry_delay' || phase === 'maintain_delay' ? phase : 'action';
  return { ...base, status: 'running', phase: waiting };
}
