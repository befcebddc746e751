/**
 * A temporary project whose commands talk to the cluster (TEMPORAL_ADDRESS from the cluster
 * tier's setup), running the built binary as a user does: commands waited for, and runs started
 * in the background of the test with their output collected.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { BIN, runCliBinary, type CliResult } from '../../support/cli.js';

interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export interface ClusterProject {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `ll-loop <args>`, waited for. */
  cli(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  /** `ll-loop <args>` without waiting; its output accumulates in `out`. */
  start(args: string[]): Running;
  /** Write `.loops/<name>.yaml`. */
  loop(name: string, yaml: string): void;
  /** The lines of a file in the project (none when it does not exist). */
  lines(file: string): string[];
}

/** The project, created before the file's tests; its worker stopped and its runs' children killed after. */
export function useClusterProject(prefix: string, opts: { namespace?: string } = {}): ClusterProject {
  let cwd: string | undefined;
  let env: NodeJS.ProcessEnv | undefined;
  const children = new Set<ChildProcess>();
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the project exists only while the tests of its file run');
    return v;
  };
  const project: ClusterProject = {
    get cwd() {
      return need(cwd);
    },
    get env() {
      return need(env);
    },
    cli: (args, extraEnv = {}) =>
      runCliBinary(args, { cwd: project.cwd, env: { ...project.env, ...extraEnv }, timeoutMs: 180_000 }),
    start(args) {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: project.cwd, env: project.env });
      children.add(child);
      const out = { stdout: '', stderr: '' };
      child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
      const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        child.on('exit', (code) => {
          children.delete(child);
          resolve({ code, ...out });
        }),
      );
      return { child, out, exited };
    },
    loop: (name, yaml) => writeFileSync(join(project.cwd, '.loops', `${name}.yaml`), yaml),
    lines(file) {
      const path = join(project.cwd, file);
      return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
    },
  };
  beforeAll(() => {
    const address = process.env.TEMPORAL_ADDRESS;
    if (!address) throw new Error('TEMPORAL_ADDRESS is not set: run the cluster tier with npm run test:cluster');
    cwd = mkdtempSync(join(tmpdir(), prefix));
    mkdirSync(join(cwd, '.loops'));
    env = { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: opts.namespace ?? 'default', NO_COLOR: '1' };
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    if (!cwd) return;
    await project.cli(['worker', 'stop']);
    if (!process.env.LL_CLUSTER_KEEP) rmSync(cwd, { recursive: true, force: true });
  });
  return project;
}
