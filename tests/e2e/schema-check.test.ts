/**
 * `ll-loop run` checks LLM answers against their schema (issue 13 §4): the binary starts new runs
 * with LoopRunOptions.checkAnswers, so fake-claude's `maybe` (outside the schema's enum) is asked
 * again and the run routes on the valid second answer.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { freePort } from '../support/processes.js';

let cwd: string;
let env: NodeJS.ProcessEnv;
const cli = (args: string[]) => runCliBinary(args, { cwd, env });

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-e2e-schema-'));
  mkdirSync(join(cwd, '.loops'));
  mkdirSync(join(cwd, 'bin'));
  copyFileSync(join(import.meta.dirname, '..', 'fixtures', 'fake-claude'), join(cwd, 'bin', 'claude'));
  chmodSync(join(cwd, 'bin', 'claude'), 0o755);
  const verdicts = join(cwd, 'verdicts.jsonl');
  writeFileSync(
    verdicts,
    `${JSON.stringify({ verdict: 'maybe' })}\n${JSON.stringify({ verdict: 'done', confidence: 0.9, reason: 'built' })}\n`,
  );
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  env = {
    ...rest,
    PATH: `${join(cwd, 'bin')}:${process.env.PATH ?? ''}`,
    FAKE_CLAUDE_VERDICTS: verdicts,
    FAKE_CLAUDE_JUDGE_LOG: join(cwd, 'judge.log'),
    LL_TEMPORAL_PORT: String(await freePort()),
    LL_TEMPORAL_UI_PORT: String(await freePort()),
    NO_COLOR: '1',
  };
});

afterAll(async () => {
  await cli(['worker', 'stop']);
  await cli(['server', 'stop']);
});

describe('ll-loop run checks answers against their schema', () => {
  it('asks again after an answer outside the enum and routes on the valid one', async () => {
    writeFileSync(
      join(cwd, '.loops', 'judged.yaml'),
      `name: judged
description: judged by an LLM with a schema of its own
initial: check
states:
  check:
    action: "echo built"
    evaluate:
      type: llm_structured
      schema:
        type: object
        properties:
          verdict: { type: string, enum: [done, retry] }
        required: [verdict]
    route: { done: done, retry: failed, maybe: failed, error: failed }
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`,
    );
    const r = await cli(['run', 'judged']);
    expect(r.stdout).toContain(
      '↻ answer missed its schema (/verdict must be equal to one of the allowed values: "done", "retry"); asking again (2/3)',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Loop completed: done');
    const prompts = readFileSync(join(cwd, 'judge.log'), 'utf8').trim().split('\n');
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('schema_errors');
  });
});
