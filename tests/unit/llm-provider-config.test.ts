/**
 * `llm: { provider, model, base_url, api_key_env }` in the pure core (issue 13 §3): validation,
 * the loop's settings overridden per evaluation, the request the LLM activity gets (a key's
 * variable name, never a key), the keys a run needs, and `error` details from a provider reply.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkProviderKeys } from '../../runs/start/provider-keys.js';
import { runCliInProcess } from '../support/cli.js';
import { llmJudged } from '../../fsm/evaluate-state.js';
import { llmResult } from '../../fsm/run/facts.js';
import { providerRequest, requiredKeys } from '../../fsm/llm-provider.js';
import { validateLoop } from '../../fsm/definition/validate.js';
import { def, drive, loop } from './helpers.js';

const judged = (extra: Record<string, unknown>, evaluate: Record<string, unknown> = { type: 'llm_structured' }) =>
  def(loop({ check: { action: 'make test', evaluate, on_yes: 'done', on_no: 'done' } }, extra));

function evaluateInput(d: ReturnType<typeof def>): Record<string, unknown> | undefined {
  const run = drive(d, { llm: { check: ['yes'] } });
  const c = run.commands.find((x) => x.type === 'evaluate_llm');
  return c?.type === 'evaluate_llm' ? (c.input as unknown as Record<string, unknown>) : undefined;
}

describe('llm provider settings', () => {
  it('the host CLI (no provider) gets the input it always did: no llm field', () => {
    const input = evaluateInput(judged({ llm: { model: 'haiku' } }));
    expect(input).toMatchObject({ model: 'haiku' });
    expect(input).not.toHaveProperty('llm');
  });

  it('a loop-level API provider reaches the activity with the key variable name and defaults', () => {
    const input = evaluateInput(judged({ llm: { provider: 'anthropic', model: 'claude-x' } }));
    expect(input?.['llm']).toEqual({
      provider: 'anthropic',
      model: 'claude-x',
      api_key_env: 'ANTHROPIC_API_KEY',
      key_required: true,
      max_tokens: 256,
    });
  });

  it('an evaluation overrides the loop field by field', () => {
    const d = judged(
      { llm: { provider: 'anthropic', model: 'claude-x', max_tokens: 100 } },
      { type: 'llm_structured', llm: { provider: 'openai-compatible', base_url: 'http://127.0.0.1:11434/v1' } },
    );
    expect(evaluateInput(d)?.['llm']).toEqual({
      provider: 'openai-compatible',
      model: 'claude-x',
      base_url: 'http://127.0.0.1:11434/v1',
      api_key_env: 'OPENAI_API_KEY',
      key_required: false,
      max_tokens: 100,
    });
    expect(evaluateInput(d)?.['model']).toBe('claude-x');
  });

  it('a local openai-compatible server needs no key unless api_key_env names one', () => {
    const local = judged({
      llm: { provider: 'openai-compatible', model: 'llama3', base_url: 'http://localhost:11434/v1' },
    });
    expect(requiredKeys(local, llmJudged(local))).toEqual([]);
    const named = judged({
      llm: {
        provider: 'openai-compatible',
        model: 'llama3',
        base_url: 'http://localhost:8000/v1',
        api_key_env: 'VLLM_KEY',
      },
    });
    expect(requiredKeys(named, llmJudged(named))).toEqual([
      { variable: 'VLLM_KEY', provider: 'openai-compatible', state: 'check', role: 'evaluation' },
    ]);
    const openai = judged({ llm: { provider: 'openai-compatible', model: 'gpt-x' } });
    expect(requiredKeys(openai, llmJudged(openai))).toEqual([
      { variable: 'OPENAI_API_KEY', provider: 'openai-compatible', state: 'check', role: 'evaluation' },
    ]);
  });

  it('prompt states judged by default need the key too; disabled LLM evaluation needs none', () => {
    // The prompt runs in the host CLI (its own llm:); its default llm_structured judge uses the loop's provider.
    const d = def(
      loop(
        { fix: { action: '/ll:fix', llm: { provider: 'host-cli' }, on_yes: 'done', on_no: 'done' } },
        { llm: { provider: 'anthropic', model: 'm' } },
      ),
    );
    expect(requiredKeys(d, llmJudged(d))).toEqual([
      { variable: 'ANTHROPIC_API_KEY', provider: 'anthropic', state: 'fix', role: 'evaluation' },
    ]);
    const off = def(
      loop(
        { fix: { action: '/ll:fix', llm: { provider: 'host-cli' }, on_yes: 'done', on_no: 'done' } },
        { llm: { provider: 'anthropic', model: 'm', enabled: false } },
      ),
    );
    expect(requiredKeys(off, llmJudged(off))).toEqual([]);
  });

  it.each([
    [{ llm: { provider: 'anthropic' } }, ['llm'], 'provider anthropic needs a model'],
    [{ llm: { base_url: 'http://x:1/v1' } }, ['llm'], 'llm.base_url applies only to an API provider'],
    [{ llm: { provider: 'openai' } }, ['llm', 'provider'], ''],
    [
      { llm: { provider: 'anthropic', model: 'm', base_url: 'ftp://x' } },
      ['llm', 'base_url'],
      'base_url must be an http(s) URL',
    ],
    [
      { llm: { provider: 'anthropic', model: 'm', api_key_env: 'MY KEY' } },
      ['llm', 'api_key_env'],
      'api_key_env names an environment variable',
    ],
  ])('rejects %j at load with its path', (extra, path, message) => {
    const r = validateLoop(
      loop({ check: { action: 'make', evaluate: { type: 'llm_structured' }, on_yes: 'done', on_no: 'done' } }, extra),
    );
    expect(r.definition).toBeUndefined();
    const e = r.diagnostics.find((d) => d.severity === 'error');
    expect(e?.path).toEqual(path);
    expect(e?.message).toContain(message);
  });

  it('rejects a bad per-evaluation override at its path', () => {
    const r = validateLoop(
      loop({
        check: {
          action: 'make',
          evaluate: { type: 'llm_structured', llm: { provider: 'openai-compatible' } },
          on_yes: 'done',
          on_no: 'done',
        },
      }),
    );
    expect(r.diagnostics.find((d) => d.severity === 'error')).toMatchObject({
      path: ['states', 'check', 'evaluate', 'llm'],
      message: 'provider openai-compatible needs a model',
    });
  });

  it('host-cli spelled out is the host CLI', () => {
    expect(providerRequest(judged({ llm: { provider: 'host-cli', model: 'opus' } }))).toBeUndefined();
  });

  it('an error reply with details gives an error verdict carrying them (retry_after)', () => {
    const d = judged({ llm: { provider: 'anthropic', model: 'm' } });
    const r = llmResult(d, d.states['check']!, {
      type: 'llm_error',
      error: 'rate limited',
      details: { status: 429, retry_after: 42 },
      now: 0,
    });
    expect(r).toEqual({ verdict: 'error', details: { status: 429, retry_after: 42, error: 'rate limited' } });
  });
});

describe('a missing key is refused before the run starts', () => {
  it('ll-loop run names the variable and the fix, exit 1, no stack trace, nothing started', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'll-loop-keys-'));
    mkdirSync(join(cwd, '.loops'));
    writeFileSync(
      join(cwd, '.loops', 'judged.yaml'),
      [
        'name: judged',
        'initial: check',
        'llm: { provider: anthropic, model: claude-x, api_key_env: LL_P13_ABSENT_KEY }',
        'states:',
        '  check: { action: make test, on_yes: done, on_no: done, evaluate: { type: llm_structured } }',
        '  done: { terminal: true }',
        '',
      ].join('\n'),
    );
    // Were the check missing, the run would fail reaching this address (exit 7), not exit 1.
    vi.stubEnv('TEMPORAL_ADDRESS', '127.0.0.1:9');
    vi.stubEnv('LL_P13_ABSENT_KEY', '');
    try {
      const r = await runCliInProcess(['run', 'judged'], { cwd });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'state "check" is judged by the anthropic API, but LL_P13_ABSENT_KEY is not set; nothing was run',
      );
      expect(r.stderr).toContain('export LL_P13_ABSENT_KEY=<your key>');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('checkProviderKeys passes when the variable is set', () => {
    const d = judged({ llm: { provider: 'anthropic', model: 'm' } });
    expect(() => checkProviderKeys(d, { ANTHROPIC_API_KEY: 'k' })).not.toThrow();
    expect(() => checkProviderKeys(d, {})).toThrow(/ANTHROPIC_API_KEY is not set/);
  });
});
