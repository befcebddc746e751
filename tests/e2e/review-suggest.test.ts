/**
 * `ll-loop review` and `ll-loop suggest` as a user meets them: the built binary (run `npm run
 * build` first) in projects written here. review: exit 1 on an error finding, 0 on warnings only,
 * `--json`, and `--llm` against a fake provider speaking the real wire formats (an answer, a
 * timeout, a refusal) and through the host CLI (tests/fixtures/fake-claude). suggest: `--json`
 * ranks the project's and the built-in loops; a task nothing fits prints the `create --describe`
 * command line (exit 1); `--llm` ranks by the host CLI's answer, or by words when it fails; `--run`
 * without a terminal needs `--yes`, and with it runs the best loop on the test Temporal server.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCliBinary } from '../support/cli.js';
import { startFakeLlmApi, type FakeLlmApi } from '../support/fake-llm-api.js';

const KEY = 'sk-review-test-0123456789';
const FAKE_CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude');

function project(loops: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-review-e2e-'));
  mkdirSync(join(dir, '.loops'));
  for (const [name, text] of Object.entries(loops)) writeFileSync(join(dir, '.loops', `${name}.yaml`), text);
  return dir;
}

function cli(cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
  return runCliBinary(args, {
    cwd,
    env: { ...rest, NO_COLOR: '1', ANTHROPIC_API_KEY: KEY, OPENAI_API_KEY: KEY, ...extra },
  });
}

/** A generator-evaluator loop whose evaluation sends its failures straight back: an error finding. */
const BACK_ROUTE = `name: page-maker
description: Write a page, then check it in a browser.
initial: generate
states:
  generate:
    action: "make page"
    next: evaluate
    on_error: failed
  evaluate:
    action: "npx playwright test"
    on_yes: done
    on_no: generate
    on_error: generate
  done: { terminal: true }
  failed: { terminal: true, failure: true }
`;

/** A fine loop but for one unused capture: a warning. */
const WARNS = `name: count-lines
description: Count the lines of the log.
initial: count
states:
  count: { action: "wc -l < log", capture: lines, on_yes: done, on_no: done }
  done: { terminal: true }
`;

