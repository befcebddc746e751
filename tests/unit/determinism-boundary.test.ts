/**
 * The determinism boundary, enforced by ESLint (eslint/boundary.js): the pure core (fsm/) and the
 * workflow code (workflows/) import no Node built-ins, no execa or yaml, no activity
 * implementations or non-sandbox Temporal packages, and read no ambient state (process, host
 * timers, randomness; in fsm/ also the clock). The fixtures are linted as files inside those
 * folders with exactly the rule blocks the project's config applies there.
 */
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { boundaryConfigs, fsmBoundary, workflowsBoundary } from '../../eslint/boundary.js';

const ROOT = join(import.meta.dirname, '..', '..');
// The boundary blocks alone: they need no type information, so virtual files lint quickly.
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: boundaryConfigs });

async function ruleIds(layer: 'fsm' | 'workflows', code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, layer, 'fixture.ts') });
  const fatal = result!.messages.find((m) => m.fatal);
  if (fatal) throw new Error(`fixture does not parse: ${fatal.message}`);
  return result!.messages.map((m) => m.ruleId ?? '');
}

const IMPORTS = '@typescript-eslint/no-restricted-imports';

describe('fsm/: no I/O, Temporal, outer layers, ambient state, clock or randomness', () => {
  it.each([
    ['a multi-line import of node:fs', "import {\n  readFileSync,\n} from 'node:fs';\n", IMPORTS],
    ['a bare built-in', "import fs from 'fs';\n", IMPORTS],
    ['a built-in sub-path', "import { join } from 'path/posix';\n", IMPORTS],
    ['a built-in only known with its prefix', "import test from 'node:test';\n", IMPORTS],
    ['a re-export of a built-in', "export { readFileSync } from 'node:fs';\n", IMPORTS],
    ['execa', "import { execa } from 'execa';\n", IMPORTS],
    ['yaml', "import { parse } from 'yaml';\n", IMPORTS],
    ['@temporalio/workflow', "import { sleep } from '@temporalio/workflow';\n", IMPORTS],
    ['workflow code', "import { loopWorkflow } from '../workflows/loop-workflow.js';\n", IMPORTS],
    ['activity types', "import type { LoopActivities } from '../activities/index.js';\n", IMPORTS],
    ['the loader, from a sub-folder', "import { load } from '../../loader/load.js';\n", IMPORTS],
    ['a dynamic import', "export const m = import('node:fs');\n", 'no-restricted-syntax'],
    ['process.env', 'export const x = process.env.X;\n', 'no-restricted-globals'],
    ['Buffer', "export const b = Buffer.from('x');\n", 'no-restricted-globals'],
    ['require', "export const fs = require('fs');\n", 'no-restricted-globals'],
    ['setTimeout', 'setTimeout(() => undefined, 5);\n', 'no-restricted-globals'],
    ['queueMicrotask', 'queueMicrotask(() => undefined);\n', 'no-restricted-globals'],
    ['performance.now()', 'export const t = performance.now();\n', 'no-restricted-globals'],
    ['Date.now()', 'export const t = Date.now();\n', 'no-restricted-properties'],
    ['Math.random()', 'export const r = Math.random();\n', 'no-restricted-properties'],
    ['new Date()', 'export const d = new Date();\n', 'no-restricted-syntax'],
    ['Date()', 'export const d = Date();\n', 'no-restricted-syntax'],
  ])('rejects %s', async (_what, code, rule) => {
    expect(await ruleIds('fsm', code)).toContain(rule);
  });

  it.each([
    ['zod and the core', "import { z } from 'zod';\nimport type { Snapshot } from './snapshot.js';\n"],
    ['a Date from a given time', 'export const at = (now: number) => new Date(now).toISOString();\n'],
    ['a local named like a global', 'export const f = (process: string) => process.length;\n'],
  ])('allows %s', async (_what, code) => {
    expect(await ruleIds('fsm', code)).toEqual([]);
  });
});

describe('workflows/: @temporalio/workflow, the core, and activity types only', () => {
  it.each([
    ['a multi-line import of node:fs', "import {\n  readFileSync,\n} from 'node:fs';\n", IMPORTS],
    ['activity implementations', "import { createActivities } from '../activities/index.js';\n", IMPORTS],
    ['worker code, even as a type', "import type { EventHub } from '../worker/event-hub.js';\n", IMPORTS],
    ['client code', "import { runCommand } from '../client/commands/run.js';\n", IMPORTS],
    ['@temporalio/client', "import { Client } from '@temporalio/client';\n", IMPORTS],
    ['@temporalio/activity', "import { Context } from '@temporalio/activity';\n", IMPORTS],
    ['@temporalio/proto', "import { temporal } from '@temporalio/proto';\n", IMPORTS],
    ['execa', "import { execa } from 'execa';\n", IMPORTS],
    ['process.env', 'export const x = process.env.X;\n', 'no-restricted-globals'],
    ['setTimeout', 'setTimeout(() => undefined, 5);\n', 'no-restricted-globals'],
    ['crypto', 'export const id = crypto.randomUUID();\n', 'no-restricted-globals'],
    ['Math.random()', 'export const r = Math.random();\n', 'no-restricted-properties'],
  ])('rejects %s', async (_what, code, rule) => {
    expect(await ruleIds('workflows', code)).toContain(rule);
  });

  it.each([
    ['activity types', "import type { LoopActivities } from '../activities/index.js';\n"],
    [
      'the workflow API and the core',
      "import { sleep } from '@temporalio/workflow';\nimport { step } from '../fsm/step.js';\n",
    ],
    ['the replay-safe clock', 'export const t = Date.now();\n'],
  ])('allows %s', async (_what, code) => {
    expect(await ruleIds('workflows', code)).toEqual([]);
  });
});

describe('the real trees', () => {
  it('fsm/ and workflows/ keep the boundary', async () => {
    const results = await eslint.lintFiles(['fsm/**/*.ts', 'workflows/**/*.ts']);
    expect(results.length).toBeGreaterThan(10);
    const problems = results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.ruleId}: ${m.message}`));
    expect(problems).toEqual([]);
  });

  it('the project config applies these very rules to fsm/ and workflows/', async () => {
    const project = new ESLint({ cwd: ROOT });
    for (const [file, block] of [
      ['fsm/step.ts', fsmBoundary],
      ['workflows/loop-workflow.ts', workflowsBoundary],
    ] as const) {
      const config = (await project.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
      for (const [rule, setting] of Object.entries(block.rules!)) {
        expect((config.rules![rule] as unknown[]).slice(1), `${rule} in ${file}`).toEqual(
          (setting as unknown[]).slice(1),
        );
      }
    }
  });
});
