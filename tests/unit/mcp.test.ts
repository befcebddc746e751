import { describe, expect, it } from 'vitest';
import { evaluateMcpResult } from '../../fsm/evaluators/mcp-result.js';
import { parseMcpTarget, renderMcpCall } from '../../fsm/mcp-call.js';
import { simulate } from '../../fsm/tools/simulate.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, eventsNamed, loop } from './helpers.js';

const input = (exitCode: number, output: unknown) => ({
  output: typeof output === 'string' ? output : JSON.stringify(output),
  exitCode,
  abnormal: false,
});

describe('mcp_result (seed 001 tier 3)', () => {
  it.each<[string, number, unknown, string]>([
    ['the tool ran (isError absent)', 0, { content: [{ type: 'text', text: 'ok' }] }, 'success'],
    ['the tool ran (isError false)', 0, { content: [], isError: false }, 'success'],
    ['the tool returned an error', 0, { content: [{ type: 'text', text: 'bad' }], isError: true }, 'tool_error'],
    ['server or tool missing (exit 127)', 127, { error: 'server "x" is not in .mcp.json' }, 'not_found'],
    ['transport timeout (exit 124)', 124, { error: 'did not answer' }, 'timeout'],
  ])('%s → %s', (_label, exitCode, envelope, verdict) => {
    expect(evaluateMcpResult({ type: 'mcp_result' }, input(exitCode, envelope))).toEqual({
      verdict,
      details: { exit_code: exitCode, envelope },
    });
  });

  it('a failed server is an error verdict with its reason', () => {
    expect(
      evaluateMcpResult({ type: 'mcp_result' }, input(1, { error: 'MCP server "s" exited before it answered' })),
    ).toEqual({
      verdict: 'error',
      details: {
        exit_code: 1,
        envelope: { error: 'MCP server "s" exited before it answered' },
        error: 'MCP server "s" exited before it answered',
      },
    });
  });

  it('exit 0 without an envelope (not an mcp_tool state, or garbage) is an error, not success', () => {
    const result = evaluateMcpResult({ type: 'mcp_result' }, input(0, 'plain text'));
    expect(result.verdict).toBe('error');
    expect(result.details).toMatchObject({
      exit_code: 0,
      envelope: null,
      error: expect.stringMatching(/no result envelope/),
    });
  });
});

describe('the call the core renders', () => {
  const scope = {
    context: { repo: 'acme/app', n: 3 },
    captured: {},
    prev: null,
    result: null,
    state: 's',
    iteration: 1,
  } as unknown as Parameters<typeof renderMcpCall>[2];

  it('splits server/tool and interpolates every string value, keeping ${env.*} for the worker', () => {
    const call = renderMcpCall(
      'github/get_issue',
      {
        repo: '${context.repo}',
        number: 7,
        labels: ['a-${context.n}'],
        auth: { token: 'Bearer ${env.GH_TOKEN}' },
        flag: true,
      },
      scope,
    );
    expect(call).toEqual({
      server: 'github',
      tool: 'get_issue',
      params: { repo: 'acme/app', number: 7, labels: ['a-3'], auth: { token: null }, flag: true },
      env_params: [{ path: ['auth', 'token'], text: { parts: ['Bearer ', { name: 'GH_TOKEN' }] } }],
    });
  });

  it.each(['get_issue', '/get_issue', 'github/', ''])('refuses %j as a target', (action) => {
    expect(parseMcpTarget(action)).toEqual({ error: expect.stringMatching(/"<server>\/<tool>"/) });
    expect(() => renderMcpCall(action, undefined, scope)).toThrow(/<server>\/<tool>/);
  });
});

