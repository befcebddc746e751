/**
 * `ll-loop create --describe`: the drafting loop with scripted answers (no LLM), the checks of a
 * draft (validation and simulation), the prompts, and the command's refusals before any ask.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCommand, type DescribeOptions } from '../../client/commands/create-describe.js';
import { checkDraft, extractYaml } from '../../client/create/describe-check.js';
import { costText, draftLoop, DraftStopped, MAX_TRIES, type Ask } from '../../client/create/describe-draft.js';
import { AUTHORING_RULES, draftPrompt } from '../../client/create/describe-prompt.js';
import { loadLoopFile } from '../../loader/load.js';
import { runCliInProcess } from '../support/cli.js';

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

/** A route to a state that does not exist: a validation error. */
const MISSING_STATE = VALID.replace('on_no: fix', 'on_no: fixx');

/** No route for the check's `no`: the all-fail simulation ends at an error. */
const NO_ROUTE_FOR_NO = VALID.replace('    on_no: fix\n', '');

const fenced = (yaml: string) => `Here is the loop:\n\n\`\`\`yaml\n${yaml}\`\`\`\n\nIt stops after 5 passes.`;

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'll-describe-'));
  mkdirSync(join(dir, '.loops'));
  return dir;
}

/** An ask that answers `answers` in turn and records every prompt. */
function scripted(answers: string[]): { ask: Ask; prompts: string[] } {
  const prompts: string[] = [];
  return {
    prompts,
    ask: (prompt) => {
      prompts.push(prompt);
      const text = answers[prompts.length - 1];
      if (text === undefined) throw new Error(`asked ${prompts.length} times; the script has ${answers.length}`);
      return Promise.resolve({ text, usage: { input_tokens: 1000, output_tokens: 200, cost_usd: 0.01 } });
    },
  };
}

describe('checkDraft', () => {
  const cwd = project();

  it('passes a valid loop (in a ```yaml fence, with prose around it) and gives its definition', () => {
    const checked = checkDraft(fenced(VALID), cwd, 'lint-until-clean');
    expect(checked.problems).toEqual([]);
    expect(checked.definition?.initial).toBe('lint');
  });

  it('names a validation error with the file and line it would have', () => {
    const { problems, definition } = checkDraft(MISSING_STATE, cwd, 'lint-until-clean');
    expect(definition).toBeUndefined();
    expect(problems.join('\n')).toMatch(/\.loops\/lint-until-clean\.yaml:\d+:\d+: error: .*fixx/);
  });

  it('counts a simulation that ends at an error (a verdict with no route) as a problem', () => {
    const { problems, definition } = checkDraft(NO_ROUTE_FOR_NO, cwd, 'lint-until-clean');
    expect(definition).toBeUndefined();
    expect(problems).toContainEqual(
      expect.stringMatching(/^simulate --scenario all-fail: the run ends by error in state "lint"/),
    );
  });

  it('accepts a run that ends at its declared max_iterations', () => {
    const endless = VALID.replace('on_yes: done', 'on_yes: fix').replace(
      'next: lint\n    on_error: broken',
      'next: lint\n    on_error: done',
    );
    expect(checkDraft(endless, cwd, 'x').problems).toEqual([]);
  });

  it('a warning of error weight (an unreachable state) is a problem; advice (no description) is not', () => {
    const unreachable = `${VALID}  orphan:\n    terminal: true\n`;
    expect(checkDraft(unreachable, cwd, 'x').problems).toEqual([
      expect.stringMatching(/warning: state "orphan": state is unreachable/),
    ]);
    const bare = VALID.replace(/^description: .*\n/m, '');
    expect(checkDraft(bare, cwd, 'x').problems).toEqual([]);
  });

  it('an answer that is not YAML is a problem that quotes it', () => {
    const { problems } = checkDraft('I would rather not write YAML today.', cwd, 'x');
    expect(problems).toEqual([
      'the answer holds no loop YAML (a YAML mapping in a ```yaml fence): "I would rather not write YAML today."',
    ]);
  });

  it('extractYaml takes the first fence, or the whole text without one', () => {
    expect(extractYaml(fenced(VALID))).toBe(VALID);
    expect(extractYaml(VALID)).toBe(VALID);
    expect(extractYaml('```yml\na: 1\n```\n```yaml\nb: 2\n```')).toBe('a: 1\n');
  });
});

