/**
 * Reuse end to end: a loop that inherits a skeleton with `from:` and takes its check state from an
 * imported fragment is loaded by the real loader and run on the real Temporal server; what runs
 * is the merged loop (child context, fragment action, child route overrides, child-only states).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import { loadLoopFile } from '../../loader/load.js';
import { closeTemporal, project, runLoop, script, toolEnv } from './harness.js';

afterAll(closeTemporal);

const BASE = `
name: quality-base
description: check; while it fails, fix and check again
max_iterations: 6
import: [checks.yaml]
context:
  target: src
initial: check
states:
  check:
    fragment: run_check
    timeout: 30
  fix:
    action: "fixer \${context.target}"
    next: check
  done: { terminal: true }
  gave_up: { terminal: true, failure: true }
`;

// Templates in fragments stay templates until the state runs, so the child's context applies.
const CHECKS = `
fragments:
  run_check:
    description: run the checker on the target; its exit code is the verdict
    action: "checker --path \${context.target}"
    capture: check
    evaluate: { type: exit_code }
    on_yes: done
    on_no: fix
  report:
    action: "reporter \${captured.check.output}"
    next: done
`;

const CHILD = `
name: quality
description: the base loop on lib/, reporting before it ends
from: lib/base
import: [lib/checks.yaml]
context:
  target: lib
states:
  check:
    on_yes: report
  report:
    fragment: report
`;

describe('reuse on Temporal', () => {
  it('runs an inherited loop whose states come from an imported fragment, with the child overrides applied', async () => {
    const p = project(['checker', 'fixer', 'reporter']);
    mkdirSync(join(p.cwd, '.loops', 'lib'), { recursive: true });
    writeFileSync(join(p.cwd, '.loops', 'lib', 'base.yaml'), BASE);
    writeFileSync(join(p.cwd, '.loops', 'lib', 'checks.yaml'), CHECKS);
    writeFileSync(join(p.cwd, '.loops', 'quality.yaml'), CHILD);
    script(p.toolsDir, 'checker', [
      [1, '2 problems'],
      [0, 'clean'],
    ]);

    const loaded = loadLoopFile(join(p.cwd, '.loops', 'quality.yaml'), {}, p.cwd);
    if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
    const def = loaded.definition;
    expect(def.states.check).toMatchObject({
      action: 'checker --path ${context.target}',
      timeout: 30,
      on_yes: 'report',
      on_no: 'fix',
      capture: 'check',
    });

    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p) });
    expect(run.states).toEqual(['check', 'fix', 'check', 'report', 'done']);
    expect(run.result).toMatchObject({
      loop: 'quality',
      final_state: 'done',
      terminated_by: 'terminal',
      failure: false,
    });
    expect(run.result.captured.check).toMatchObject({ output: 'clean', exit_code: 0 });

    const calls = readFileSync(join(p.toolsDir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; args: string[] });
    expect(calls.map((c) => [c.tool, ...c.args])).toEqual([
      ['checker', '--path', 'lib'],
      ['fixer', 'lib'],
      ['checker', '--path', 'lib'],
      ['reporter', 'clean'],
    ]);
  });
});
