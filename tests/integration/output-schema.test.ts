/**
 * `output_schema:` on a real workflow (issue 13 §4): a shell command's JSON output becomes
 * `${captured.<name>.json…}` for the next state, a non-JSON one is `error` with the errors in
 * details, and an agent (the host CLI: a scripted fake tool) whose first answer misses the schema
 * is asked again with the errors in its prompt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, project, runLoop, script, toolEnv } from './harness.js';

afterAll(closeTemporal);

const PLAN = {
  type: 'object',
  properties: { files: { type: 'array', items: { type: 'string' } } },
  required: ['files'],
};
const calls = (toolsDir: string, tool: string) =>
  readFileSync(join(toolsDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string; stdin: string })
    .filter((c) => c.tool === tool);

describe('output_schema', () => {
  const shellLoop = definition({
    name: 'planned',
    initial: 'plan',
    states: {
      plan: {
        action: 'planner',
        output_schema: PLAN,
        capture: 'plan',
        on_yes: 'use',
        on_no: 'failed',
        on_error: 'failed',
      },
      use: { action: 'echo "first: ${captured.plan.json.files.0}"', capture: 'used', next: 'done' },
      done: { terminal: true },
      failed: { terminal: true, failure: true },
    },
  });

  it('a shell command’s JSON is ${captured.<name>.json…} for the next state', async () => {
    const p = project(['planner']);
    script(p.toolsDir, 'planner', [[0, 'planning…\n{"files":["src/a.ts","src/b.ts"]}']]);
    const run = await runLoop(shellLoop, { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.result.captured.used!.output).toBe('first: src/a.ts');
    expect(run.events.find((e) => e.event === 'evaluate' && e.state === 'plan')).toMatchObject({
      verdict: 'yes',
      details: { value: { files: ['src/a.ts', 'src/b.ts'] } },
    });
  });

  it('a shell command whose output misses the schema gives error with the errors, run once', async () => {
    const p = project(['planner']);
    script(p.toolsDir, 'planner', [[0, '{"files":"src/a.ts"}']]);
    const run = await runLoop(shellLoop, { cwd: p.cwd, env: toolEnv(p) });
    expect(run.result).toMatchObject({ final_state: 'failed', failure: true });
    expect(run.events.find((e) => e.event === 'evaluate')).toMatchObject({
      type: 'output_schema',
      verdict: 'error',
      details: { errors: ['/files must be array'] },
    });
    expect(calls(p.toolsDir, 'planner')).toHaveLength(1);
  });

  it('an agent whose answer misses the schema is asked again with the errors appended', async () => {
    const p = project(['agent']);
    script(p.toolsDir, 'agent', [
      [0, 'Here is the plan: {"files": 3}'],
      [0, '```json\n{"files":["src/c.ts"]}\n```'],
    ]);
    const def = definition({
      name: 'agent-plan',
      initial: 'plan',
      states: {
        plan: {
          action: 'List the files to change as JSON',
          action_type: 'prompt',
          output_schema: PLAN,
          capture: 'plan',
          evaluate: { type: 'exit_code' },
          on_yes: 'done',
          on_error: 'failed',
        },
        done: { terminal: true },
        failed: { terminal: true, failure: true },
      },
    });
    const run = await runLoop(def, { cwd: p.cwd, env: toolEnv(p, { LL_HOST_CLI: 'agent' }) });
    expect(run.result).toMatchObject({ final_state: 'done', failure: false });
    expect(run.result.captured.plan).toMatchObject({ json: { files: ['src/c.ts'] } });
    const prompts = calls(p.toolsDir, 'agent').map((c) => c.stdin);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toBe('List the files to change as JSON');
    expect(prompts[1]).toContain(
      'List the files to change as JSON\n\nYour previous answer did not match the required JSON schema:\n<schema_errors>\n- /files must be array',
    );
    expect(run.events.find((e) => e.event === 'output_reask')).toMatchObject({ state: 'plan', ask: 2, asks: 3 });
  });
});
