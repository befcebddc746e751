/**
 * `ll-loop run` gives a loop that reads them little-loops' `run_dir` (a directory of the run's own,
 * made before it starts) and `input_hash`; a value given or written in `context:` wins; loops that
 * read neither, and validation, are unchanged. Loops written here, through the real loader.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLoopFile } from '../../loader/load.js';

function project(text: string): { cwd: string; file: string } {
  const cwd = mkdtempSync(join(tmpdir(), 'll-loop-run-context-'));
  mkdirSync(join(cwd, '.loops'));
  const file = join(cwd, '.loops', 'task.yaml');
  writeFileSync(file, text);
  return { cwd, file };
}

const READS = `name: task
description: keeps files between states
initial: plan
states:
  plan:
    action: 'echo "\${context.input_hash}" > "\${context.run_dir}/plan.md"'
    next: done
  done: { terminal: true }
`;

describe('run_dir and input_hash for a run', () => {
  it('a run gets a fresh run directory under .loops/runs and the hash of its input', () => {
    const { cwd, file } = project(READS);
    const loaded = loadLoopFile(file, { context: { input: 'write hi' }, runContext: true }, cwd);
    const context = loaded.definition!.context;
    expect(context.run_dir).toMatch(new RegExp(`^${cwd}/\\.loops/runs/task-\\d{8}T\\d{6}-[0-9a-f]{4}$`));
    expect(existsSync(String(context.run_dir))).toBe(true);
    expect(context.input_hash).toBe(createHash('sha256').update('write hi').digest('hex').slice(0, 12));
    const again = loadLoopFile(file, { context: { input: 'write hi' }, runContext: true }, cwd);
    expect(again.definition!.context.run_dir).not.toBe(context.run_dir);
  });

  it('a value from --context or the loop file wins, even empty', () => {
    const { cwd, file } = project(READS.replace('initial: plan', 'initial: plan\ncontext:\n  input_hash: ""'));
    const loaded = loadLoopFile(file, { context: { run_dir: 'mine', input: 'x' }, runContext: true }, cwd);
    expect(loaded.definition!.context).toMatchObject({ run_dir: 'mine', input_hash: '' });
  });

  it('without an input there is no input_hash; a loop that reads neither gets neither', () => {
    const { cwd, file } = project(READS);
    expect(loadLoopFile(file, { runContext: true }, cwd).definition!.context).not.toHaveProperty('input_hash');
    const plain = project(
      'name: p\ndescription: d\ninitial: a\nstates:\n  a: { action: "true", next: done }\n  done: { terminal: true }\n',
    );
    expect(
      loadLoopFile(plain.file, { context: { input: 'x' }, runContext: true }, plain.cwd).definition!.context,
    ).toEqual({ input: 'x' });
    expect(existsSync(join(plain.cwd, '.loops', 'runs'))).toBe(false);
  });

  it('validation makes no directory and does not warn that they are undefined', () => {
    const { cwd, file } = project(READS);
    const loaded = loadLoopFile(file, {}, cwd);
    expect(loaded.definition!.context).toEqual({});
    expect(existsSync(join(cwd, '.loops', 'runs'))).toBe(false);
    expect(loaded.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });
});