describe('ll-loop review', () => {
  let api: FakeLlmApi;
  let dir: string;
  beforeAll(async () => {
    api = await startFakeLlmApi();
    dir = project({
      'page-maker': BACK_ROUTE,
      'count-lines': WARNS,
      broken: 'name: broken\ninitial: nowhere\nstates: {}\n',
    });
  });
  afterAll(async () => api.close());

  it('exits 1 on an error finding, naming the state and the fix', async () => {
    const r = await cli(dir, ['review', 'page-maker']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'error: state "evaluate": on_no and on_error send a failed or broken check back to "generate"',
    );
    expect(r.stdout).toContain('[generator-evaluator-back-route]');
    expect(r.stdout).toContain('fix: route on_no and on_error forward');
    expect(r.stderr).toContain('✗ page-maker: 1 error');
  });

  it('exits 0 when the findings are warnings, and --json lists them', async () => {
    const text = await cli(dir, ['review', 'count-lines']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('✓ count-lines: 0 errors, 1 warning');
    const json = await cli(dir, ['review', 'count-lines', '--json']);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { file: string; findings: unknown[] };
    expect(report.file).toBe(join(dir, '.loops', 'count-lines.yaml'));
    expect(report.findings).toEqual([
      {
        rule: 'unused-capture',
        severity: 'warning',
        state: 'count',
        message: expect.any(String),
        fix: expect.any(String),
      },
    ]);
    const bad = await cli(dir, ['review', 'page-maker', '--json']);
    expect(bad.code).toBe(1);
    expect((JSON.parse(bad.stdout) as { findings: Array<{ severity: string }> }).findings[0]!.severity).toBe('error');
  });

  it('an invalid loop is not reviewed: exit 1 with what validate says', async () => {
    const r = await cli(dir, ['review', 'broken']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not a valid loop; nothing was reviewed');
    expect(r.stderr).toContain('initial state "nowhere" is not defined');
  });

  it.each([
    ['anthropic', ''],
    ['openai-compatible', '/v1'],
  ])("--llm adds the %s provider's findings, which do not change the exit code", async (provider, path) => {
    const r = await cli(dir, [
      'review',
      'count-lines',
      '--llm',
      '--provider',
      provider,
      '--base-url',
      `${api.url}${path}`,
      '--model',
      'findings-count',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('LLM review (1 finding, advice only):');
    expect(r.stdout).toContain('warning: state "count": from the fake API: this state could say more [llm]');
    const asked = api.requests.at(-1)!;
    expect(JSON.stringify(asked.body)).toContain('wc -l < log');
    expect(r.stdout + r.stderr).not.toContain(KEY);
    const json = await cli(dir, [
      'review',
      'count-lines',
      '--json',
      '--llm',
      '--provider',
      provider,
      '--base-url',
      `${api.url}${path}`,
      '--model',
      'findings-count',
    ]);
    expect(JSON.parse(json.stdout).llm.findings).toEqual([
      {
        rule: 'llm',
        severity: 'warning',
        state: 'count',
        message: 'from the fake API: this state could say more',
        fix: 'add a description: to it',
      },
    ]);
  });

  it('--llm whose answer never comes fails at --timeout, naming the provider, with the static review printed', async () => {
    const r = await cli(dir, [
      'review',
      'count-lines',
      '--llm',
      '--provider',
      'anthropic',
      '--base-url',
      api.url,
      '--model',
      'slow-120000',
      '--timeout',
      '1',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('[unused-capture]');
    expect(r.stderr).toContain(
      `LLM review failed: LLM provider anthropic at ${api.url}: no answer before the timeout (1s)`,
    );
    expect(r.stderr).toContain('--timeout SECONDS');
  });

  it.each([
    ['anthropic', ''],
    ['openai-compatible', '/v1'],
  ])('--llm refused by %s says so and exits 1', async (provider, path) => {
    const r = await cli(dir, [
      'review',
      'count-lines',
      '--llm',
      '--provider',
      provider,
      '--base-url',
      `${api.url}${path}`,
      '--model',
      'refusal',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/LLM review failed: LLM provider .*: the model refused/);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('--llm without an API provider asks the host CLI (LL_HOST_CLI), the review on stdin', async () => {
    const verdicts = join(dir, 'host-answers.jsonl');
    const finding = { state: 'count', severity: 'info', message: 'from the host CLI', fix: 'none needed' };
    writeFileSync(verdicts, `${JSON.stringify({ findings: [finding] })}\n`);
    const log = join(dir, 'host-prompts.jsonl');
    const host = { LL_HOST_CLI: FAKE_CLAUDE, FAKE_CLAUDE_VERDICTS: verdicts, FAKE_CLAUDE_JUDGE_LOG: log };
    const r = await cli(dir, ['review', 'count-lines', '--llm', '--json'], host);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).llm).toEqual({ findings: [{ rule: 'llm', ...finding }] });
    expect(readFileSync(log, 'utf8')).toContain('wc -l < log');
    const slow = await cli(dir, ['review', 'count-lines', '--llm', '--timeout', '1'], {
      ...host,
      FAKE_CLAUDE_SLEEP_MS: '60000',
    });
    expect(slow.code).toBe(1);
    expect(slow.stderr).toContain(`LLM review failed: host CLI '${FAKE_CLAUDE}': no answer before the timeout (1s)`);
  });

  it('a provider flag without --llm is a usage error with the fix', async () => {
    const stray = await cli(dir, ['review', 'count-lines', '--model', 'x']);
    expect(stray.code).toBe(1);
    expect(stray.stderr).toContain("--model is for the LLM's answer");
  });
});

describe('ll-loop suggest', () => {
  const dir = project({
    'docs-sync': `name: docs-sync
description: Keep the markdown docs in step with the code.
labels: [docs]
initial: check
states:
  check: { action: "echo docs in step > checked.txt", on_yes: done, on_no: done }
  done: { terminal: true }
`,
  });

  it('--json ranks the project and the built-in loops with score and why', async () => {
    const docs = await cli(dir, ['suggest', '--json', 'update the docs']);
    expect(docs.code).toBe(0);
    const ranked = JSON.parse(docs.stdout) as Array<{ name: string; score: number; why: string[] }>;
    expect(ranked[0]).toEqual({ name: 'docs-sync', score: 0.5, why: ['name: docs'] });
    // Among the built-ins, "fix the failing tests" fits flaky-tests as well as test-until-pass by
    // words alone (the LLM tells them apart: --llm); the loop named for the whole task goes first.
    const tests = JSON.parse(
      (await cli(dir, ['suggest', '--json', 'make the failing tests pass'])).stdout,
    ) as typeof ranked;
    expect(tests[0]!.name).toBe('test-until-pass');
    expect(tests[0]!.why).toContain('name: test');
  });

  it('when nothing fits, it prints the create --describe command for the same text', async () => {
    const r = await cli(dir, ['suggest', "bake Grandma's chocolate cake"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`No loop here fits "bake Grandma's chocolate cake".`);
    expect(r.stdout).toContain(`  ll-loop create --describe 'bake Grandma'"'"'s chocolate cake'`);
    const json = await cli(dir, ['suggest', '--json', 'bake a cake']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('--llm ranks by the LLM (the host CLI here); when it fails, the words rank with a warning', async () => {
    const answers = join(dir, 'rank-answers.jsonl');
    writeFileSync(
      answers,
      `${JSON.stringify({ ranking: [{ name: 'fix-lint', score: 0.9, why: 'docs are linted' }] })}\n`,
    );
    const host = { LL_HOST_CLI: FAKE_CLAUDE, FAKE_CLAUDE_VERDICTS: answers };
    const r = await cli(dir, ['suggest', '--json', '--llm', 'update the docs'], host);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([{ name: 'fix-lint', score: 0.9, why: ['llm: docs are linted'] }]);
    const failed = await cli(dir, ['suggest', '--json', '--llm', 'update the docs'], {
      ...host,
      FAKE_CLAUDE_EXIT: '3',
    });
    expect(failed.code).toBe(0);
    expect(failed.stderr).toContain(
      `warning: LLM ranking failed, ranked by words alone: host CLI '${FAKE_CLAUDE}' exited with code 3`,
    );
    expect((JSON.parse(failed.stdout) as Array<{ name: string }>)[0]!.name).toBe('docs-sync');
  });

  it('--run without a terminal and without --yes starts nothing and says how', async () => {
    const r = await cli(dir, ['suggest', 'update the docs', '--run']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('nothing started: there is no terminal to confirm on');
    expect(r.stderr).toContain("ll-loop suggest 'update the docs' --run --yes");
  });

  it('--run --yes starts the best loop as ll-loop run does, on the Temporal server', async () => {
    const r = await cli(dir, ['suggest', 'update the docs', '--run', '--yes'], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1. docs-sync (.loops/, score 0.50): name: docs');
    expect(r.stdout).toContain('running: ll-loop run docs-sync');
    expect(readFileSync(join(dir, 'checked.txt'), 'utf8')).toBe('docs in step\n');
  });
});
