/**
 * A prompt action's agent output is live on the real server: a scripted host CLI prints Claude
 * Code's stream-json lines, then waits for a file the test writes before its last (`result`) line.
 * While it waits, the reader `logs --follow` uses (runs/follow/live-output.ts) already shows its
 * text and tool calls, readable and masked; once it ends, the action's result (text, cost, tokens,
 * session) is the last line's. A second prompt state, whose host CLI prints only the `json`
 * envelope (as other host CLIs do), still works, resumed with the first one's session.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveOutputReader } from '../../runs/follow/live-output.js';
import { closeTemporal, definition, project, runLoop, toolEnv } from './harness.js';

afterAll(closeTemporal);

const SECRET = 'sk-live"52\\value';

/**
 * The host CLI: its argv to calls.jsonl; the first call streams (and waits for `go` before its
 * result line), the second prints one `json` envelope.
 */
const AGENT = `#!/usr/bin/env node
const fs = require('node:fs');
const path = require('node:path');
const dir = process.env.AGENT_DIR;
let prompt = '';
process.stdin.on('data', (d) => (prompt += d));
process.stdin.on('end', () => {
  const log = path.join(dir, 'calls.jsonl');
  const n = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).length : 0;
  fs.appendFileSync(log, JSON.stringify({ args: process.argv.slice(2), prompt }) + '\\n');
  const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
  if (n > 0) {
    say({ type: 'result', subtype: 'success', is_error: false, result: 'checked', total_cost_usd: 0.05 });
    return;
  }
  say({ type: 'system', subtype: 'init', model: 'claude-test', session_id: 'sess-live' });
  say({ type: 'assistant', message: { content: [{ type: 'text', text: 'Working on: ' + prompt }] } });
  say({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'npm test -- parser' } }] } });
  say({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: '2 tests failed' }] } });
  const go = path.join(dir, 'go');
  const finish = () => {
    if (!fs.existsSync(go)) return void setTimeout(finish, 20);
    say({ type: 'assistant', message: { content: [{ type: 'text', text: 'Fixed the parser.' }] } });
    say({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, result: 'Fixed the parser.',
      session_id: 'sess-live', total_cost_usd: 0.25,
      usage: { input_tokens: 100, cache_read_input_tokens: 50, output_tokens: 20 } });
  };
  finish();
});
`;

describe('live agent output on the real server', () => {
  it('shows the agent’s text and tool calls while it works; the result is the last line’s', async () => {
    const p = project();
    writeFileSync(join(p.bin, 'agent'), AGENT);
    chmodSync(join(p.bin, 'agent'), 0o755);
    const def = definition({
      name: 'live-agent',
      description: 'a prompt action watched while it works',
      initial: 'work',
      states: {
        work: { action: 'fix ${env.LIVE_TOKEN}', action_type: 'prompt', capture: 'fix', next: 'check' },
        check: { action: 'check it', action_type: 'prompt', session_mode: 'continue', capture: 'check', next: 'done' },
        done: { terminal: true },
      },
    });
    let text = '';
    let beforeEnd = '';
    let reader: LiveOutputReader | undefined;
    const run = await runLoop(def, {
      cwd: p.cwd,
      env: toolEnv(p, { LL_HOST_CLI: 'agent', AGENT_DIR: p.toolsDir, LIVE_TOKEN: SECRET }),
      onStarted: async (workflowId) => {
        // What `logs --follow` shows of state work, up to the tool error (the host CLI then waits).
        await new Promise<void>((resolve) => {
          reader = new LiveOutputReader(
            { cwd: p.cwd, instanceId: workflowId, state: 'work' },
            {
              onText: (t) => {
                text += t;
                if (text.includes('tool error: 2 tests failed\n')) resolve();
              },
            },
          );
        });
        // The action has not ended: its result line is not printed yet.
        expect(existsSync(join(p.toolsDir, 'go'))).toBe(false);
        beforeEnd = text;
        writeFileSync(join(p.toolsDir, 'go'), '');
      },
    });
    reader?.stop();
    const working = [
      '[agent: claude-test]',
      'Working on: fix ***',
      'tool: Bash npm test -- parser',
      'tool error: 2 tests failed',
    ];
    expect(beforeEnd).toBe(`${working.join('\n')}\n`);
    // The reader that was there reads on to the end (its open file outlives the action).
    expect(text).toBe(`${[...working, 'Fixed the parser.', '[agent done: 3 turns]'].join('\n')}\n`);

    expect(run.result).toMatchObject({ terminated_by: 'terminal', final_state: 'done' });
    expect(run.result.captured['fix']).toMatchObject({ output: 'Fixed the parser.', exit_code: 0 });
    expect(run.result.captured['check']).toMatchObject({ output: 'checked', exit_code: 0 });
    // Cost and tokens from the envelopes: 0.25 + 0.05 USD; 100 + 50 input and 20 output tokens.
    expect(run.result.spent).toMatchObject({ cost_usd: 0.3, tokens: 170 });
    const calls = readFileSync(join(p.toolsDir, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { args: string[] });
    expect(calls[0]!.args.join(' ')).toContain('--output-format stream-json --verbose');
    // The session the first stream's result line named is resumed.
    expect(calls[1]!.args.join(' ')).toContain('--resume sess-live');
  });
});
