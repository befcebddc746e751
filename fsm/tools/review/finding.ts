/**
 * What `ll-loop review` reports: judgement findings about a loop that `validate` accepts. Each
 * names its rule, its severity, the state it is about (absent for the loop as a whole), what is
 * wrong and the fix. Pure data; the rules are in this folder (rules.ts lists them).
 */
import type { LoopDefinition } from '../../schema.js';

type FindingSeverity = 'error' | 'warning' | 'info';

export interface Finding {
  rule: string;
  severity: FindingSeverity;
  state?: string;
  message: string;
  fix: string;
}

/** What a rule may know beyond the definition: the host CLI names a shell action may run. */
export interface ReviewOptions {
  /** Program names that run the host CLI (`claude`, and `LL_HOST_CLI`'s when set). */
  hostClis: readonly string[];
}

/** A review rule: a pure function of the loaded (valid) definition. */
export interface ReviewRule {
  id: string;
  severity: FindingSeverity;
  /** One line for docs and `--json` consumers: what the rule looks for. */
  summary: string;
  check(def: LoopDefinition, opts: ReviewOptions): Finding[];
}
