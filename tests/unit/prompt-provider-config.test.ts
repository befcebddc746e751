/**
 * Prompt states under an API provider (issue 13 §3): the loop's `llm:` applies to prompt states
 * as to evaluations, a state's own `llm:` overrides it field by field; what the run_action input
 * carries (nothing new without an API provider: replay); the load errors (agent, tools, a slash
 * command, `llm:` on a state without a prompt, a non-numeric max_tokens with file:line); the keys
 * checked before `run`; and `ll-loop show` naming the provider and model.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkProviderKeys } from '../../runs/start/provider-keys.js';
import { showCommand } from '../../client/commands/show.js';
import { llmJudged } from '../../fsm/evaluate-state.js';
import { PROMPT_MAX_TOKENS, requiredKeys } from '../../fsm/llm-provider.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { runCliInProcess } from '../support/cli.js';
import { def, drive, loop } from './helpers.js';

const prompted = (state: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  def(
    loop(
      { write: { action: 'Write a haiku about ${context.topic}', action_type: 'prompt', next: 'done', ...state } },
      { context: { topic: 'rain' }, ...extra },
    ),
  );

function actionInput(d: ReturnType<typeof def>): Record<string, unknown> {
  const c = drive(d).commands.find((x) => x.type === 'run_action');
  if (c?.type !== 'run_action') throw new Error('no run_action');
  return c.input as unknown as Record<string, unknown>;
}

function project(files: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-prompt-prov-'));
  mkdirSync(join(cwd, '.loops'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, '.loops', name), text);
  return cwd;
}

describe('the run_action input of a prompt state', () => {
  it('under the host CLI it is exactly what it always was (no llm, no model)', () => {
    const input = actionInput(prompted({}, { llm: { model: 'haiku' } }));
    expect(input).toEqual({
      kind: 'prompt',
      prompt: { parts: ['Write a haiku about rain'] },
      state: 'write',
      step: 1,
      timeout_s: 3600,
    });
    expect(JSON.stringify(input)).toBe(
      '{"kind":"prompt","prompt":{"parts":["Write a haiku about rain"]},"state":"write","step":1,"timeout_s":3600}',
    );
  });

  it("the state's own llm.model goes to the host CLI as --model", () => {
    expect(actionInput(prompted({ llm: { model: 'opus' } }))).toMatchObject({ model: 'opus' });
  });

  it('a loop-level API provider carries the request, with the prompt max_tokens default', () => {
    const input = actionInput(prompted({}, { llm: { provider: 'anthropic', model: 'claude-x', max_tokens: 100 } }));
    // The loop's max_tokens bounds judges' answers; a completion takes its own or the default.
    expect(input['llm']).toEqual({
      provider: 'anthropic',
      model: 'claude-x',
      api_key_env: 'ANTHROPIC_API_KEY',
      key_required: true,
      max_tokens: PROMPT_MAX_TOKENS,
    });
    expect(input).not.toHaveProperty('model');
  });

  it("the state's llm: overrides the loop's field by field", () => {
    const d = prompted(
      { llm: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1', max_tokens: 900 } },
      { llm: { provider: 'anthropic', model: 'llama3' } },
    );
    expect(actionInput(d)['llm']).toEqual({
      provider: 'openai-compatible',
      model: 'llama3',
      base_url: 'http://127.0.0.1:11434/v1',
      api_key_env: 'OPENAI_API_KEY',
      key_required: false,
      max_tokens: 900,
    });
  });

  it('a shell state under a loop-level API provider is untouched', () => {
    const d = def(loop({ build: { action: 'make', next: 'done' } }, { llm: { provider: 'anthropic', model: 'm' } }));
    expect(actionInput(d)).not.toHaveProperty('llm');
  });
});

describe('load errors', () => {
  const errorOf = (raw: Record<string, unknown>) => validateLoop(raw).diagnostics.find((x) => x.severity === 'error');
  const api = { llm: { provider: 'anthropic', model: 'm' } };

  it.each([
    [
      'agent',
      { action: 'Fix it', action_type: 'prompt', agent: 'fixer' },
      ['states', 'fix', 'agent'],
      'cannot run an agent',
      'remove agent:',
    ],
    [
      'tools',
      { action: 'Fix it', action_type: 'prompt', tools: ['Edit'] },
      ['states', 'fix', 'tools'],
      'cannot run an agent with tools',
      'remove tools:',
    ],
    [
      'a slash command',
      { action: '/ll:fix' },
      ['states', 'fix', 'action'],
      'cannot run a slash command',
      'llm: { provider: host-cli }',
    ],
  ])('a prompt state with %s under an API provider names the state and the fix', (_what, state, path, message, fix) => {
    const e = errorOf(loop({ fix: { ...state, next: 'done' } }, api));
    expect(e).toMatchObject({
      path,
      message: expect.stringContaining(
        `state "fix": its prompt runs through the anthropic API (the loop's llm.provider) as a plain completion, which ${message}`,
      ),
      fix: expect.stringContaining(fix),
    });
  });

  it('the same state with llm: { provider: host-cli } loads', () => {
    expect(
      errorOf(
        loop(
          {
            fix: {
              action: 'Fix it',
              action_type: 'prompt',
              agent: 'fixer',
              llm: { provider: 'host-cli' },
              next: 'done',
            },
          },
          api,
        ),
      ),
    ).toBeUndefined();
  });

  it('llm: on a state without a prompt, and an API provider without a model, are errors at their path', () => {
    expect(errorOf(loop({ build: { action: 'make', llm: { model: 'x' }, next: 'done' } }))).toMatchObject({
      path: ['states', 'build', 'llm'],
      message: expect.stringContaining('this state runs no prompt'),
    });
    expect(
      errorOf(
        loop({ w: { action: 'Hi', action_type: 'prompt', llm: { provider: 'openai-compatible' }, next: 'done' } }),
      ),
    ).toMatchObject({ path: ['states', 'w', 'llm'], message: 'state "w": provider openai-compatible needs a model' });
  });

  it('a non-numeric max_tokens is a load error with file:line, at loop and state level', async () => {
    const cwd = project({
      'a.yaml': [
        'name: a',
        'initial: w',
        'llm:',
        '  provider: anthropic',
        '  model: m',
        '  max_tokens: lots',
        'states:',
        '  w: { action: Hi, action_type: prompt, next: done }',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
      'b.yaml': [
        'name: b',
        'initial: w',
        'states:',
        '  w:',
        '    action: Hi',
        '    action_type: prompt',
        '    llm: { provider: anthropic, model: m, max_tokens: "2k" }',
        '    next: done',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    });
    const a = await runCliInProcess(['validate', 'a'], { cwd });
    expect(a.code).not.toBe(0);
    expect(a.stdout + a.stderr).toMatch(/a\.yaml:6:\d+/);
    expect(a.stdout + a.stderr).toContain('max_tokens');
    const b = await runCliInProcess(['validate', 'b'], { cwd });
    expect(b.code).not.toBe(0);
    expect(b.stdout + b.stderr).toMatch(/b\.yaml:7:\d+/);
    for (const r of [a, b]) expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('keys and show', () => {
  it('a prompt state under an API provider needs its key; the message says it runs the prompt', () => {
    const d = prompted({ llm: { provider: 'openai-compatible', model: 'gpt-x', api_key_env: 'LL_PROMPT_KEY' } });
    expect(requiredKeys(d, llmJudged(d))).toEqual([
      { variable: 'LL_PROMPT_KEY', provider: 'openai-compatible', state: 'write', role: 'prompt' },
    ]);
    expect(() => checkProviderKeys(d, {})).toThrow(
      'state "write" runs its prompt through the openai-compatible API, but LL_PROMPT_KEY is not set; nothing was run',
    );
    expect(() => checkProviderKeys(d, {}, 'resume')).toThrow(/nothing was resumed/);
    expect(() => checkProviderKeys(d, { LL_PROMPT_KEY: 'k' })).not.toThrow();
  });

  it('ll-loop run refuses before the run starts', async () => {
    const cwd = project({
      'p.yaml': [
        'name: p',
        'initial: w',
        'llm: { provider: anthropic, model: m, api_key_env: LL_P13_PROMPT_ABSENT }',
        'states:',
        '  w: { action: Hi, action_type: prompt, next: done }',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    });
    // Were the check missing, the run would fail reaching this address (exit 7), not exit 1.
    vi.stubEnv('TEMPORAL_ADDRESS', '127.0.0.1:9');
    vi.stubEnv('LL_P13_PROMPT_ABSENT', '');
    try {
      const r = await runCliInProcess(['run', 'p'], { cwd });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'state "w" runs its prompt through the anthropic API, but LL_P13_PROMPT_ABSENT is not set; nothing was run',
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('ll-loop show names the provider and model of each prompt and evaluation', () => {
    const cwd = project({
      's.yaml': [
        'name: s',
        'initial: w',
        'llm: { provider: anthropic, model: claude-x }',
        'states:',
        '  w: { action: Write it, action_type: prompt, next: check }',
        '  check: { action: Review it, action_type: prompt, llm: { provider: host-cli, model: opus }, evaluate: { type: llm_structured, llm: { provider: openai-compatible, model: llama3, base_url: "http://127.0.0.1:11434/v1" } }, on_yes: done, on_no: w }',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    });
    let out = '';
    let err = '';
    const code = showCommand({
      cwd,
      target: 's',
      format: 'text',
      context: [],
      colour: false,
      width: 200,
      out: (t) => void (out += t),
      err: (t) => void (err += t),
    });
    expect(code).toBe(0);
    expect(err).not.toContain('error');
    expect(out).toContain('[anthropic claude-x] Write it');
    expect(out).toContain('[host CLI opus] Review it');
    // The evaluator column wraps its text onto the next line.
    expect(out).toMatch(/llm_structured by openai-compatible {2,}.*\n {20,}llama3/);
  });
});
