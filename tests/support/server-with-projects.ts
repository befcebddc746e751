/**
 * An embedded dev server of a test file's own (free ports, its data and LL_STATE_DIR under one
 * temporary base, no TEMPORAL_ADDRESS) and checkouts beside each other on it, each with its own
 * checkout worker: the setup of the files that test what a checkout's worker serves over its
 * socket. The server starts before the file's tests; after them the checkouts' workers are
 * killed (by the pids they recorded) and the server stopped.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runCliBinary, type CliResult } from './cli.js';
import { freePort, killIfAlive, livePids, pidsUnder } from './processes.js';
import { workerPid } from './worker-files.js';

export interface ServerWithProjects {
  /** The temporary directory everything is under (a project itself: `cli(base, …)` works). */
  readonly base: string;
  readonly env: NodeJS.ProcessEnv;
  /** The server's gRPC port on 127.0.0.1. */
  readonly port: number;
  /** The checkout `<base>/<name>`, its `.loops/<loop>.yaml` written from `loops`. */
  project(name: string, loops: Record<string, string>): string;
  /** `ll-loop <args>` in `dir`, with `extraEnv` over the file's environment. */
  cli(dir: string, args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
}

/**
 * `drop`: variables of the test process's environment the commands must not see (besides
 * TEMPORAL_ADDRESS), e.g. the switches that turn the worker's socket off; `env`: added to it.
 */
export function useServerWithProjects(
  prefix: string,
  opts: { drop?: string[]; env?: NodeJS.ProcessEnv } = {},
): ServerWithProjects {
  let state: { base: string; env: NodeJS.ProcessEnv; port: number } | undefined;
  const projects: string[] = [];
  const now = () => {
    if (state === undefined) throw new Error('the server and its projects exist only while the tests of its file run');
    return state;
  };
  const cli = (dir: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
    runCliBinary(args, { cwd: dir, env: { ...now().env, ...extraEnv } });
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), prefix));
    mkdirSync(join(base, '.loops'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['TEMPORAL_ADDRESS', ...(opts.drop ?? [])]) delete env[name];
    Object.assign(env, {
      LL_TEMPORAL_PORT: String(port),
      LL_TEMPORAL_UI_PORT: String(await freePort()),
      LL_TEMPORAL_DATA_DIR: join(base, '.loops', '.temporal'),
      LL_STATE_DIR: join(base, 'state'),
      NO_COLOR: '1',
      ...opts.env,
    });
    state = { base, env, port };
    const started = await cli(base, ['server', 'start']);
    expect(started.code, started.stderr).toBe(0);
  });
  afterAll(async () => {
    if (state === undefined) return;
    const { base } = state;
    // The workers first, so that none can start the server again once it is stopped: each by the
    // pid it recorded, and any that a command started moments before the end and that has not
    // recorded one yet (a build's replacement), by its directory.
    for (const dir of projects) killIfAlive(workerPid(dir));
    const commands = new Set(livePids('ll-loop'));
    for (const pid of pidsUnder(base)) if (commands.has(pid)) killIfAlive(pid);
    await cli(base, ['server', 'stop']);
    // Whatever else the file's runs left in its directories (a server started again, actions).
    for (const pid of pidsUnder(base)) killIfAlive(pid);
  });
  return {
    get base() {
      return now().base;
    },
    get env() {
      return now().env;
    },
    get port() {
      return now().port;
    },
    project(name, loops) {
      const dir = join(now().base, name);
      mkdirSync(join(dir, '.loops'), { recursive: true });
      projects.push(dir);
      for (const [loop, text] of Object.entries(loops)) writeFileSync(join(dir, '.loops', `${loop}.yaml`), text);
      return dir;
    },
    cli,
  };
}