describe('draftLoop', () => {
  const cwd = project();
  const check = (answer: string) => checkDraft(answer, cwd, 'lint-until-clean');

  it('a valid first draft: one ask, its YAML, the summed cost', async () => {
    const { ask, prompts } = scripted([fenced(VALID)]);
    const result = await draftLoop({ description: 'lint until clean', ask, check });
    expect(result).toMatchObject({ ok: true, yaml: VALID, tries: 1 });
    expect(prompts).toHaveLength(1);
    expect(result.cost).toEqual({ asks: 1, input_tokens: 1000, output_tokens: 200, cost_usd: 0.01 });
  });

  it('an invalid draft, then a fixed one: the second prompt carries the exact messages and the draft', async () => {
    const { ask, prompts } = scripted([fenced(MISSING_STATE), fenced(VALID)]);
    const retries: number[] = [];
    const result = await draftLoop({ description: 'lint until clean', ask, check, onRetry: (n) => retries.push(n) });
    expect(result).toMatchObject({ ok: true, yaml: VALID, tries: 2 });
    expect(retries).toEqual([2]);
    const firstProblems = check(fenced(MISSING_STATE)).problems;
    expect(firstProblems.length).toBeGreaterThan(0);
    for (const p of firstProblems) expect(prompts[1]).toContain(p);
    expect(prompts[1]).toContain('on_no: fixx');
    expect(prompts[1]).toContain(draftPrompt('lint until clean'));
    expect(result.cost).toMatchObject({ asks: 2, input_tokens: 2000, cost_usd: 0.02 });
  });

  it(`never valid after ${MAX_TRIES} drafts: not ok, the last problems, no fourth ask`, async () => {
    const { ask, prompts } = scripted([fenced(MISSING_STATE), 'not yaml at all', fenced(NO_ROUTE_FOR_NO)]);
    const result = await draftLoop({ description: 'lint until clean', ask, check });
    expect(prompts).toHaveLength(MAX_TRIES);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.tries).toBe(MAX_TRIES);
    expect(result.problems).toEqual(check(fenced(NO_ROUTE_FOR_NO)).problems);
    expect(prompts[2]).toContain('the answer holds no loop YAML');
  });

  it('a draft that is not YAML is asked again, then a valid one is taken', async () => {
    const { ask, prompts } = scripted(['Sure! What should the loop check?', fenced(VALID)]);
    const result = await draftLoop({ description: 'lint until clean', ask, check });
    expect(result.ok).toBe(true);
    expect(prompts[1]).toContain('Your previous answer was:\nSure! What should the loop check?');
  });

  it('an ask that stops (timeout, refusal) ends the drafting at once, with its cost', async () => {
    let asks = 0;
    const ask: Ask = () => {
      asks += 1;
      return Promise.reject(new DraftStopped('refusal', 'the model refused', { input_tokens: 50, output_tokens: 0 }));
    };
    const result = await draftLoop({ description: 'x', ask, check });
    expect(asks).toBe(1);
    expect(result).toMatchObject({ ok: false, tries: 1, problems: ['the model refused'] });
    if (!result.ok) expect(result.stopped?.reason).toBe('refusal');
    expect(costText(result.cost)).toBe('1 ask, 50 input + 0 output tokens, cost not reported');
  });
});

describe('draftPrompt', () => {
  it('carries the JSON Schema, the rules of seed 001, catalog examples and the description', () => {
    const p = draftPrompt('keep the docs building');
    expect(p).toContain('"title":"ll-loop loop definition"');
    for (const rule of AUTHORING_RULES) expect(p).toContain(rule);
    expect(p).toMatch(/never routes its on_no or on_error back to the generator/);
    expect(p).toContain('Example (fix-types):\n```yaml\n');
    expect(p.trimEnd().endsWith('keep the docs building')).toBe(true);
  });
});

