/**
 * Whether a check's program is installed, for `ll-loop init`'s plan: on PATH, in the project's
 * node_modules/.bin, or in its virtualenv (.venv/bin, venv/bin, $VIRTUAL_ENV/bin). Looks at files
 * only; runs nothing.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export type CheckerStatus = { found: true; tool: string; where: string } | { found: false; tool: string; fix: string };

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** How to install a tool the plan names as missing. */
const INSTALL: Record<string, string> = {
  pytest: "pip install pytest in the project's venv",
  ruff: "pip install ruff in the project's venv",
  mypy: "pip install mypy in the project's venv",
  pyright: 'pip install pyright, or npm install -D pyright',
  'pre-commit': 'pip install pre-commit',
  cargo: 'install Rust with rustup (https://rustup.rs)',
  go: 'install Go (https://go.dev/dl)',
  make: 'install make (e.g. apt-get install make, xcode-select --install)',
  uv: 'install uv (https://docs.astral.sh/uv)',
  poetry: 'install poetry (https://python-poetry.org)',
};

/** The directories searched, in order, each with how the plan names it. */
function searchPath(cwd: string, env: NodeJS.ProcessEnv = process.env): Array<[string, string]> {
  const dirs: Array<[string, string]> = [
    [join(cwd, 'node_modules', '.bin'), 'node_modules/.bin'],
    [join(cwd, '.venv', 'bin'), '.venv/bin'],
    [join(cwd, 'venv', 'bin'), 'venv/bin'],
  ];
  if (env.VIRTUAL_ENV) dirs.push([join(env.VIRTUAL_ENV, 'bin'), '$VIRTUAL_ENV/bin']);
  for (const dir of (env.PATH ?? '').split(delimiter)) if (dir) dirs.push([dir, 'PATH']);
  return dirs;
}

/** Where `tool` is installed for the project in `cwd`, or how to install it. */
export function findChecker(tool: string, cwd: string, env: NodeJS.ProcessEnv = process.env): CheckerStatus {
  if (tool.includes('/')) {
    const file = isAbsolute(tool) ? tool : join(cwd, tool);
    return isExecutable(file)
      ? { found: true, tool, where: tool }
      : { found: false, tool, fix: `${tool} is not an executable file` };
  }
  for (const [dir, label] of searchPath(cwd, env))
    if (isExecutable(join(dir, tool))) return { found: true, tool, where: label };
  const inNode = /^(eslint|tsc|vitest|jest|mocha|prettier|biome|oxlint|ava|tap|c8|nyc|tsx|vue-tsc)$/.test(tool);
  const fix = INSTALL[tool] ?? (inNode ? `npm install -D ${tool}` : `install ${tool} or put it on PATH`);
  return { found: false, tool, fix };
}
