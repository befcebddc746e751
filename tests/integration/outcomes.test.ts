/**
 * The outcome benchmark's cases (bench/outcomes/: fixture projects with real defects, the loops
 * `ll-loop init` writes for them, scripted agents as the host CLI, an oracle that judges the
 * project on a fresh copy) on the test server. A representative part of `npm run bench -- --only
 * outcomes`'s matrix, kept well under a minute on 2 cores: every agent on the Python project's
 * test-until-pass; the cheater that weakens tsconfig.json on the TypeScript project's fix-types
 * (real tsc); the fixer on the Go project's fix-lint (real go vet). The bench runs all 40 cases.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLoop } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { loopText, planInit, writePlan } from '../../client/init/plan.js';
import { CURRENT_RUN_RULES } from '../../workflows/run-rules.js';
import { AGENT, runCase, type CaseDeps } from '../../bench/outcomes/matrix.mjs';
import { PROJECTS } from '../../bench/outcomes/projects.mjs';
import { closeTemporal, runLoop } from './harness.js';

afterAll(closeTemporal);

/** As `ll-loop run NAME` loads and runs the loop: its project's .loops/ first, the run rules of this release. */
const deps: CaseDeps<LoopDefinition> = {
  planInit,
  writePlan: writePlan as CaseDeps<LoopDefinition>['writePlan'],
  loopText: loopText as CaseDeps<LoopDefinition>['loopText'],
  loadLoop: (name, cwd) => {
    const loaded = loadLoop(name, cwd, { requireParameters: true });
    if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
    return loaded.definition;
  },
  runLoop: async (def, cwd) => {
    const run = await runLoop(def, {
      cwd,
      env: { LL_HOST_CLI: AGENT },
      localActivityMaxTimeoutS: 30,
      ...CURRENT_RUN_RULES,
    });
    return run.events;
  },
};

const run = (projectName: string, loop: string, agent: string) => {
  const project = PROJECTS.find((p) => p.name === projectName);
  if (!project) throw new Error(`no fixture project ${projectName}`);
  return runCase(deps, { project, loop, agent, dir: mkdtempSync(join(tmpdir(), 'll-loop-outcome-')) });
};

describe('python: test-until-pass (pytest)', () => {
  it('the fixer brings the project to green in one agent call', async () => {
    const r = await run('python', 'test-until-pass', 'fixer');
    expect(r).toMatchObject({ final_state: 'done', green: true, agent_calls: 1, iterations: 2 });
  });

  it('the cheater that rewrites the test to print "ok" is stopped by the tamper guard: no green', async () => {
    const r = await run('python', 'test-until-pass', 'cheater');
    expect(r).toMatchObject({ final_state: 'agent_failed', succeeded: false, false_green: false, agent_calls: 1 });
    expect(r.tamper_findings).toEqual(['modified: tests/test_calc.py']);
  });

  it('the no-op spends its five attempts and gives up: no green', async () => {
    const r = await run('python', 'test-until-pass', 'noop');
    expect(r).toMatchObject({ final_state: 'gave_up', succeeded: false, oracle_green: false, agent_calls: 5 });
  });

  it('the flaky agent gets there on its second call', async () => {
    const r = await run('python', 'test-until-pass', 'flaky');
    expect(r).toMatchObject({ final_state: 'done', green: true, agent_calls: 2, iterations: 3 });
  });
});

describe('typescript: fix-types (tsc)', () => {
  it('the cheater that sets "strict": false ends in weakened, not done', async () => {
    const r = await run('typescript', 'fix-types', 'cheater');
    expect(r).toMatchObject({ final_state: 'weakened', succeeded: false, false_green: false, agent_calls: 1 });
  });
});

describe('go: fix-lint (go vet)', () => {
  it('the fixer brings it to green', async () => {
    const r = await run('go', 'fix-lint', 'fixer');
    expect(r).toMatchObject({ final_state: 'done', green: true, agent_calls: 1 });
    // ll-loop's own time is what the run took beyond its actions' processes: never negative.
    expect(r.own_ms).toBeGreaterThanOrEqual(0);
  });
});
