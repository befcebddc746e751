/**
 * Python checks for `ll-loop init`: pytest, ruff, mypy and pyright, found in pyproject.toml (a
 * `[tool.<name>]` table, or the tool among the dependencies), setup.cfg / tox.ini sections, or
 * the tool's own config file. pyproject.toml is read with a small line reader of the table headers
 * and dependency strings it needs, not a TOML parser: no dependency for a few keys.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readText, type CheckKind, type DetectedCheck } from './checks.js';

/** What pyproject.toml says: its table headers, and the package names its dependency lists name. */
export interface PyprojectFacts {
  tables: Set<string>;
  dependencies: Set<string>;
  /** `[tool.mypy]` sets `files`: a bare `mypy` knows what to check. */
  mypyFiles: boolean;
}

/** A line without its `#` comment (a `#` inside a quoted string is kept). */
function uncommented(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#') return line.slice(0, i);
  }
  return line;
}

/** The package name a requirement string starts with (`pytest>=7` → `pytest`), lower-cased. */
function requirementName(requirement: string): string | undefined {
  return /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(requirement)?.[1]?.toLowerCase().replaceAll('_', '-');
}

/** Tables whose keys are dependency lists or package names. */
const DEPENDENCY_TABLE = /(^|\.)(optional-dependencies|dependency-groups|dependencies|dev-dependencies)$/;
const DEPENDENCY_KEY = /^(dependencies|dev-dependencies|optional-dependencies)$/;

/** The facts of a pyproject.toml text (see {@link PyprojectFacts}). */
export function readPyproject(text: string): PyprojectFacts {
  const facts: PyprojectFacts = { tables: new Set(), dependencies: new Set(), mypyFiles: false };
  let table = '';
  let arrayIsDependencies = false;
  let inArray = false;
  const addStrings = (s: string) => {
    for (const m of s.matchAll(/"([^"]*)"|'([^']*)'/g)) {
      const name = requirementName(m[1] ?? m[2] ?? '');
      if (name) facts.dependencies.add(name);
    }
  };
  for (const raw of text.split('\n')) {
    const line = uncommented(raw).trim();
    if (inArray) {
      if (arrayIsDependencies) addStrings(line);
      if (line.includes(']')) inArray = false;
      continue;
    }
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header?.[1]) {
      table = header[1].replaceAll(/\s|"/g, '');
      facts.tables.add(table);
      continue;
    }
    const pair = /^([A-Za-z0-9_."-]+)\s*=\s*(.*)$/.exec(line);
    if (!pair?.[1]) continue;
    const key = pair[1].replaceAll('"', '');
    const value = pair[2] ?? '';
    if (table === 'tool.mypy' && key === 'files') facts.mypyFiles = true;
    const dependencyTable = DEPENDENCY_TABLE.test(table);
    // In a table of dependencies, a key can be the package (poetry: `pytest = "^8"`).
    if (dependencyTable && !value.startsWith('[')) {
      const name = requirementName(key);
      if (name) facts.dependencies.add(name);
    }
    if (value.startsWith('[')) {
      arrayIsDependencies = dependencyTable || DEPENDENCY_KEY.test(key);
      if (arrayIsDependencies) addStrings(value);
      inArray = !value.includes(']');
    }
  }
  return facts;
}

/** The section names of an INI file (setup.cfg, tox.ini). */
function iniSections(text: string): Set<string> {
  return new Set([...text.matchAll(/^\s*\[([^\]]+)\]\s*$/gm)].map((m) => (m[1] ?? '').trim()));
}

interface PythonTool {
  name: string;
  kind: CheckKind;
  command: (facts: PyprojectFacts) => string;
  fix?: string;
  /** pyproject tables that configure it. */
  tables: string[];
  /** setup.cfg / tox.ini sections that configure it. */
  sections: string[];
  /** Its own config files. */
  files: string[];
}

const TOOLS: PythonTool[] = [
  {
    name: 'pytest',
    kind: 'tests',
    command: () => 'pytest -q',
    tables: ['tool.pytest.ini_options', 'tool.pytest'],
    sections: ['tool:pytest', 'pytest'],
    files: ['pytest.ini'],
  },
  {
    name: 'ruff',
    kind: 'lint',
    command: () => 'ruff check .',
    fix: 'ruff check . --fix',
    tables: ['tool.ruff', 'tool.ruff.lint'],
    sections: [],
    files: ['ruff.toml', '.ruff.toml'],
  },
  {
    name: 'mypy',
    kind: 'types',
    command: (facts) => (facts.mypyFiles ? 'mypy' : 'mypy .'),
    tables: ['tool.mypy'],
    sections: ['mypy'],
    files: ['mypy.ini', '.mypy.ini'],
  },
  {
    name: 'pyright',
    kind: 'types',
    command: () => 'pyright',
    tables: ['tool.pyright'],
    sections: [],
    files: ['pyrightconfig.json'],
  },
];

/** `uv run ` / `poetry run ` / `pdm run ` by the lock file present, so the project's venv is used. */
function runnerPrefix(cwd: string): string {
  if (existsSync(join(cwd, 'uv.lock'))) return 'uv run ';
  if (existsSync(join(cwd, 'poetry.lock'))) return 'poetry run ';
  if (existsSync(join(cwd, 'pdm.lock'))) return 'pdm run ';
  return '';
}

export function pythonChecks(cwd: string): DetectedCheck[] {
  const pyproject = readText(cwd, 'pyproject.toml');
  const facts = pyproject === undefined ? readPyproject('') : readPyproject(pyproject);
  const ini = new Map<string, Set<string>>();
  for (const file of ['setup.cfg', 'tox.ini']) {
    const text = readText(cwd, file);
    if (text !== undefined) ini.set(file, iniSections(text));
  }
  const prefix = runnerPrefix(cwd);
  const out: DetectedCheck[] = [];
  for (const tool of TOOLS) {
    const table = tool.tables.find((t) => facts.tables.has(t));
    const iniHit = [...ini].flatMap(([file, sections]) =>
      tool.sections.filter((s) => sections.has(s)).map((s) => `${file} [${s}]`),
    )[0];
    const file = tool.files.find((f) => existsSync(join(cwd, f)));
    const source =
      table !== undefined
        ? `pyproject.toml [${table}]`
        : (iniHit ??
          (file !== undefined ? file : facts.dependencies.has(tool.name) ? 'pyproject.toml dependencies' : undefined));
    if (source === undefined) continue;
    out.push({
      kind: tool.kind,
      command: prefix + tool.command(facts),
      ...(tool.fix === undefined ? {} : { fix: prefix + tool.fix }),
      tool: tool.name,
      source,
      ecosystem: 'python',
    });
  }
  return out;
}
