/**
 * fix-types, fix-lint and check-matrix pin the checkers' configuration (their `config_cmd` checksum) before the
 * first fix and compare it once the check passes: an agent that makes the check pass by weakening
 * the configuration ends the run in `weakened`, never in `done`; an edit elsewhere in a shared
 * file (pyproject.toml's dependencies) is no weakening. On the test server, with a scripted agent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal } from './harness.js';
import { builtin, prompts, runIn, sandbox } from './catalog-sandbox.js';

afterAll(closeTemporal);

// A checker that fails while its configuration is strict (as tsc does with strict: true on code with implicit anys).
const STRICT_TSC = {
  'typecheck.sh': "if grep -q '\"strict\": true' tsconfig.json; then echo 'a.ts(1,1): error TS7006'; exit 2; fi",
};
const TSCONFIG = { 'tsconfig.json': '{ "compilerOptions": { "strict": true } }\n' };

describe('fix-types', () => {
  it("ends in weakened when the agent turns the checker's strictness off", async () => {
    const p = sandbox(
      { ...STRICT_TSC, 'agent.sh': 'sed -i \'s/"strict": true/"strict": false/\' tsconfig.json' },
      TSCONFIG,
    );
    const { result, states } = await runIn(p, builtin(p, 'fix-types', { type_cmd: './typecheck.sh' }));
    expect(states).toEqual(['pin', 'check', 'triage', 'budget', 'fix', 'check', 'unchanged', 'weakened']);
    expect(result).toMatchObject({ final_state: 'weakened', failure: true });
    expect(prompts(p)).toHaveLength(1);
  });
});

describe('check-matrix', () => {
  it("ends in weakened when the agent turns the type checker's strictness off and every check then passes", async () => {
    const p = sandbox(
      { ...STRICT_TSC, 'agent.sh': 'sed -i \'s/"strict": true/"strict": false/\' tsconfig.json' },
      TSCONFIG,
    );
    const commands = { build_cmd: 'true', type_cmd: './typecheck.sh', lint_cmd: 'true', test_cmd: 'true' };
    const { result, states } = await runIn(p, builtin(p, 'check-matrix', commands));
    expect(states.slice(-3)).toEqual(['tests', 'unchanged', 'weakened']);
    expect(result).toMatchObject({ final_state: 'weakened', failure: true });
  });
});

describe('fix-lint', () => {
  const RUFF = '[project]\nname = "x"\ndependencies = []\n\n[tool.ruff.lint]\nselect = ["F"]\n';
  const LINT = {
    'lint.sh': 'if grep -q \'select = \\["F"\\]\' pyproject.toml && [ -s lint.txt ]; then cat lint.txt; exit 1; fi',
  };

  it('ends in weakened when the agent empties the [tool.ruff] section', async () => {
    const p = sandbox(
      { ...LINT, 'agent.sh': 'sed -i \'s/select = \\["F"\\]/select = []/\' pyproject.toml' },
      {
        'pyproject.toml': RUFF,
        'lint.txt': 'F401 unused import\n',
      },
    );
    const { result, states } = await runIn(p, builtin(p, 'fix-lint', { lint_cmd: './lint.sh', fix_cmd: 'true' }));
    expect(states.slice(-3)).toEqual(['lint', 'unchanged', 'weakened']);
    expect(result).toMatchObject({ final_state: 'weakened', failure: true });
  });

  it('ends in done when the agent fixes the code and adds a dependency to pyproject.toml', async () => {
    const agent = ': > lint.txt; sed -i \'s/dependencies = \\[\\]/dependencies = ["attrs"]/\' pyproject.toml';
    const p = sandbox({ ...LINT, 'agent.sh': agent }, { 'pyproject.toml': RUFF, 'lint.txt': 'F401 unused import\n' });
    const { result, states } = await runIn(p, builtin(p, 'fix-lint', { lint_cmd: './lint.sh', fix_cmd: 'true' }));
    expect(states.slice(-3)).toEqual(['lint', 'unchanged', 'done']);
    expect(result).toMatchObject({ final_state: 'done', failure: false });
  });
});
