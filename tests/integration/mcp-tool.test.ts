/**
 * mcp_tool states on the real server, against a tiny MCP server written for the test
 * (tests/fixtures/mcp-server, the SDK's server side over stdio) named in the project's
 * .mcp.json: each of mcp_result's verdicts, and servers that die or speak garbage as a clear
 * `error` verdict, never a stack trace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTemporal, definition, FIXTURES, project, runLoop, type RunOutcome } from './harness.js';

afterAll(closeTemporal);

const SERVER = join(FIXTURES, 'mcp-server');
const SECRET = 'mcp-secret-value-42';

function mcpProject(): string {
  const p = project();
  const node = process.execPath;
  const servers = {
    tiny: { command: node, args: [SERVER], env: { MCP_TOKEN: '${MCP_TOKEN_FOR_TEST:-unset}' } },
    dead: { command: node, args: [SERVER, '--exit-at-once'] },
    garbage: { command: node, args: [SERVER, '--garbage'] },
    missing: { command: join(p.cwd, 'no-such-server') },
  };
  writeFileSync(join(p.cwd, '.mcp.json'), JSON.stringify({ mcpServers: servers }, null, 2));
  return p.cwd;
}

/** One mcp_tool state whose every verdict ends in a terminal state named after it. */
async function call(
  cwd: string,
  action: string,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<RunOutcome & { evaluation: Record<string, unknown> }> {
  const def = definition({
    name: 'mcp-call',
    description: 'one MCP tool call',
    initial: 'call',
    context: { word: 'hi' },
    states: {
      call: {
        action,
        action_type: 'mcp_tool',
        capture: 'answer',
        route: {
          success: 'ok',
          tool_error: 'tool_error',
          not_found: 'not_found',
          timeout: 'timed_out',
          _error: 'broken',
        },
        ...extra,
      },
      ok: { terminal: true },
      tool_error: { terminal: true },
      not_found: { terminal: true },
      timed_out: { terminal: true },
      broken: { terminal: true },
    },
  });
  const run = await runLoop(def, { cwd, env, maskLoopEnv: true });
  const evaluation = run.events.find((e) => e.event === 'evaluate') as Record<string, unknown> | undefined;
  if (!evaluation) throw new Error(`no evaluation: ${JSON.stringify(run.events)}`);
  return { ...run, evaluation };
}

describe('mcp_tool on the real server', () => {
  const cwd = mcpProject();

  it('success: the tool result envelope, params interpolated, captured as JSON', async () => {
    const run = await call(cwd, 'tiny/echo', {
      params: { text: '${context.word}', n: 3, nested: { list: ['${context.word}!'] } },
    });
    expect(run.result.final_state).toBe('ok');
    expect(run.evaluation).toMatchObject({ type: 'mcp_result', verdict: 'success', details: { exit_code: 0 } });
    const envelope = (run.evaluation.details as { envelope: { content: Array<{ text: string }> } }).envelope;
    expect(envelope.content[0]?.text).toBe('echo: {"text":"hi","n":3,"nested":{"list":["hi!"]}}');
    expect(JSON.parse(run.result.captured.answer!.output)).toEqual(envelope);
    expect(run.events.find((e) => e.event === 'action_start')).toMatchObject({
      action: 'tiny/echo',
      action_type: 'mcp',
    });
  });

  it('tool_error: the tool answered isError', async () => {
    const run = await call(cwd, 'tiny/fail');
    expect(run.result.final_state).toBe('tool_error');
    expect(run.evaluation).toMatchObject({
      verdict: 'tool_error',
      details: { exit_code: 0, envelope: { isError: true } },
    });
  });

  it('not_found: a tool the server does not offer, or a server not in .mcp.json', async () => {
    const tool = await call(cwd, 'tiny/nope');
    expect(tool.result.final_state).toBe('not_found');
    expect(tool.evaluation).toMatchObject({
      verdict: 'not_found',
      details: {
        exit_code: 127,
        envelope: { error: expect.stringMatching(/MCP server "tiny" .* has no tool "nope"/) },
      },
    });
    const server = await call(cwd, 'ghost/echo');
    expect(server.result.final_state).toBe('not_found');
    expect(server.evaluation).toMatchObject({
      verdict: 'not_found',
      details: {
        exit_code: 127,
        envelope: {
          error: expect.stringMatching(
            /server "ghost" is not in .*\.mcp\.json \(its servers: tiny, dead, garbage, missing\)/,
          ),
        },
      },
    });
  });

  it('timeout: the call outlives the state timeout', async () => {
    const run = await call(cwd, 'tiny/slow', { params: { ms: 20_000 }, timeout: 1 });
    expect(run.result.final_state).toBe('timed_out');
    expect(run.evaluation).toMatchObject({
      verdict: 'timeout',
      details: { exit_code: 124, envelope: { error: expect.stringMatching(/did not answer slow within 1 s/) } },
    });
  });

  it('a server that exits at once, prints garbage or cannot start: an error verdict saying why', async () => {
    const dead = await call(cwd, 'dead/echo');
    expect(dead.result.final_state).toBe('broken');
    expect(dead.evaluation).toMatchObject({
      verdict: 'error',
      details: {
        exit_code: 1,
        error: expect.stringMatching(
          /MCP server "dead" .* exited before it answered; its last stderr line: tiny-mcp: configuration missing/,
        ),
      },
    });
    const garbage = await call(cwd, 'garbage/echo');
    expect(garbage.result.final_state).toBe('broken');
    expect(garbage.evaluation).toMatchObject({
      verdict: 'error',
      details: {
        exit_code: 1,
        error: expect.stringMatching(/MCP server "garbage" .* printed something that is not MCP JSON-RPC on stdout/),
      },
    });
    const missing = await call(cwd, 'missing/echo');
    expect(missing.evaluation).toMatchObject({
      verdict: 'error',
      details: { error: expect.stringMatching(/could not be started \(ENOENT\): check "command" in \.mcp\.json/) },
    });
    for (const run of [dead, garbage, missing]) expect(JSON.stringify(run.events)).not.toMatch(/\n\s+at /);
  });

  it('${env.*} in params is filled on the worker and masked; .mcp.json ${VAR} is expanded from the worker env', async () => {
    const run = await call(
      cwd,
      'tiny/echo',
      { params: { text: '${env.MCP_PARAM_SECRET}' } },
      { MCP_PARAM_SECRET: SECRET },
    );
    expect(run.evaluation).toMatchObject({ verdict: 'success' });
    expect(JSON.stringify(run.events)).not.toContain(SECRET);
    expect(JSON.stringify(run.result)).not.toContain(SECRET);
    expect(
      (run.evaluation.details as { envelope: { content: Array<{ text: string }> } }).envelope.content[0]?.text,
    ).toBe('echo: {"text":"***"}');
    const who = await call(cwd, 'tiny/whoami', {}, { MCP_TOKEN_FOR_TEST: 'tok-7' });
    expect(
      (who.evaluation.details as { envelope: { content: Array<{ text: string }> } }).envelope.content[0]?.text,
    ).toBe('token tok-7');
  });
});
