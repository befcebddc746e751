/**
 * A temporary project for a test file that runs the built binary on an embedded dev server of
 * its own (free ports, no TEMPORAL_ADDRESS), with its worker and server stopped after the file.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { runCliBinary, type CliResult } from './cli.js';
import { freePort } from './processes.js';

export interface OwnServerProject {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `ll-loop <args>` in `dir` (default the project), with `extraEnv` over the project's. */
  cli(args: string[], dir?: string, extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
}

/**
 * The project (`<tmp>/<prefix>…` with `.loops/`), created before the file's tests. `stateDir`:
 * LL_STATE_DIR inside it, so files ll-loop keeps for the user can be inspected; `startServer`:
 * start the server first, so no test pays for it.
 */
export function useOwnServerProject(
  prefix: string,
  opts: { stateDir?: boolean; startServer?: boolean } = {},
): OwnServerProject {
  let cwd: string | undefined;
  let env: NodeJS.ProcessEnv | undefined;
  const project: OwnServerProject = {
    get cwd() {
      if (cwd === undefined) throw new Error('the project exists only while the tests of its file run');
      return cwd;
    },
    get env() {
      if (env === undefined) throw new Error('the project exists only while the tests of its file run');
      return env;
    },
    cli: (args, dir, extraEnv = {}) =>
      runCliBinary(args, { cwd: dir ?? project.cwd, env: { ...project.env, ...extraEnv } }),
  };
  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), prefix));
    mkdirSync(join(cwd, '.loops'));
    const { TEMPORAL_ADDRESS: _drop, ...rest } = process.env;
    env = {
      ...rest,
      LL_TEMPORAL_PORT: String(await freePort()),
      LL_TEMPORAL_UI_PORT: String(await freePort()),
      ...(opts.stateDir ? { LL_STATE_DIR: join(cwd, 'state') } : {}),
      NO_COLOR: '1',
    };
    if (opts.startServer) {
      const started = await project.cli(['server', 'start']);
      expect(started.code, started.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await project.cli(['worker', 'stop']);
    await project.cli(['server', 'stop']);
  });
  return project;
}
