/**
 * Human states in the commands that read loops without running them: `show` (a node shape of
 * their own, Mermaid too), `simulate`, `validate`, `compile`; and `answer`'s argument errors.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { checkMermaid } from '../support/mermaid-check.js';

let cwd: string;

beforeAll(() => {
  cwd = mkdtempSync(join(tmpdir(), 'll-loop-human-'));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(
    join(cwd, '.loops', 'review.yaml'),
    `name: review
description: asks before applying
initial: plan
states:
  plan:
    action: echo the plan
    capture: plan
    next: review
  review:
    action_type: human
    prompt: "Apply \${captured.plan.output}?"
    timeout: 14400
    on_yes: apply
    on_no: plan
    on_edit: apply
    on_timeout: park
  apply:
    action: echo "\${captured.review.answer}"
    next: done
  park:
    terminal: true
  done:
    terminal: true
`,
  );
});

describe('human states in show, simulate, validate and compile', () => {
  it('show marks the state as asking a person, in text and Mermaid', async () => {
    const text = await runCliInProcess(['show', 'review'], { cwd });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/◇ review\s+\(asks a person: approval\)/);
    expect(text.stdout).toContain('human (approval)');
    const mermaid = await runCliInProcess(['show', 'review', '--format', 'mermaid'], { cwd });
    expect(mermaid.stdout).toContain('review : asks a person (approval)');
    expect(mermaid.stdout).toMatch(/classDef human .*\n\s+class review human/);
    expect(checkMermaid(mermaid.stdout)).toEqual([]);
  });

  it('simulate answers yes when the scenario passes', async () => {
    const r = await runCliInProcess(['simulate', 'review'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/review[^\n]*yes[^\n]*apply/);
  });

  it('simulate names a person as the judge of every kind of question, a text or JSON one too', async () => {
    writeFileSync(
      join(cwd, '.loops', 'note.yaml'),
      [
        'name: note',
        'initial: say',
        'states:',
        '  say:',
        '    action_type: human',
        '    prompt: "Why?"',
        '    ask: text',
        '    timeout: 60',
        '    next: done',
        '    on_timeout: done',
        '  done:',
        '    terminal: true',
        '',
      ].join('\n'),
    );
    const r = await runCliInProcess(['simulate', 'note'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\n1\s+1\s+say\s+human\s+yes\s+→ done/);
  });

  it('validate accepts it; compile keeps its fields', async () => {
    expect((await runCliInProcess(['validate', 'review'], { cwd })).code).toBe(0);
    const compiled = await runCliInProcess(['compile', 'review'], { cwd });
    expect(compiled.code, compiled.stderr).toBe(0);
    expect(compiled.stdout).toMatch(/action_type: human/);
    expect(compiled.stdout).toMatch(/on_timeout: park/);
  });

  it('answer: a missing or ambiguous answer, or --json that is not JSON, is a usage error', async () => {
    const none = await runCliInProcess(['answer', 'review'], { cwd });
    expect(none).toMatchObject({ code: 1 });
    expect(none.stderr).toMatch(/^error: answer needs the answer\nfix: ll-loop answer <run\|loop> yes/);
    expect((await runCliInProcess(['answer', 'review', 'yes', '--text', 'x'], { cwd })).stderr).toMatch(
      /takes one answer/,
    );
    expect((await runCliInProcess(['answer', 'review', 'maybe'], { cwd })).stderr).toMatch(/"maybe" is not an answer/);
    expect((await runCliInProcess(['answer', 'review', '--json', '{x'], { cwd })).stderr).toMatch(/--json is not JSON/);
  });
});

describe('ll-loop test and a human state', () => {
  it("is refused with a fix: a person's answer is not an action", async () => {
    const r = await runCliInProcess(['test', 'review', 'review'], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: state "review" asks a person .*\nfix: trace the answers with ll-loop simulate review/,
    );
  });
});

describe('the inline question of ll-loop run', () => {
  it('reads a typed line as the answer the question takes', async () => {
    const { lineReply } = await import('../../runs/human/inline-ask.js');
    expect(lineReply('approval', 'Y')).toEqual({ kind: 'yes' });
    expect(lineReply('approval', 'no')).toEqual({ kind: 'no' });
    expect(lineReply('approval', 'edit only the docs')).toEqual({ kind: 'edit', text: 'only the docs' });
    expect(lineReply('approval', 'maybe')).toEqual({ problem: 'answer yes, no, or edit <text>' });
    expect(lineReply('choice', 'ship')).toEqual({ kind: 'choice', option: 'ship' });
    expect(lineReply('json', '{"n":1}')).toEqual({ kind: 'json', value: { n: 1 } });
    expect(lineReply('json', '{n')).toMatchObject({ problem: expect.stringMatching(/^that is not JSON/) });
    expect(lineReply('text', 'free text')).toEqual({ kind: 'text', text: 'free text' });
    // The flag form of ll-loop answer, typed at the prompt, is the same edit.
    expect(lineReply('approval', '--edit only the docs')).toEqual({ kind: 'edit', text: 'only the docs' });
  });

  it('offers the forms the prompt reads, not the flags of ll-loop answer', async () => {
    const { inlineForms, lineReply } = await import('../../runs/human/inline-ask.js');
    const withEdit = inlineForms('approval', 'll-loop answer r-1 yes | no | --edit TEXT');
    expect(withEdit).toBe('yes | no | edit <text>');
    expect(lineReply('approval', 'edit <text>'.replace('<text>', 'the docs'))).toEqual({
      kind: 'edit',
      text: 'the docs',
    });
    expect(inlineForms('approval', 'll-loop answer r-1 yes | no')).toBe('yes | no');
    expect(inlineForms('choice', 'll-loop answer r-1 --choice a|b')).toBe('one of the options');
    expect(inlineForms('text', 'll-loop answer r-1 --text TEXT')).toBe('the text, on one line');
    expect(inlineForms('json', "ll-loop answer r-1 --json '{…}'")).toBe('a line of JSON');
  });
});
