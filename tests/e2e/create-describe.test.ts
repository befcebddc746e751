/**
 * `ll-loop create --describe` as a user meets it: the built binary (run `npm run build` first)
 * drafting loops with a scripted host CLI on LL_HOST_CLI (its JSON envelope states the cost) and
 * with the fake LLM API in both providers' wire formats (Anthropic Messages, OpenAI Chat
 * Completions) through their official SDKs. A valid draft is saved with --yes and accepted by
 * `ll-loop validate`; an invalid first draft is asked again with its exact problems; a draft
 * never valid, a refusal and an answer that never comes each end with their exit code and
 * nothing saved. On a terminal the draft is shown and saved only on confirmation.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCliBinary } from '../support/cli.js';
import { useFakeLlmApi } from '../support/fake-llm-suite.js';

const VALID = `name: lint-until-clean
description: Run the linter; while it fails, have the coding agent fix it.
initial: lint
max_iterations: 5
states:
  lint:
    action: "npx eslint ."
    on_yes: done
    on_no: fix
    on_error: broken
  fix:
    action_type: prompt
    action: "Fix the lint errors that npx eslint . reports."
    next: lint
    on_error: broken
  done:
    terminal: true
  broken:
    terminal: true
    failure: true
`;

/** A route to a state that does not exist. */
const INVALID = VALID.replace('on_no: fix', 'on_no: fixx');

const fenced = (yaml: string) => `Here is your loop:\n\n\`\`\`yaml\n${yaml}\`\`\`\n`;

/**
 * A host CLI that answers the texts of `answers.json` in turn (the last repeating) in Claude
 * Code's JSON envelope with a cost, logs each prompt (its stdin) and argv to `prompts.jsonl`;
 * with HOST_SLEEP_MS set it first sleeps that long.
 */
const HOST_CLI = `#!/usr/bin/env node
import fs from 'node:fs';
const dir = ${'process.env.HOST_DIR'};
const prompt = fs.readFileSync(0, 'utf8');
fs.appendFileSync(dir + '/prompts.jsonl', JSON.stringify({ prompt, args: process.argv.slice(2) }) + '\\n');
const answer = () => {
  const answers = JSON.parse(fs.readFileSync(dir + '/answers.json', 'utf8'));
  const n = fs.readFileSync(dir + '/prompts.jsonl', 'utf8').trim().split('\\n').length;
  const text = answers[Math.min(n, answers.length) - 1];
  process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text,
    session_id: 's', total_cost_usd: 0.05, usage: { input_tokens: 900, output_tokens: 300 } }));
};
const sleep = Number(process.env.HOST_SLEEP_MS || 0);
if (sleep > 0) setTimeout(answer, sleep); else answer();
`;

function project(): { cwd: string; hostDir: string; host: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'll-describe-e2e-'));
  mkdirSync(join(cwd, '.loops'));
  const hostDir = join(cwd, '..', `${cwd.split('/').pop()}-host`);
  mkdirSync(hostDir);
  const host = join(hostDir, 'host-cli.mjs');
  writeFileSync(host, HOST_CLI);
  chmodSync(host, 0o755);
  return { cwd, hostDir, host };
}

function cli(cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const { TEMPORAL_ADDRESS: _drop, ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...rest } = process.env;
  return runCliBinary(args, { cwd, env: { ...rest, NO_COLOR: '1', ...extra } });
}

