/**
 * Snapshots of earlier releases in today's shape. The workflow, `ll-loop resume` and `upgrade`
 * read every snapshot an earlier release wrote (continue-as-new input, `ll-loop resume` input, a
 * run's result) through upgradeSnapshot() (docs/architecture.md, "Changing workflow or core
 * behaviour": shapes on the wire).
 */
import { SNAPSHOT_SEMANTICS, type RunData, type Snapshot } from './snapshot.js';
import type { ActionResult, EvalResult, ExecutionResult } from '../types.js';

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
 * a run's result), in today's shape. Runs of 0.1.0 get the one semantics value every snapshot carries.
 */
export function upgradeSnapshot(raw: Snapshot | LegacySnapshot): Snapshot {
  if ('status' in raw && 'semantics' in raw) return raw as Snapshot;
  const old = raw as LegacySnapshot;
  const { phase, pending, outcome, attempt, ...data } = old;
  const base: RunData = { ...data, semantics: SNAPSHOT_SEMANTICS, seq: 0, attempt: attempt ?? 1 };
  if (phase === 'done' && outcome) return { ...base, status: 'done', phase: 'done', outcome };
  if (phase === 'llm') return { ...base, status: 'running', phase: 'llm', pending: pending ?? null };
  const waiting =
    phase === 'subloop' || phase === 'backoff' || phase === 'retry_delay' || phase === 'maintain_delay'
      ? phase
      : 'action';
  return { ...base, status: 'running', phase: waiting };
}
