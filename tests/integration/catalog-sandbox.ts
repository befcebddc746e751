/**
 * A project for running a built-in loop on the real server: no `.loops/`, its "ordinary tools" small
 * shell scripts, its coding agent a fake host CLI (`claude` on PATH) that records each prompt and
 * makes the project's scripted fix (./agent.sh, with the prompt as $1).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadLoop } from '../../loader/load.js';
import { formatDiagnostic } from '../../fsm/diagnostics.js';
import type { LoopDefinition } from '../../fsm/schema.js';
import { project, runLoop, toolEnv } from './harness.js';

/** Like `claude -p`: the prompt follows -p, or comes on stdin when no argument does. */
const HOST = `#!/bin/sh
prompt=
while [ $# -gt 0 ]; do
  if [ "$1" = "-p" ]; then case "\${2-}" in ''|-*) ;; *) prompt=$2; shift ;; esac; fi
  shift
done
[ -n "$prompt" ] || prompt=$(cat)
mkdir -p prompts
printf '%s' "$prompt" > "prompts/$(ls prompts | wc -l | tr -d ' ').txt"
if [ -x ./agent.sh ]; then exec ./agent.sh "$prompt"; fi
`;

export type Sandbox = ReturnType<typeof project>;

/** A project with the fake agent as `claude`, the given executable scripts and plain files. */
export function sandbox(scripts: Record<string, string>, files: Record<string, string> = {}): Sandbox {
  const p = project();
  writeFileSync(join(p.bin, 'claude'), HOST);
  chmodSync(join(p.bin, 'claude'), 0o755);
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(p.cwd, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(p.cwd, name), 0o755);
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(p.cwd, name), text);
  return p;
}

/** The prompts the fake agent got, in order. */
export function prompts(p: Sandbox): string[] {
  const dir = join(p.cwd, 'prompts');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

/** The built-in `name` as `ll-loop run name --context …` loads it in `p` (which has no .loops/). */
export function builtin(p: Sandbox, name: string, context: Record<string, string>): LoopDefinition {
  const loaded = loadLoop(name, p.cwd, { context, requireParameters: true });
  if (!loaded.definition) throw new Error(loaded.diagnostics.map(formatDiagnostic).join('\n'));
  expect(loaded.file.endsWith(join('loops', `${name}.yaml`))).toBe(true);
  return loaded.definition;
}

export const runIn = (p: Sandbox, def: LoopDefinition) => runLoop(def, { cwd: p.cwd, env: toolEnv(p) });

/** A check that fails, printing its problems, while `file` has lines. */
export const failsWhile = (file: string, exit = 1) => `if [ -s ${file} ]; then cat ${file}; exit ${exit}; fi`;

/** git in the sandbox (as a fixed author); fails the test when git does. */
export const git = (p: Sandbox, ...args: string[]): string => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: p.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
};

/**
 * A committed repository: the executable `scripts` at its top (ignored, as are the fakes' files,
 * unless `ignore` says otherwise) and the committed `files` (paths may name directories).
 */
export function repo(
  scripts: Record<string, string>,
  files: Record<string, string>,
  ignore = '/*.sh\nbin/\ntools/\nprompts/\n',
): Sandbox {
  const p = sandbox(scripts);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(p.cwd, name, '..'), { recursive: true });
    writeFileSync(join(p.cwd, name), text);
  }
  writeFileSync(join(p.cwd, '.gitignore'), ignore);
  git(p, 'init', '-q');
  git(p, 'add', '-A');
  git(p, 'commit', '-qm', 'start');
  return p;
}