function prompts(hostDir: string): Array<{ prompt: string; args: string[] }> {
  const file = join(hostDir, 'prompts.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt: string; args: string[] });
}

const saved = (cwd: string) => readdirSync(join(cwd, '.loops')).filter((f) => f.endsWith('.yaml'));

describe('ll-loop create --describe with the host CLI', () => {
  it('an invalid first draft is asked again with its problems; --yes --name saves one validate accepts', async () => {
    const { cwd, hostDir, host } = project();
    writeFileSync(join(hostDir, 'answers.json'), JSON.stringify([fenced(INVALID), fenced(VALID)]));
    const r = await cli(cwd, ['create', '--describe', 'lint until clean', '--yes', '--name', 'my-lint'], {
      LL_HOST_CLI: host,
      HOST_DIR: hostDir,
    });
    expect(r.stderr).toContain('Draft 1 has');
    expect(r.stderr).toContain('Drafting cost: 2 asks, 1800 input + 600 output tokens, $0.1000');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ Wrote .loops/my-lint.yaml');
    expect(r.stdout).toMatch(/Diagram[\s\S]*States[\s\S]*npx eslint \./);
    const asked = prompts(hostDir);
    expect(asked).toHaveLength(2);
    expect(asked[0]!.args).toEqual(['-p', '--output-format', 'json', '--no-session-persistence']);
    expect(asked[0]!.prompt).toContain('lint until clean');
    expect(asked[1]!.prompt).toMatch(/\.loops\/my-lint\.yaml:\d+:\d+: error: .*fixx/);
    expect(readFileSync(join(cwd, '.loops', 'my-lint.yaml'), 'utf8')).toMatch(/^name: my-lint$/m);
    const v = await cli(cwd, ['validate', 'my-lint']);
    expect(v.stderr + v.stdout).not.toMatch(/error/);
    expect(v.code).toBe(0);
  });

  it('never valid after 3 drafts: the problems, exit 1, nothing saved', async () => {
    const { cwd, hostDir, host } = project();
    writeFileSync(join(hostDir, 'answers.json'), JSON.stringify([fenced(INVALID)]));
    const r = await cli(cwd, ['create', '--describe', 'lint until clean', '--yes'], {
      LL_HOST_CLI: host,
      HOST_DIR: hostDir,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error: no valid loop after 3 drafts; nothing was saved[\s\S]*fixx/);
    expect(r.stderr).toContain('Drafting cost: 3 asks');
    expect(prompts(hostDir)).toHaveLength(3);
    expect(saved(cwd)).toEqual([]);
  });

  it('an answer that never comes: killed at --timeout, exit 4, nothing saved', async () => {
    const { cwd, hostDir, host } = project();
    writeFileSync(join(hostDir, 'answers.json'), JSON.stringify([fenced(VALID)]));
    const r = await cli(cwd, ['create', '--describe', 'lint until clean', '--yes', '--timeout', '1s'], {
      LL_HOST_CLI: host,
      HOST_DIR: hostDir,
      HOST_SLEEP_MS: '60000',
    });
    expect(r.stderr).toMatch(/error: host CLI '.*host-cli\.mjs': no answer within 1s; nothing was saved/);
    expect(r.code).toBe(4);
    expect(saved(cwd)).toEqual([]);
  });
});

const HAVE_PTY = spawnSync('python3', ['-c', 'import pty'], { stdio: 'ignore' }).status === 0;

/** `ll-loop <args>` on a pseudo-terminal (tests/support/pty-run.py), typing `reply` and Enter at `question`. */
function onTerminal(cwd: string, args: string[], question: string, reply: string, env: NodeJS.ProcessEnv) {
  const pty = join(import.meta.dirname, '..', 'support', 'pty-run.py');
  // Asynchronously: a blocked test process cannot report to its runner.
  const child = spawn('python3', [pty, question, reply, '60', process.execPath, BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout })),
  );
}

describe.skipIf(!HAVE_PTY)('ll-loop create --describe on a terminal (python3 pty; skipped without python3)', () => {
  it.each([
    ['', true],
    ['n', false],
  ])('shows the draft, asks "Save to …?" and saves on yes only (typed: "%s")', async (reply, kept) => {
    const { cwd, hostDir, host } = project();
    writeFileSync(join(hostDir, 'answers.json'), JSON.stringify([fenced(VALID)]));
    const r = await onTerminal(
      cwd,
      ['create', '--describe', 'lint until clean'],
      'Save to .loops/lint-until-clean.yaml?',
      reply,
      { LL_HOST_CLI: host, HOST_DIR: hostDir },
    );
    expect(r.stdout).toMatch(
      /Diagram[\s\S]*States[\s\S]*npx eslint \.[\s\S]*Save to \.loops\/lint-until-clean\.yaml\?/,
    );
    expect(r.code).toBe(0);
    expect(saved(cwd)).toEqual(kept ? ['lint-until-clean.yaml'] : []);
    expect(r.stdout).toContain(kept ? '✓ Wrote .loops/lint-until-clean.yaml' : 'Nothing was written.');
  });
});

