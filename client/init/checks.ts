/**
 * What `ll-loop init` finds in a project: a check (a command that exits 0 when the check passes),
 * its kind, the program it needs and where it was found. Shared by the detectors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a check finds; each kind is a row of the proposal table (proposals.ts). */
export type CheckKind = 'tests' | 'lint' | 'types' | 'build';

export interface DetectedCheck {
  kind: CheckKind;
  /** The shell command that runs the check; exit code 0 means it passes. */
  command: string;
  /** The check's own autofix, when it has one (`ruff check . --fix`, `npm run lint:fix`). */
  fix?: string;
  /** The program that must be installed for the check to run (`eslint` behind `npm run lint`). */
  tool: string;
  /** Where it was found, e.g. `package.json scripts.test`, `pyproject.toml [tool.ruff]`. */
  source: string;
  /** The ecosystem: `node`, `python`, `rust`, `go`, `make`, `pre-commit`. */
  ecosystem: string;
}

/** The text of `cwd/name`, or undefined when it is missing or unreadable. */
export function readText(cwd: string, name: string): string | undefined {
  try {
    return readFileSync(join(cwd, name), 'utf8');
  } catch {
    return undefined;
  }
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Words that run the next word: `npx eslint`, `env X=1 tsc`, `cross-env …`. */
const WRAPPERS = new Set(['npx', 'env', 'cross-env', 'exec', 'dotenv']);
/** Two words that run the third: `uv run pytest`, `pnpm exec tsc`. */
const RUNNERS = new Set(['uv run', 'poetry run', 'pdm run', 'pipenv run', 'pnpm exec', 'yarn exec', 'npm exec']);

/** The program a shell command runs: env assignments and wrappers (`npx`, `uv run`) skipped. */
export function firstWord(command: string): string {
  const words = command.trim().split(/\s+/);
  let i = 0;
  for (;;) {
    const w = words[i] ?? '';
    if (ASSIGNMENT.test(w) || (w.startsWith('-') && i > 0)) i++;
    else if (WRAPPERS.has(w)) i++;
    else if (RUNNERS.has(`${w} ${words[i + 1] ?? ''}`)) i += 2;
    else break;
  }
  return words[i] ?? words[0] ?? '';
}
