// Types of bench/outcomes/projects.mjs for the tests that import it (tests/integration/outcomes.test.ts).
export interface OutcomeProject {
  name: string;
  files: Record<string, string>;
  source: string[];
  defects: Array<{ check: string; file: string; from: string; to: string; hint: string }>;
  cheats: Array<{ file: string; from: string; to: string }>;
  checks: Record<string, string>;
  loops: string[];
  nodeModules?: boolean;
}

export const PROJECTS: OutcomeProject[];
export function writeProject(project: OutcomeProject, dir: string): void;
export function matrixCommands(project: OutcomeProject): Record<string, string>;