describe('ll-loop create --describe with an API provider', () => {
  const api = useFakeLlmApi();
  const KEY = { ANTHROPIC_API_KEY: 'sk-ant-test-key', OPENAI_API_KEY: 'sk-openai-test-key' };

  it('anthropic: --yes saves the draft under its own name; the key goes in the header only', async () => {
    const { cwd } = project();
    api.script('draft-anthropic', [fenced(VALID)]);
    const r = await cli(
      cwd,
      ['create', '--describe', 'lint until clean', '--yes', '--provider', 'anthropic'].concat([
        '--base-url',
        api.url,
        '--model',
        'draft-anthropic',
      ]),
      KEY,
    );
    expect(r.stderr).toContain('Drafting cost: 1 ask, 120 input + 15 output tokens, cost not reported');
    expect(r.code).toBe(0);
    expect(saved(cwd)).toEqual(['lint-until-clean.yaml']);
    const sent = api.requests.filter((q) => q.body['model'] === 'draft-anthropic');
    expect(sent).toHaveLength(1);
    // The SDK authenticates with the key as `x-api-key` or as a bearer token, by version.
    expect([sent[0]!.headers['x-api-key'], sent[0]!.headers['authorization']]).toContain(
      sent[0]!.headers['x-api-key'] === undefined ? 'Bearer sk-ant-test-key' : 'sk-ant-test-key',
    );
    expect(r.stdout + r.stderr).not.toContain('sk-ant-test-key');
    expect((await cli(cwd, ['validate', 'lint-until-clean'])).code).toBe(0);
  });

  it('openai-compatible: a draft that is not YAML, then a valid one', async () => {
    const { cwd } = project();
    api.script('draft-openai', ['Happy to help! Which linter do you use?', fenced(VALID)]);
    const r = await cli(
      cwd,
      ['create', '--describe', 'lint until clean', '--yes', '--provider', 'openai-compatible'].concat([
        '--base-url',
        `${api.url}/v1`,
        '--model',
        'draft-openai',
        '--name',
        'lint',
      ]),
      KEY,
    );
    expect(r.stderr).toContain('Drafting cost: 2 asks, 260 input + 34 output tokens');
    expect(r.code).toBe(0);
    const sent = api.requests.filter((q) => q.body['model'] === 'draft-openai');
    expect(sent).toHaveLength(2);
    const second = (sent[1]!.body['messages'] as Array<{ content: string }>)[0]!.content;
    expect(second).toContain('the answer holds no loop YAML');
    expect(saved(cwd)).toEqual(['lint.yaml']);
  });

  it.each([
    ['anthropic', ''],
    ['openai-compatible', '/v1'],
  ])('%s: a refusal ends at once with exit 1, nothing saved', async (provider, path) => {
    const { cwd } = project();
    const before = api.requests.length;
    const r = await cli(
      cwd,
      ['create', '--describe', 'something harmful', '--yes', '--provider', provider].concat([
        '--base-url',
        `${api.url}${path}`,
        '--model',
        'refusal',
      ]),
      KEY,
    );
    expect(r.stderr).toMatch(/error: LLM provider .*: the model refused.*; nothing was saved/);
    expect(r.code).toBe(1);
    expect(api.requests.length - before).toBe(1);
    expect(saved(cwd)).toEqual([]);
  });

  it('an answer that never comes: --timeout ends it with exit 4, nothing saved', async () => {
    const { cwd } = project();
    const r = await cli(
      cwd,
      ['create', '--describe', 'lint until clean', '--yes', '--provider', 'openai-compatible'].concat([
        '--base-url',
        `${api.url}/v1`,
        '--model',
        'slow-30000',
        '--timeout',
        '1s',
      ]),
      KEY,
    );
    expect(r.stderr).toMatch(/error: LLM provider .*: no answer before the timeout; nothing was saved/);
    expect(r.code).toBe(4);
    expect(saved(cwd)).toEqual([]);
  });
});