describe('describeCommand', () => {
  function options(cwd: string, over: Partial<DescribeOptions>): DescribeOptions & { printed: () => string } {
    let out = '';
    return {
      cwd,
      description: 'lint until clean',
      timeoutMs: 1000,
      yes: true,
      force: false,
      dryRun: false,
      interactive: false,
      colour: false,
      width: 80,
      env: {},
      out: (t) => (out += t),
      err: (t) => (out += t),
      printed: () => out,
      ...over,
    };
  }

  it('--yes saves the valid draft under --name (the name: field too) and prints its cost', async () => {
    const cwd = project();
    const { ask } = scripted([fenced(MISSING_STATE), fenced(VALID)]);
    const o = options(cwd, { ask, name: 'my-lint' });
    expect(await describeCommand(o)).toBe(0);
    const loaded = loadLoopFile(join(cwd, '.loops', 'my-lint.yaml'), {}, cwd);
    expect(loaded.definition?.name).toBe('my-lint');
    expect(o.printed()).toContain('Drafting cost: 2 asks, 2000 input + 400 output tokens, $0.0200');
    expect(o.printed()).toContain('✓ Wrote .loops/my-lint.yaml');
  });

  it("--dry-run prints the valid draft's YAML and writes nothing (no terminal needed)", async () => {
    const cwd = project();
    let stdout = '';
    const { ask } = scripted([fenced(VALID)]);
    const o = { ...options(cwd, { ask, yes: false, dryRun: true }), out: (t: string) => void (stdout += t) };
    expect(await describeCommand(o)).toBe(0);
    expect(stdout).toBe(VALID);
    expect(existsSync(join(cwd, '.loops', 'lint-until-clean.yaml'))).toBe(false);
  });

  it('never valid: exit 1 with the problems, nothing saved', async () => {
    const cwd = project();
    const { ask } = scripted([fenced(MISSING_STATE), fenced(MISSING_STATE), fenced(MISSING_STATE)]);
    const o = options(cwd, { ask });
    await expect(describeCommand(o)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/no valid loop after 3 drafts; nothing was saved[\s\S]*fixx/),
    });
    expect(existsSync(join(cwd, '.loops', 'lint-until-clean.yaml'))).toBe(false);
    expect(o.printed()).toContain('Drafting cost: 3 asks');
  });

  it('no host CLI: the error names it, and the fix names the ways to get one (or an API)', async () => {
    const cwd = project();
    const o = options(cwd, { env: { PATH: '/nonexistent', LL_HOST_CLI: 'no-such-agent-xyz' } });
    await expect(describeCommand(o)).rejects.toMatchObject({
      message: expect.stringMatching(
        /host CLI 'no-such-agent-xyz' \(LL_HOST_CLI\) not found on PATH.*nothing was saved/,
      ),
      fix: expect.stringMatching(
        /^install Claude Code or set LL_HOST_CLI to your coding agent, or draft with an API: --provider/,
      ),
    });
  });

  it('refuses before asking: a taken --name, no terminal without --yes, a provider without its key', async () => {
    const cwd = project();
    writeFileSync(join(cwd, '.loops', 'taken.yaml'), VALID);
    const { ask, prompts } = scripted([]);
    await expect(describeCommand(options(cwd, { ask, name: 'taken' }))).rejects.toThrow(/already exists/);
    await expect(describeCommand(options(cwd, { ask, yes: false }))).rejects.toThrow(/no terminal to confirm on/);
    expect(prompts).toEqual([]);
    await expect(describeCommand(options(cwd, { provider: 'anthropic', model: 'claude-sonnet-4-5' }))).rejects.toThrow(
      /needs its API key in ANTHROPIC_API_KEY/,
    );
    await expect(describeCommand(options(cwd, { provider: 'anthropic' }))).rejects.toThrow(/needs a --model/);
    await expect(describeCommand(options(cwd, { provider: 'gemini' }))).rejects.toThrow(/not a provider/);
  });
});

describe('ll-loop create --describe: flags', () => {
  it('refuses wizard flags with --describe, and the drafting flags without it, before any ask', async () => {
    const cwd = project();
    const withKind = await runCliInProcess(['create', '--describe', 'lint it', '--kind', 'fix', '--yes'], { cwd });
    expect(withKind.code).toBe(1);
    expect(withKind.stderr).toContain('--kind cannot be used with --describe');
    const alone = await runCliInProcess(['create', '--model', 'm', '--yes'], { cwd });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('--model goes with --describe');
    const timeout = await runCliInProcess(['create', '--describe', 'x', '--timeout', 'soon', '--yes'], { cwd });
    expect(timeout.stderr).toContain('--timeout "soon" is not a duration');
    const help = await runCliInProcess(['help', 'create'], { cwd });
    expect(help.stdout).toContain('\n  ll-loop create --describe TEXT');
  });
});
