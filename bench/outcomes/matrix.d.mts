// Types of bench/outcomes/matrix.mjs for the tests that import it (tests/integration/outcomes.test.ts).
import type { OutcomeProject } from './projects.mjs';

export const AGENT: string;
export const AGENTS: readonly string[];

/** What differs between the bench (dist/, its own server) and the tests (the sources, the test server). */
export interface CaseDeps<Def> {
  planInit: (root: string, env?: NodeJS.ProcessEnv) => { loops: Array<{ name: string }> };
  writePlan: (plan: never) => unknown;
  loopText: (loop: never) => string;
  loadLoop: (name: string, cwd: string) => Def;
  runLoop: (definition: Def, cwd: string) => Promise<Array<{ event: string; [field: string]: unknown }>>;
}

export interface CaseResult {
  project: string;
  loop: string;
  agent: string;
  final_state: string | undefined;
  succeeded: boolean;
  error: string | undefined;
  agent_calls: number;
  prompt_actions: number;
  iterations: number | undefined;
  steps: number | undefined;
  tamper_findings: string[];
  duration_ms: number | undefined;
  in_processes_ms: number;
  own_ms: number | undefined;
  own_per_pass_ms: number | undefined;
  oracle_green: boolean;
  green: boolean;
  false_green: boolean;
}

export function runCase<Def>(
  deps: CaseDeps<Def>,
  c: { project: OutcomeProject; loop: string; agent: string; dir: string },
): Promise<CaseResult>;