describe('mcp_tool states', () => {
  it('run as kind mcp with mcp_result by default, a 30 s timeout, and route success', () => {
    const d = def(
      loop({
        call: {
          action: 'tiny/echo',
          action_type: 'mcp_tool',
          params: { text: 'hi' },
          route: { success: 'done', _: 'done' },
        },
      }),
    );
    const run = drive(d, {
      actions: { call: [{ output: JSON.stringify({ content: [{ type: 'text', text: 'hi' }] }) }] },
    });
    expect(run.actions[0]).toEqual({
      kind: 'mcp',
      mcp: { server: 'tiny', tool: 'echo', params: { text: 'hi' } },
      state: 'call',
      step: 1,
      timeout_s: 30,
    });
    expect(eventsNamed(run, 'evaluate')[0]).toMatchObject({ type: 'mcp_result', verdict: 'success' });
    expect(eventsNamed(run, 'action_start')[0]).toMatchObject({ action: 'tiny/echo', action_type: 'mcp' });
  });

  it('simulate passes with success and fails with tool_error', () => {
    const d = def(
      loop({
        call: {
          action: 'tiny/echo',
          action_type: 'mcp_tool',
          route: { success: 'done', tool_error: 'failed', _: 'failed' },
        },
        failed: { terminal: true, failure: true },
      }),
    );
    expect(simulate(d, 'all-pass', 10).outcome?.final_state).toBe('done');
    expect(simulate(d, 'all-fail', 10).outcome?.final_state).toBe('failed');
  });

  it('a target that cannot be rendered is the state error, routed', () => {
    const d = def(
      loop(
        { call: { action: '${context.tool}', action_type: 'mcp_tool', route: { success: 'done', _error: 'done' } } },
        { context: { tool: 'no-slash' } },
      ),
    );
    const run = drive(d);
    expect(run.actions).toEqual([]);
    expect(eventsNamed(run, 'action_error')[0]).toMatchObject({
      error: expect.stringMatching(/"<server>\/<tool>".*"no-slash"/),
    });
  });

  it.each<[string, Record<string, unknown>, unknown[], RegExp]>([
    [
      'an mcp_tool state without action',
      { action_type: 'mcp_tool', route: { success: 'done' } },
      ['states', 'a', 'action_type'],
      /needs action: "<server>\/<tool>"/,
    ],
    [
      'an action that is not server/tool',
      { action: 'get_issue', action_type: 'mcp_tool', route: { success: 'done' } },
      ['states', 'a', 'action'],
      /"<server>\/<tool>"/,
    ],
    [
      'params on a shell state',
      { action: 'make', params: { a: 1 }, next: 'done' },
      ['states', 'a', 'params'],
      /params: is for action_type: mcp_tool/,
    ],
    [
      'mcp_result on a shell state',
      { action: 'make', evaluate: { type: 'mcp_result' }, route: { success: 'done' } },
      ['states', 'a', 'evaluate'],
      /mcp_result judges the result of an action_type: mcp_tool state/,
    ],
    [
      'an undefined capture in params',
      { action: 's/t', action_type: 'mcp_tool', params: { q: '${captured.nope.output}' }, route: { success: 'done' } },
      ['states', 'a', 'params', 'q'],
      /no state captures/,
    ],
  ])('validation refuses %s', (_label, state, path, message) => {
    const result = validateLoop(loop({ a: state }));
    expect(result.definition).toBeUndefined();
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: 'error', path, message: expect.stringMatching(message) }),
    );
  });

  it('validation accepts ${env.*} in params and an interpolated target', () => {
    const result = validateLoop(
      loop(
        {
          a: {
            action: '${context.server}/echo',
            action_type: 'mcp_tool',
            params: { token: '${env.TOKEN}' },
            route: { success: 'done', _: 'done' },
          },
        },
        { context: { server: 'tiny' } },
      ),
    );
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('tool: names the tool apart from its server, and runs exactly as action: "<server>/<tool>"', () => {
    const split = def(
      loop({
        call: {
          action: 'tiny',
          tool: 'echo',
          action_type: 'mcp_tool',
          params: { text: 'hi' },
          route: { success: 'done', _: 'done' },
        },
      }),
    );
    const joined = def(
      loop({
        call: {
          action: 'tiny/echo',
          action_type: 'mcp_tool',
          params: { text: 'hi' },
          route: { success: 'done', _: 'done' },
        },
      }),
    );
    expect(split).toEqual(joined);
    expect(split.states['call']).not.toHaveProperty('tool');
  });

  it('tool: without mcp_tool, without a server, or beside a full target is an error naming the fix', () => {
    const errors = (state: Record<string, unknown>) =>
      validateLoop(loop({ call: { route: { success: 'done', _: 'done' }, ...state } })).diagnostics.filter(
        (d) => d.severity === 'error',
      );
    expect(errors({ action: 'tiny', tool: 'echo' })).toMatchObject([
      { path: ['states', 'call', 'tool'], message: 'tool: names the tool of an action_type: mcp_tool state' },
    ]);
    expect(errors({ tool: 'echo', action_type: 'mcp_tool' })).toMatchObject([
      { path: ['states', 'call', 'tool'], message: 'tool: "echo" needs its server' },
    ]);
    expect(errors({ action: 'tiny/echo', tool: 'echo', action_type: 'mcp_tool' })).toMatchObject([
      { message: 'action: "tiny/echo" already names a tool' },
    ]);
    expect(errors({ action: 'tiny', tool: 'other/echo', action_type: 'mcp_tool' })).toMatchObject([
      { message: 'tool: "other/echo" names a server too, and action: names one' },
    ]);
    expect(errors({ tool: 'tiny/echo', action_type: 'mcp_tool' })).toEqual([]);
  });
});
