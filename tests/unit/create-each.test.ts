/**
 * `ll-loop create --kind each`: a command lists the items, a parallel state runs a loop for each
 * (bound to the loop's item parameter), N at once, joined to done / some_failed / failed; the
 * usage errors of its flags.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCommand } from '../../client/commands/create.js';
import { parseLoopKind } from '../../client/create/kinds.js';
import { presetFromFlags, type CreateFlags } from '../../client/create/preset.js';
import { UsageError } from '../../errors/errors.js';
import { loadLoopFile } from '../../loader/load.js';

function project(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'll-create-each-'));
  mkdirSync(join(cwd, '.loops'));
  writeFileSync(
    join(cwd, '.loops', 'fix-one.yaml'),
    'name: fix-one\ndescription: d\ninitial: a\nparameters:\n  test: { type: string, required: true }\nstates:\n  a:\n    action: "echo ${context.test}"\n    next: done\n  done: { terminal: true }\n',
  );
  return cwd;
}

async function create(cwd: string, partial: Partial<CreateFlags>) {
  let out = '';
  let err = '';
  const code = await createCommand({
    cwd,
    flags: { check: [], fix: [], step: [], ...partial },
    yes: false,
    force: false,
    dryRun: false,
    interactive: false,
    out: (t) => (out += t),
    err: (t) => (err += t),
  });
  return { code, out, err };
}

describe('create --kind each', () => {
  it('writes a valid loop: the items command, a parallel state bound to the loop’s parameter, the join routed', async () => {
    const cwd = project();
    const made = await create(cwd, {
      kind: 'each',
      items: 'npx vitest list --failed',
      loop: 'fix-one',
      maxWorkers: '3',
      isolation: 'worktree',
    });
    expect(made.code, made.err).toBe(0);
    const file = join(cwd, '.loops', 'each-fix-one.yaml');
    const loaded = loadLoopFile(file, {}, cwd);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const states = loaded.definition!.states;
    expect(states.list!.action).toBe('npx vitest list --failed');
    expect(states.each!.parallel).toMatchObject({
      items: '${captured.items.output}',
      items_from: 'lines',
      loop: 'fix-one',
      with: { test: '${item}' },
      max_workers: 3,
      isolation: 'worktree',
    });
    expect(states.each).toMatchObject({ on_yes: 'done', on_partial: 'some_failed', on_no: 'failed' });
    expect(readFileSync(file, 'utf8')).toContain('parallel:');
  });

  it('knows the names users reach for, and asks for what is missing', async () => {
    for (const name of ['parallel', 'fan-out', 'map', 'for each']) expect(parseLoopKind(name)).toBe('each');
    const missing = create(project(), { kind: 'each' });
    await expect(missing).rejects.toThrow(/--kind each needs --items .* and --loop/);
    expect(() => presetFromFlags({ check: [], fix: [], step: [], kind: 'each', maxWorkers: '0' })).toThrow(UsageError);
    expect(() => presetFromFlags({ check: [], fix: [], step: [], kind: 'each', isolation: 'box' })).toThrow(
      /--isolation must be none or worktree/,
    );
    expect(() => presetFromFlags({ check: [], fix: [], step: [], kind: 'fix', maxWorkers: '2' })).toThrow(
      /--max-workers does not apply to --kind fix/,
    );
  });
});
